package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/flowreader/flowreader/llm"
)

// errStreamLimit: the stream is longer than Config.MaxResponseBytes.
var errStreamLimit = errors.New("stream longer than the response limit")

// sseReader reads the data of server-sent events (the WHATWG HTML
// standard's text/event-stream) from a response body: lines end in CRLF,
// LF or CR; a line starting with ":" is a comment; "data:" lines (one space
// after the colon dropped) are joined by LF into one event's data, which a
// blank line dispatches; other fields (event, id, retry) and events without
// data are ignored; a byte-order mark at the start is skipped. A stream
// that ends inside an event dispatches it all the same when its data is
// complete JSON or [DONE] (some servers omit the last blank line), and
// fails with errTruncated otherwise. It reads at most limit bytes in all,
// and allocates nothing per event once its buffers have grown.
type sseReader struct {
	r          *bufio.Reader
	left       int64
	data       []byte // the current event's data
	hasData    bool
	line       []byte // a line longer than the bufio buffer, assembled
	pending    []byte // the rest of a read slice after a line end within it
	pendingErr error  // the error of the read that returned pending
	started    bool
	cr         bool // the last line ended in CR: an LF right after it ends nothing
}

// errTruncated: the stream ended inside an event.
var errTruncated = errors.New("stream ended inside an event")

func newSSEReader(r io.Reader, limit int64) *sseReader {
	return newSSEReaderSize(r, limit, 16<<10)
}

func newSSEReaderSize(r io.Reader, limit int64, size int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, size), left: limit}
}

// next returns the data of the next event (valid until the next call), or
// io.EOF at the end of the stream.
func (s *sseReader) next() ([]byte, error) {
	for {
		line, err := s.readLine()
		if err == io.EOF {
			if s.hasData && (bytes.Equal(s.data, doneMarker) || jsonComplete(s.data)) {
				s.hasData = false
				return s.data, nil
			}
			if s.hasData {
				return nil, errTruncated
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			if s.hasData {
				s.hasData = false
				return s.data, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(name) != "data" {
			continue
		}
		if s.hasData {
			s.data = append(s.data, '\n')
		} else {
			s.data = s.data[:0]
			s.hasData = true
		}
		s.data = append(s.data, value...)
	}
}

var doneMarker = []byte("[DONE]")

// jsonComplete reports whether b is a whole JSON value.
func jsonComplete(b []byte) bool {
	return json.Valid(b)
}

// readLine returns the next line without its end (valid until the next
// call); io.EOF when the stream has ended and no line is left.
func (s *sseReader) readLine() ([]byte, error) {
	for {
		var seg []byte
		var err error
		if len(s.pending) > 0 {
			seg, err, s.pending = s.pending, s.pendingErr, nil
		} else {
			seg, err = s.r.ReadSlice('\n')
			if n := int64(len(seg)); n > 0 {
				if s.left -= n; s.left < 0 {
					return nil, fmt.Errorf("%w: %w", llm.ErrInvalidOutput, errStreamLimit)
				}
			}
			if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
				return nil, err
			}
		}
		if !s.started && len(seg) > 0 {
			s.started = true
			seg = bytes.TrimPrefix(seg, []byte("\xef\xbb\xbf"))
		}
		if s.cr && len(seg) > 0 {
			s.cr = false
			if seg[0] == '\n' {
				// The LF of a CRLF whose CR ended the last line.
				seg = seg[1:]
			}
		}
		if i := bytes.IndexAny(seg, "\r\n"); i >= 0 {
			end := i + 1
			if seg[i] == '\r' {
				if end < len(seg) && seg[end] == '\n' {
					end++
				} else if end == len(seg) {
					s.cr = true
				}
			}
			if end < len(seg) {
				s.pending, s.pendingErr = seg[end:], err
			}
			return s.take(seg[:i]), nil
		}
		if err == nil || err == bufio.ErrBufferFull {
			s.line = append(s.line, seg...)
			continue
		}
		// No line end in seg: the stream ended (err is io.EOF).
		if len(seg) > 0 || len(s.line) > 0 {
			return s.take(seg), nil
		}
		return nil, io.EOF
	}
}

// take returns the line that ends with seg, joined to any longer start.
func (s *sseReader) take(seg []byte) []byte {
	if len(s.line) == 0 {
		return seg
	}
	s.line = append(s.line, seg...)
	line := s.line
	s.line = s.line[:0]
	return line
}
