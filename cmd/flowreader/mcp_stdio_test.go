//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// rpcReply is one JSON-RPC message the server wrote.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// One bad line (garbage, a non-object, a wrong version, an object id, a
// frame of 10 MiB) is answered with a JSON-RPC error and the server keeps
// serving; a call sent before stdin closes is still answered, and the
// process exits 0.
func TestMCPStdioSurvivesMalformedLines(t *testing.T) {
	g := buildQuickstart(t)
	cmd := exec.Command(builtBinary(t), "mcp", "-g", g)
	cmd.Env = childEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()

	replies := make(chan rpcReply, 64)
	go func() {
		defer close(replies)
		br := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(strings.TrimSpace(string(line))) > 0 {
				var r rpcReply
				if json.Unmarshal(line, &r) != nil {
					t.Errorf("stdout line is not JSON-RPC: %.200s", line)
				}
				replies <- r
			}
			if err != nil {
				return
			}
		}
	}()
	next := func(what string) rpcReply {
		t.Helper()
		select {
		case r, ok := <-replies:
			if !ok {
				t.Fatalf("%s: stdout closed (exit %v)\n%s", what, <-exited, stderr.String())
			}
			return r
		case <-time.After(time.Minute):
			t.Fatalf("%s: no reply in a minute\n%s", what, stderr.String())
		}
		return rpcReply{}
	}
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatalf("writing %.60q: %v\n%s", s, err, stderr.String())
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if r := next("initialize"); r.Error != nil || string(r.ID) != "0" {
		t.Fatalf("initialize: %+v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"retrieve","arguments":{"question":%q,"budget":2}}}`, id, gustQuestion)
	}
	for i, bad := range []struct {
		line, id string
		code     int
	}{
		{"this is not json", "null", -32700},
		{`[1, 2, 3]`, "null", -32600},
		{`42`, "null", -32600},
		{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, "7", -32600},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", -32600},
		{`{"jsonrpc":"2.0","id":"x","method":42}`, `"x"`, -32600},
		{`{"jsonrpc":"2.0","id":8,"method":"ping"` + strings.Repeat(" ", 10<<20) + `}`, "null", -32600},
	} {
		send(bad.line)
		r := next(fmt.Sprintf("bad line %d", i))
		if r.Error == nil || string(r.ID) != bad.id || r.Error.Code != bad.code {
			t.Errorf("bad line %.60q: %s %+v", bad.line, r.ID, r.Error)
		}
		send(call(100 + i))
		if r := next(fmt.Sprintf("call after bad line %d", i)); r.Error != nil || string(r.ID) != fmt.Sprint(100+i) || !strings.Contains(string(r.Result), "chains") {
			t.Errorf("call after %.60q: %s %+v %.200s", bad.line, r.ID, r.Error, r.Result)
		}
	}
	// A call, then end of input at once: the call is answered first.
	send(call(200))
	stdin.Close()
	if r := next("call before EOF"); r.Error != nil || string(r.ID) != "200" {
		t.Errorf("call before EOF: %s %+v", r.ID, r.Error)
	}
	if err := <-exited; err != nil {
		t.Errorf("exit: %v\n%s", err, stderr.String())
	}
}
