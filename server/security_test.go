package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/reader"
	"github.com/flowreader/flowreader/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func decodeError(t *testing.T, b []byte) errorBody {
	t.Helper()
	var e errorBody
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("not an error body: %v: %s", err, b)
	}
	return e
}

// A budget above the server's limit is refused before any work: one
// request must not buy routing and selection of millions of units.
func TestBudgetAboveTheLimitIsRefused(t *testing.T) {
	ix := index(t, flowreader.Config{})
	ts := newServer(t, ix, server.Options{MaxBudget: 8})
	status, _, b := do(t, "POST", ts.URL+"/v1/retrieve", jsonType, `{"question": "`+question+`", "budget": 99999999}`)
	if e := decodeError(t, b); status != 400 || e.Error.Code != "bad_budget" || !strings.Contains(e.Error.Message, "8") {
		t.Errorf("huge budget: %d %s", status, b)
	}
	if status, _, b := do(t, "POST", ts.URL+"/v1/retrieve", jsonType, `{"question": "`+question+`", "budget": 8}`); status != 200 {
		t.Errorf("budget at the limit: %d %s", status, b)
	}
	// The default limit.
	ts = newServer(t, ix, server.Options{})
	if status, _, b := do(t, "POST", ts.URL+"/v1/ask", jsonType, `{"question": "`+question+`", "budget": 99999999}`); status != 400 {
		t.Errorf("huge budget, default limit: %d %s", status, b)
	}
	// MCP: a tool error.
	s, err := server.NewMCP(ix, server.Options{MaxBudget: 8})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectMCP(t, s)
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "retrieve", Arguments: map[string]any{"question": question, "budget": 99999999}})
	if err != nil || !r.IsError || !strings.Contains(r.Content[0].(*mcp.TextContent).Text, "budget") {
		t.Errorf("MCP huge budget: %v %+v", err, r)
	}
}

func connectMCP(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// bigIndex is a collection whose evidence is hundreds of kilobytes: nodes
// of 40 KB of text each.
func bigIndex(t *testing.T, nodes int) *flowreader.Index {
	t.Helper()
	var items []graph.Item
	for i := range nodes {
		text := fmt.Sprintf("Breakwater %d nests. ", i) + strings.Repeat(fmt.Sprintf("tern colony %d storm surge harbour ", i%7), 1200)
		items = append(items, graph.Item{Modality: graph.ModalityText, Page: i, Text: text})
	}
	p, err := flowreader.New(flowreader.Config{Embedder: &fake.Embedder{}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(context.Background(), []graph.Document{{ID: "big", Title: "Big", Items: items}})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.Open(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// rawPost sends a request on a raw connection with a small receive buffer
// and reads nothing: a client that never reads its answer.
func rawPost(t *testing.T, addr, path, body string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, addr, len(body), body)
	t.Cleanup(func() { c.Close() })
	return c
}

// smallBuffers accepts connections with a 4 KiB send buffer.
type smallBuffers struct{ *net.TCPListener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.AcceptTCP()
	if err == nil {
		c.SetWriteBuffer(4096)
	}
	return c, err
}

// Two clients that ask for a large answer and never read it hold no slot:
// the third call is answered, and their connections are closed after the
// write timeout.
func TestSlowReadersHoldNoSlot(t *testing.T) {
	ix := bigIndex(t, 60)
	h, err := server.New(ix, server.Options{MaxInFlight: 2, MaxQueue: -1, MaxBudget: 60, WriteTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// Small socket buffers on the server's side, as on a busy network: the
	// answers (hundreds of kilobytes) cannot vanish into the kernel's
	// buffers, so writing them blocks until the client reads.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Listener = smallBuffers{ln.(*net.TCPListener)}
	ts.Start()
	t.Cleanup(ts.Close)
	addr := strings.TrimPrefix(ts.URL, "http://")
	body := `{"question": "tern colony storm surge harbour", "budget": 60}`
	slow := []net.Conn{rawPost(t, addr, "/v1/retrieve", body), rawPost(t, addr, "/v1/retrieve", body)}
	// Wait until both answers are being written: their first bytes arrive.
	for _, c := range slow {
		c.SetReadDeadline(time.Now().Add(time.Minute))
		var b [1]byte
		if _, err := c.Read(b[:]); err != nil {
			t.Fatalf("slow reader got nothing: %v", err)
		}
	}
	done := make(chan int, 1)
	go func() {
		resp, err := http.Post(ts.URL+"/v1/retrieve", jsonType, strings.NewReader(`{"question": "`+question+`", "budget": 2}`))
		if err != nil {
			done <- -1
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	select {
	case status := <-done:
		if status != 200 {
			t.Errorf("a call while two slow readers hold their answers: %d", status)
		}
	case <-time.After(time.Minute):
		t.Fatal("a call while two slow readers hold their answers did not end in a minute")
	}
	// Past the write timeout the server gives up on them and closes their
	// connections (a complete answer would leave them open, kept alive).
	for _, c := range slow {
		c.SetReadDeadline(time.Now().Add(time.Minute))
		time.Sleep(3 * time.Second) // past the write timeout before reading on
		n, err := io.Copy(io.Discard, c)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("slow reader's connection still open after a minute (%d bytes)", n)
		}
	}
}

// /v1/* takes only application/json: a form post or a text/plain body
// (which a web page can send without a CORS preflight) is refused.
func TestContentTypeIsRequired(t *testing.T) {
	ix := index(t, flowreader.Config{})
	ts := newServer(t, ix, server.Options{})
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
		status, _, b := do(t, "POST", ts.URL+"/v1/ask", ct, `{"question": "`+question+`"}`)
		if e := decodeError(t, b); status != 415 || e.Error.Code != "unsupported_media_type" {
			t.Errorf("Content-Type %q: %d %s", ct, status, b)
		}
	}
	if status, _, b := do(t, "POST", ts.URL+"/v1/retrieve", "application/json; charset=utf-8", `{"question": "`+question+`"}`); status != 200 {
		t.Errorf("application/json; charset=utf-8: %d %s", status, b)
	}
}

func doWith(t *testing.T, method, url string, hdr map[string]string, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// A DNS-rebinding page reaches the server under its own host name: only
// the allowed names (and IP literals, which no rebinding can use) pass.
func TestHostIsChecked(t *testing.T) {
	ix := index(t, flowreader.Config{})
	ts := newServer(t, ix, server.Options{AllowedHosts: []string{"localhost", "flowreader.internal"}})
	port := ts.URL[strings.LastIndex(ts.URL, ":"):]
	body := `{"question": "` + question + `"}`
	for _, c := range []struct {
		host   string
		status int
	}{
		{"localhost" + port, 200}, {"LOCALHOST" + port, 200}, {"127.0.0.1" + port, 200}, {"[::1]" + port, 200},
		{"flowreader.internal", 200}, {"evil.example" + port, 403}, {"localhost.evil.example" + port, 403},
	} {
		for _, path := range []string{"/v1/retrieve", "/v1/graph", "/mcp"} {
			method := "POST"
			if path == "/v1/graph" {
				method = "GET"
			}
			status, _, b := doWith(t, method, ts.URL+path, map[string]string{"Host": c.host, "Content-Type": jsonType, "Accept": "application/json, text/event-stream"}, body)
			if (c.status == 403) != (status == 403) {
				t.Errorf("Host %s %s: %d %s", c.host, path, status, b)
			}
		}
	}
}

// Bearer tokens guard /v1/*, /mcp and /metrics; /healthz stays open for
// probes.
func TestBearerTokens(t *testing.T) {
	ix := index(t, flowreader.Config{})
	ts := newServer(t, ix, server.Options{Tokens: []string{"first-token-0123456789", "second-token-abcdefghij"}})
	body := `{"question": "` + question + `"}`
	for _, c := range []struct {
		auth   string
		status int
	}{
		{"", 401}, {"Bearer wrong", 401}, {"Bearer first-token-012345678", 401}, {"Basic Zmlyc3QtdG9rZW4tMDEyMzQ1Njc4OQ==", 401},
		{"Bearer first-token-0123456789", 200}, {"bearer second-token-abcdefghij", 200},
	} {
		hdr := map[string]string{"Content-Type": jsonType}
		if c.auth != "" {
			hdr["Authorization"] = c.auth
		}
		status, h, b := doWith(t, "POST", ts.URL+"/v1/retrieve", hdr, body)
		if status != c.status {
			t.Errorf("Authorization %q: %d %s", c.auth, status, b)
		}
		if status == 401 && !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("401 without WWW-Authenticate: %v", h)
		}
		for _, path := range []string{"/mcp", "/metrics", "/v1/graph"} {
			method := "GET"
			if path == "/mcp" {
				method = "POST"
			}
			hdr["Accept"] = "application/json, text/event-stream"
			status, _, b := doWith(t, method, ts.URL+path, hdr, `{"jsonrpc": "2.0", "id": 1, "method": "ping"}`)
			if (c.status == 401) != (status == 401) {
				t.Errorf("%s with %q: %d %s", path, c.auth, status, b)
			}
		}
	}
	if status, _, _ := doWith(t, "GET", ts.URL+"/healthz", nil, ""); status != 200 {
		t.Errorf("healthz without a token: %d", status)
	}
}

// Calls beyond MaxInFlight wait in a bounded queue instead of being
// refused; past the queue they are refused with 503 busy.
func TestCallsQueue(t *testing.T) {
	emb := &gatedEmbedder{release: make(chan struct{})}
	ix := index(t, flowreader.Config{Embedder: emb})
	ts := newServer(t, ix, server.Options{MaxInFlight: 1, MaxQueue: 8, Timeout: time.Minute})
	emb.closed.Store(true)
	body := `{"question": "` + question + `"}`
	var wg sync.WaitGroup
	codes := make(chan int, 9)
	for range 9 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(ts.URL+"/v1/retrieve", jsonType, strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	// One runs, eight wait: the tenth is refused.
	waitMetric(t, ts.URL, "flowreader_server_calls_queued 8")
	status, hdr, b := do(t, "POST", ts.URL+"/v1/ask", jsonType, body)
	if e := decodeError(t, b); status != 503 || e.Error.Code != "busy" || hdr.Get("Retry-After") == "" {
		t.Errorf("past the queue: %d %s", status, b)
	}
	close(emb.release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 200 {
			t.Errorf("a queued call ended %d", c)
		}
	}
	m := metrics(t, ts.URL)
	for _, want := range []string{
		"flowreader_server_calls_in_flight 0", "flowreader_server_calls_queued 0",
		`flowreader_server_calls_refused_total{reason="busy"} 1`,
		`flowreader_server_calls_total{code="200",endpoint="retrieve"} 9`,
		`flowreader_server_call_duration_seconds_count{endpoint="retrieve"} 9`,
		`flowreader_server_call_duration_seconds_bucket{endpoint="retrieve",le="+Inf"} 9`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q:\n%s", want, m)
		}
	}
}

func metrics(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", resp.StatusCode, b)
	}
	return string(b)
}

// waitMetric polls /metrics until it holds line (a minute at most).
func waitMetric(t *testing.T, url, line string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		m := metrics(t, url)
		if strings.Contains(m, line+"\n") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in a minute:\n%s", line, m)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Twenty tool calls at once over one MCP session all answer (they queue).
func TestMCPCallsQueue(t *testing.T) {
	ix := index(t, flowreader.Config{})
	s, err := server.NewMCP(ix, server.Options{MaxInFlight: 1})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectMCP(t, s)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "retrieve", Arguments: map[string]any{"question": question}})
			if err != nil || r.IsError {
				t.Errorf("%v %+v", err, r)
			}
		}()
	}
	wg.Wait()
}

// A failed ask's body holds the partial result only when the request asks
// for it: a timeout's body is otherwise a few hundred bytes.
func TestPartialOnlyWhenAsked(t *testing.T) {
	m := &fake.Model{Rules: []fake.Rule{
		{Contains: "EVIDENCE PATHS", Err: fmt.Errorf("reasoner: %w", llm.ErrUnavailable)},
		{Contains: "Classify the question below", Reply: `{"type":"value","length":"short"}`},
	}, Default: `{"status": "supported", "answer": "31", "evidence": "East Arm | 97 | 31"}`}
	// A VLM without a Fallback: the model's failure reaches the client
	// (the default pipeline answers with the extractive reader instead).
	ix := index(t, flowreader.Config{Model: m, Reader: &reader.VLM{Model: m}})
	ts := newServer(t, ix, server.Options{})
	status, _, b := do(t, "POST", ts.URL+"/v1/ask", jsonType, `{"question": "`+question+`", "budget": 2}`)
	if e := decodeError(t, b); status != 502 || len(e.Partial) != 0 || len(b) > 2048 {
		t.Errorf("without partial: %d %d bytes: %s", status, len(b), b)
	}
	status, _, b = do(t, "POST", ts.URL+"/v1/ask", jsonType, `{"question": "`+question+`", "budget": 2, "partial": true}`)
	if e := decodeError(t, b); status != 502 || len(e.Partial) == 0 {
		t.Errorf("with partial: %d %s", status, b)
	}
}

// rawExchange writes req on a raw connection and returns what the server
// answers until it closes or a minute passes.
func rawExchange(t *testing.T, addr, req string, after func(net.Conn)) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	io.WriteString(c, req)
	if after != nil {
		after(c)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, b)
}

// A body that does not arrive within the server's read timeout is a 408,
// not a 400.
func TestBodyReadTimeoutIs408(t *testing.T) {
	ix := index(t, flowreader.Config{})
	h, err := server.New(ix, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ReadTimeout = 300 * time.Millisecond
	ts.Start()
	defer ts.Close()
	addr := strings.TrimPrefix(ts.URL, "http://")
	got := rawExchange(t, addr, "POST /v1/retrieve HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"question\": ", nil)
	if !strings.HasPrefix(got, "408 ") || !strings.Contains(got, `"request_timeout"`) {
		t.Errorf("slow body: %s", got)
	}
}

// A body announced above the limit is refused without a 100 Continue: the
// client must not be told to send it.
func TestNoContinueBeforeRefusal(t *testing.T) {
	ix := index(t, flowreader.Config{})
	ts := newServer(t, ix, server.Options{MaxBodyBytes: 1024})
	addr := strings.TrimPrefix(ts.URL, "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	io.WriteString(c, "POST /v1/retrieve HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 10000000\r\n\r\n")
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(line, "HTTP/1.1 413") {
		t.Errorf("first line %q, want a 413 before any 100 Continue", line)
	}
}
