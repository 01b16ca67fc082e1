// Package ingest turns documents into graph.Documents ready for the graph
// Builder: MinerU output folders (content_list.json), Markdown, plain text
// and PDF.
//
// Text is chunked as G2-Reader does (METHOD §0): LangChain's recursive
// character splitter with chunks of about 3,000 characters overlapping by
// 300, split on paragraphs, then lines, then sentence ends, then spaces.
// Chunks never cross a heading or a visual item, so each keeps its section
// and page. Tables and figures become visual items carrying their caption,
// footnote, image and up to 1,000 words of surrounding text before and after
// them as context (words are white-space separated, as in G2-Reader).
//
// Ingestion reads only regular files whose real path (symbolic links
// resolved) stays inside the folder given to Path: a collection copied from
// elsewhere may hold env.txt -> /proc/self/environ, and reading it would put
// the environment (API keys) into the graph file. A link to a file inside
// the folder is read; a link leaving it, a dangling link, a FIFO or a device
// is skipped and reported to Config.Skipped, and the walk goes on. Image
// paths are resolved inside the document's folder: a path that leaves it,
// lexically or through a symbolic link, is rejected with ErrPathEscape.
//
// PDF text comes from Poppler's pdftotext (Debian package poppler-utils)
// when it is on PATH, one page at a time in -layout mode; otherwise from the
// pure-Go reader github.com/ledongthuc/pdf. With neither, PDF fails with
// ErrNoPDFReader.
package ingest
