// Package ingest turns a collection of files into [graph.Document]s ready
// for the graph Builder. [Path] is the one entry point: given a folder it
// walks it in lexical path order; given a file or a MinerU folder it reads
// that one document. It reads MinerU output folders (a *content_list.json
// and the images it names), Markdown (.md, .markdown), plain text (.txt,
// .text) and PDF text (.pdf).
//
// # Items
//
// A document is a sequence of items in reading order ([graph.Item]): text
// chunks, tables and figures. Text is chunked as G2-Reader does (paper v3
// §3.1 adopts its construction): LangChain's recursive character splitter
// with chunks of at most 3,000 characters overlapping by up to 300
// ([Config.ChunkSize], [Config.ChunkOverlap]), split on paragraphs, then
// lines, then sentence ends, then spaces, then single characters. Chunks
// never cross a heading or a visual item, so each keeps its section and
// page. Tables (HTML table bodies rendered one row a line, cells joined by
// " | ", spans repeated in every cell they cover) and figures become visual
// items carrying their caption, footnote, image and up to 1,000 words of
// surrounding text before and after them as context ([Config.ContextWords];
// words are white-space separated, as in G2-Reader).
//
// # Confinement
//
// Only regular files whose real path (symbolic links resolved) stays
// inside the folder given to Path (a single file's own folder) are read: a
// collection copied from elsewhere may hold env.txt -> /proc/self/environ,
// and reading it would put the environment, API keys included, into the
// graph file and the answers. A link to a file inside the folder is read; a
// link leaving it ([ErrPathEscape]), a dangling link (fs.ErrNotExist), a
// FIFO, a device or a socket ([ErrUnsupported]) is skipped and reported to
// [Config.Skipped], and the walk goes on; given directly, it is an error.
// Symbolic links to folders are not followed. Image paths are resolved
// inside the document's folder: a path that leaves it, lexically or
// through a symbolic link, fails with ErrPathEscape.
//
// # PDF
//
// PDF text is read from word boxes, by Poppler's pdftotext -bbox-layout
// (Debian package poppler-utils) when it is on PATH, else by the pure-Go
// reader github.com/ledongthuc/pdf from glyph positions and widths
// ([Config.PDFReader] picks one). Both go through one layout: lines are
// split at column gutters and grouped into blocks, and blocks are read in
// recursive XY-cut order (a region with a vertical gutter column by
// column, otherwise band by band), so two-column papers read column by
// column; lines repeated at the top or bottom of most pages (running
// headers and footers) and bare page numbers are dropped; a word broken by
// a hyphen at a line end is joined; ligatures (ﬁ, ﬂ, …) are expanded.
//
// Captions ("Figure 3:", "Fig. 3.", "Table 2:", "Table II") become figure
// and table items. The region a caption labels (above a figure's caption;
// above or below a table's, whichever holds more words) is bounded by the
// nearest prose of the column; a table's text is recovered from the words
// inside it (a row per line, cells split at wide gaps, " | " between
// cells). With Poppler, pdftoppm renders each region to a PNG in the
// hidden folder .flowreader/<file name>/ beside the PDF (written whole, in
// one rename), which the item's image points at, so a vision model
// receives it; the document's Root is then the PDF's folder. Pages with
// images and no text are scanned pages: they are read by tesseract
// (Debian package tesseract-ocr) when it and pdftoppm are installed, and
// reported otherwise.
//
// Reading is bounded: a PDF of n bytes gives at most min(10,000, 1 +
// n/16) pages and max(64 KiB, 32·n) bytes of text; the pure-Go reader
// walks the page tree itself (each node once, whatever /Count says, at
// most 64 levels, /Parent chains checked) and checks each content
// stream's decompressed size before interpreting it; every Poppler or
// tesseract run is bounded in time and output and stopped by the context.
// A PDF that no reader can read fails with [ErrFormat].
package ingest
