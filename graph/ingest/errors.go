package ingest

import "errors"

// Sentinel errors; test with errors.Is.
var (
	// ErrPathEscape: an image path leaves the document's folder (via "..",
	// an absolute path or a symbolic link), or a file resolves outside the
	// folder being ingested.
	ErrPathEscape = errors.New("ingest: path escapes its folder")
	// ErrFormat: the input is not valid for its format (malformed JSON,
	// wrong structure).
	ErrFormat = errors.New("ingest: malformed input")
	// ErrNoContentList: a MinerU folder holds no *content_list.json.
	ErrNoContentList = errors.New("ingest: no content_list.json in folder")
	// ErrUnsupported: Path was given a file of an unknown type, or a file
	// that is not a regular file (a FIFO, a device, a socket).
	ErrUnsupported = errors.New("ingest: unsupported file type")
	// ErrNoPDFReader: neither pdftotext nor the pure-Go reader could read
	// the PDF.
	ErrNoPDFReader = errors.New("ingest: no working PDF text reader")
)
