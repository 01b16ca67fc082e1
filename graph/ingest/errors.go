package ingest

import "errors"

// Sentinel errors; test with errors.Is.
var (
	// ErrPathEscape: an image path leaves the document's folder (via "..",
	// an absolute path or a symbolic link), or a file resolves outside the
	// folder being ingested.
	ErrPathEscape = errors.New("ingest: path escapes its folder")
	// ErrFormat: the input is not valid for its format (malformed JSON,
	// wrong structure, a PDF no reader could read).
	ErrFormat = errors.New("ingest: malformed input")
	// ErrUnsupported: a file of a type ingest does not read, a file that
	// is not a regular file (a FIFO, a device, a socket), a text file
	// holding binary content, or a PDF with PDFReader "pdftotext" and no
	// pdftotext on PATH.
	ErrUnsupported = errors.New("ingest: unsupported file type")
	// ErrEmpty: a file with no content to ingest (empty, white space only,
	// or a PDF with no text layer).
	ErrEmpty = errors.New("ingest: no content")
	// ErrTooLarge: a file larger than Config.MaxFileSize.
	ErrTooLarge = errors.New("ingest: file too large")
)

// errNoContentList: a MinerU folder holds no *content_list.json.
var errNoContentList = errors.New("ingest: no content_list.json in folder")
