// Package mcpstdio runs an MCP server over a process's stdin and stdout so
// that no input line can end it. The SDK's stdio transport ends the session
// on the first line it cannot decode (garbage, a non-object, a wrong
// version tag, an object id, an oversized frame), leaving the calls already
// sent unanswered; an agent's one bad line then kills the server. Here every
// line is checked first, with the SDK's own decoder: a line it would refuse
// is answered with a JSON-RPC error (parse error -32700 or invalid request
// -32600, with the line's id when it has a usable one, else null) and
// dropped, and the session goes on. At the end of input the server answers
// the calls it was sent before its session ends.
package mcpstdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLine bounds one input line; a longer one is skipped to its end and
// answered with an invalid-request error. Tool calls are a few hundred
// bytes; the SDK's own bound is 16 MiB.
const MaxLine = 1 << 20

// Serve runs s over in and out until in ends (and the calls read before
// it are answered) or ctx is done.
func Serve(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer) error {
	w := &writer{out: out, pending: map[any]bool{}}
	w.idle = sync.NewCond(&w.mu)
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(w.filter(in, pw)) }()
	err := s.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: w})
	pr.Close()
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// writer is the session's stdout: one message per Write (as the SDK
// writes), serialised with the error replies of the filter, and the ids of
// the requests still unanswered.
type writer struct {
	out     io.Writer
	mu      sync.Mutex
	idle    *sync.Cond
	pending map[any]bool
}

func (w *writer) Write(p []byte) (int, error) {
	if m, err := jsonrpc.DecodeMessage(bytes.TrimSpace(p)); err == nil {
		if r, ok := m.(*jsonrpc.Response); ok {
			defer w.answered(r.ID)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(p)
}

func (w *writer) Close() error { return nil }

func (w *writer) sent(id jsonrpc.ID) {
	w.mu.Lock()
	w.pending[id.Raw()] = true
	w.mu.Unlock()
}

func (w *writer) answered(id jsonrpc.ID) {
	w.mu.Lock()
	delete(w.pending, id.Raw())
	if len(w.pending) == 0 {
		w.idle.Broadcast()
	}
	w.mu.Unlock()
}

// drain waits until every request passed on has been answered.
func (w *writer) drain() {
	w.mu.Lock()
	for len(w.pending) > 0 {
		w.idle.Wait()
	}
	w.mu.Unlock()
}

// reply writes a JSON-RPC error for a refused line.
func (w *writer) reply(id json.RawMessage, code int, msg string) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: msg}})
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.out.Write(append(b, '\n'))
	return err
}

// filter copies the valid lines of in to the SDK's side of the pipe and
// answers the others. At the end of in it waits for the answers to the
// requests passed on, then returns (closing the pipe ends the session).
func (w *writer) filter(in io.Reader, to io.Writer) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if werr := w.check(line, tooLong, to); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			w.drain()
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// check passes one line on, or answers it with an error.
func (w *writer) check(line []byte, tooLong bool, to io.Writer) error {
	if tooLong {
		return w.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", MaxLine))
	}
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		return w.reply(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return w.reply(usableID(line), jsonrpc.CodeInvalidRequest, "invalid request: "+bound(err.Error()))
	}
	if r, ok := m.(*jsonrpc.Request); ok && r.ID.IsValid() {
		w.sent(r.ID)
	}
	_, err = to.Write(append(line, '\n'))
	return err
}

// usableID is the id of a refused line when it is a string or a number, so
// that the client can match the error to its request; else nil (null).
func usableID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// readLine reads one line of at most MaxLine bytes; a longer one is read to
// its end and dropped (tooLong).
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine {
			tooLong = true
			line = nil
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

func bound(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
