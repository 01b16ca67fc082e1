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
// Image paths are resolved inside the document's folder: a path that leaves
// it, lexically or through a symbolic link, is rejected with ErrPathEscape.
//
// PDF text comes from Poppler's pdftotext (Debian package poppler-utils)
// when it is on PATH, one page at a time in -layout mode; otherwise from the
// pure-Go reader github.com/ledongthuc/pdf. With neither, PDF fails with
// ErrNoPDFReader.
package ingest
