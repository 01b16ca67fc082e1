// Package ingest turns a collection of files into [graph.Document]s ready
// for the graph Builder. [Config.Read] ingests an OS path and [Config.FS]
// any fs.FS; both take a context (checked between files and inside long
// loops) and return a [Report]; [Path] is Read without them. Given a folder
// they walk it in lexical path order (hidden folders left out); given a
// file or a MinerU folder they read that one document.
//
// # File types
//
//   - MinerU output folders: a folder holding a *content_list.json (MinerU
//     1.x–2.x) or a *content_list_v2.json (MinerU ≥ 2.5: one list per page
//     of blocks with a "content" object) is one document, with the images
//     it names; the first list in name order is read, v1 before v2.
//   - Markdown (.md, .markdown): CommonMark with GFM tables and HTML
//     tables (row and column spans expanded); ![alt](src) and <img src
//     alt> images become figures. YAML front matter is the document's
//     Metadata (its title the document's title and first heading), never
//     text.
//   - MDX (.mdx): read as Markdown without its import and export lines;
//     its JSX elements are read as HTML.
//   - Plain text (.txt, .text): paragraphs at blank lines, "# " headings.
//   - PDF (.pdf): its text (see PDF below).
//
// Text is decoded as UTF-8 (a byte order mark dropped), UTF-16 with a byte
// order mark (or, without one, recognised by its zero bytes), or, when it
// holds no valid multi-byte UTF-8 at all, Windows-1252 (the superset of
// Latin-1); invalid UTF-8 elsewhere is replaced by U+FFFD. A guess or a
// repair is a warning in the report. Binary content (zero bytes, control
// bytes) is refused ([ErrUnsupported]).
//
// # Report
//
// One bad file never sinks the folder: a file that cannot be read (of
// another type, empty, binary, larger than [Config.MaxFileSize],
// malformed, or breaking the confinement rule) is skipped and recorded in
// the [Report] with its reason, and so is a document with no items
// ([ErrEmpty]: an empty file; a PDF without text, with the tool that would
// read it). Items dropped or repaired inside a file (an image that is
// missing, leaves the document's folder or is remote; text decoded from
// another encoding) are its warnings; those that lost content (a page, an
// item or text not read) are also its Lost, and repeated ones fold into
// one line of its Summary. Files of other types that a document uses as
// images are not listed.
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
// words are white-space separated, as in G2-Reader). Pages are 0-based
// ([graph.Item] Page; -1 when unknown).
//
// # Limits
//
// Every reader of outside input is bounded: files are read up to
// [Config.MaxFileSize] (256 MiB by default), a Markdown line may open at
// most 64 nested lists or quotes (goldmark's work grows with the square of
// the nesting; a deeper file is read as plain text, with a warning), a
// rendered nested list is indented at most 16 levels, table spans are
// clamped, and a file keeps at most 50 warnings.
//
// # Confinement
//
// Only regular files whose real path (symbolic links resolved) stays
// inside the folder given to Read (a single file's own folder) are read: a
// collection copied from elsewhere may hold env.txt -> /proc/self/environ,
// and reading it would put the environment, API keys included, into the
// graph file and the answers. A link to a file inside the folder is read; a
// link leaving it ([ErrPathEscape]), a dangling link (fs.ErrNotExist), a
// FIFO, a device or a socket ([ErrUnsupported]) is skipped and reported.
// Symbolic links to folders are not followed. Image paths are resolved
// inside the document's folder: an image that leaves it, lexically or
// through a symbolic link, is not used and the report says so. In an fs.FS
// links are followed only inside it, when it reports them (fs.ReadLinkFS,
// as os.DirFS does: os.DirFS itself follows links anywhere).
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
// above or below a table's, the side holding a table or more words) is
// bounded by the nearest prose of the column and confined to the
// caption's column. Tables drawn without rules are found from their
// columns (strips of white through their rows) before the layout cuts the
// page, and become table items a page, header carried over page breaks. A
// table's text is a row per line, " | " between cells. With
// [Config.Assets] set, pdftoppm renders each region to a PNG in
// Assets/<document ID>/ (written whole, in one rename; never into the
// collection), which the item's image points at, so a vision model
// receives it; the document's Root is then that folder. A slide deck (most
// pages of few words set large) gives a unit per slide, titled by the
// slide's title; a text chunk over a page break keeps its last page
// (graph.Item.LastPage). Pages with images and no text are scanned pages:
// they are read by tesseract (Debian package tesseract-ocr) in
// [Config.OCRLanguage] when it and pdftoppm are installed, and reported
// otherwise.
//
// Reading is bounded: a PDF of n bytes gives at most min(10,000, 1 +
// n/16) pages and max(64 KiB, 32·n) bytes of text; the pure-Go reader
// walks the page tree itself (each node once, whatever /Count says, at
// most 64 levels, /Parent chains checked) and checks each content
// stream's decompressed size before interpreting it; every Poppler or
// tesseract run is bounded in time and output and stopped by the context.
// A PDF that no reader can read is skipped with [ErrFormat] (the report says so).
package ingest
