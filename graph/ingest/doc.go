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
// PDF text comes from Poppler's pdftotext (Debian package poppler-utils)
// when it is on PATH, in -layout mode with pages split at form feeds;
// otherwise from
// the pure-Go reader github.com/ledongthuc/pdf ([Config.PDFReader] picks
// one). A PDF that no reader can read fails with [ErrFormat]. Figures and
// tables inside a PDF are not extracted: parse the PDF with MinerU for
// those.
package ingest
