package mcpstdio

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const initLines = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// session runs a server over pipes and returns its input, and a function
// that waits for the reply to id (failing after a minute).
func session(t testing.TB) (io.WriteCloser, func(id string) bool, <-chan error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), s, inR, outW); outW.Close() }()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	wait := func(id string) bool {
		timeout := time.After(time.Minute)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					return false
				}
				var m struct {
					ID json.RawMessage `json:"id"`
				}
				if json.Unmarshal([]byte(l), &m) != nil {
					t.Errorf("output is not JSON: %.200s", l)
				}
				if string(m.ID) == id {
					return true
				}
			case <-timeout:
				return false
			}
		}
	}
	return inW, wait, done
}

// Whatever one line holds, the session answers the ping after it.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"garbage", "[]", "[1]", "42", "null", `{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"r","result":{}}`, `{"jsonrpc":"2.0","method":"tools/call","id":3,"params":7}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`, `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		line = strings.ReplaceAll(line, "\n", " ")
		in, wait, done := session(t)
		io.WriteString(in, initLines)
		if !wait(`"init"`) {
			t.Fatal("no initialize reply")
		}
		io.WriteString(in, line+"\n"+`{"jsonrpc":"2.0","id":"after","method":"ping"}`+"\n")
		if !wait(`"after"`) {
			t.Fatalf("no reply to the ping after %q", line)
		}
		in.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Serve after %q: %v", line, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("Serve did not end at EOF after %q", line)
		}
	})
}

// A line above MaxLine is skipped to its end and answered with an error.
func TestLongLine(t *testing.T) {
	in, wait, _ := session(t)
	io.WriteString(in, initLines)
	if !wait(`"init"`) {
		t.Fatal("no initialize reply")
	}
	go func() {
		io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"ping","x":"`+strings.Repeat("a", 3*MaxLine)+`"}`+"\n")
		io.WriteString(in, `{"jsonrpc":"2.0","id":"after","method":"ping"}`+"\n")
	}()
	if !wait("null") || !wait(`"after"`) {
		t.Fatal("no error for the long line, or no reply after it")
	}
	in.Close()
}
