//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowreader/flowreader/internal/lab/cputime"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

// builtBinary builds the flowreader command once per test run: the serve and
// mcp tests run the real process, signals and stdio included.
func builtBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "flowreader-bin-")
		if err != nil {
			binErr = err
			return
		}
		binDir = dir
		binPath = filepath.Join(dir, "flowreader")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = errors.New(string(out))
		}
	})
	if binErr != nil {
		t.Fatalf("go build: %v", binErr)
	}
	return binPath
}

// serveProcess is a running `flowreader serve`.
type serveProcess struct {
	cmd    *exec.Cmd
	url    string
	mu     sync.Mutex
	stderr strings.Builder
	done   chan struct{}
}

// cpu is the CPU time (user and system) the server process has used so
// far; ok is false where it cannot be read (only Linux has /proc).
func (p *serveProcess) cpu() (time.Duration, bool) { return cputime.Of(p.cmd.Process.Pid) }

func (p *serveProcess) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// serveEnv is added to the environment of the serve processes that
// startServe starts.
var serveEnv []string

// startServe starts serve on a free loopback port and waits for the
// address it prints.
func startServe(t *testing.T, args ...string) *serveProcess {
	t.Helper()
	cmd := exec.Command(builtBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(childEnv(), serveEnv...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProcess{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	re := regexp.MustCompile(`listening on (http://\S+)`)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	select {
	case p.url = <-addr:
	case <-p.done:
		cmd.Wait()
		t.Fatalf("serve exited before listening: %s", p.log())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not print its address: %s", p.log())
	}
	return p
}

// childEnv is the test's environment without FLOWREADER_* settings, so
// that a developer's model servers do not leak into the tests.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FLOWREADER_") {
			env = append(env, kv)
		}
	}
	return env
}

type httpResult struct {
	status int
	body   map[string]any
	raw    string
}

func call(t *testing.T, method, url, body string) httpResult {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := httpResult{status: resp.StatusCode, raw: string(b)}
	if err := json.Unmarshal(b, &r.body); err != nil {
		t.Fatalf("%s %s: not JSON: %s", method, url, b)
	}
	if r.body["schema_version"] != float64(1) {
		t.Errorf("%s %s: no schema_version: %s", method, url, b)
	}
	return r
}

func errCode(r httpResult) string {
	e, _ := r.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func TestServeQuickstart(t *testing.T) {
	g := buildQuickstart(t)
	p := startServe(t, "-g", g)

	if r := call(t, "GET", p.url+"/healthz", ""); r.status != 200 || r.body["status"] != "ok" {
		t.Errorf("healthz: %d %s", r.status, r.raw)
	}
	if r := call(t, "GET", p.url+"/v1/graph", ""); r.status != 200 || r.body["nodes"] != float64(13) || r.body["documents"] != float64(2) ||
		r.body["dimension"] != float64(100) || !strings.HasPrefix(r.body["embedder"].(string), "glove") {
		t.Errorf("graph: %d %s", r.status, r.raw)
	}
	r := call(t, "POST", p.url+"/v1/retrieve", `{"question": "`+gustQuestion+`", "budget": 4}`)
	chains, _ := r.body["chains"].([]any)
	if r.status != 200 || r.body["budget"] != float64(4) || len(chains) == 0 || len(chains) > 4 {
		t.Fatalf("retrieve: %d %s", r.status, r.raw)
	}
	nodes := chains[0].(map[string]any)["nodes"].([]any)
	if n := nodes[0].(map[string]any); n["text"] == "" || n["doc"] == "" || n["modality"] == "" {
		t.Errorf("retrieve node: %v", n)
	}
	r = call(t, "POST", p.url+"/v1/ask", `{"question": "`+gustQuestion+`", "budget": 16}`)
	if cites, _ := r.body["citations"].([]any); r.status != 200 || !strings.Contains(r.body["answer"].(string), "131") || len(cites) == 0 {
		t.Errorf("ask: %d %s", r.status, r.raw)
	}
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"bad JSON", "POST", "/v1/ask", `{"question": "gust`, 400, "bad_request"},
		{"unknown field", "POST", "/v1/retrieve", `{"question": "gust", "k": 3}`, 400, "bad_request"},
		{"empty question", "POST", "/v1/ask", `{"question": ""}`, 400, "empty_question"},
		{"negative budget", "POST", "/v1/retrieve", `{"question": "gust", "budget": -1}`, 400, "bad_budget"},
		{"huge body", "POST", "/v1/ask", `{"question": "` + strings.Repeat("gust ", 20000) + `"}`, 413, "too_large"},
		{"wrong method", "GET", "/v1/ask", "", 405, "method_not_allowed"},
		{"unknown path", "GET", "/v1/nothing", "", 404, "not_found"},
	} {
		if r := call(t, c.method, p.url+c.path, c.body); r.status != c.status || errCode(r) != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, r.status, r.raw, c.status, c.code)
		}
	}

	// MCP over streamable HTTP at /mcp of the same process.
	mc := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := mc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: p.url + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkMCP(t, cs)
	cs.Close()

	// SIGTERM: a graceful shutdown and exit status 0.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-p.done
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v\n%s", err, p.log())
	}
	if log := p.log(); !strings.Contains(log, "shutting down") || !strings.Contains(log, "serve: stopped") {
		t.Errorf("stderr: %s", log)
	}
	if _, err := http.Get(p.url + "/healthz"); err == nil {
		t.Error("still serving after SIGTERM")
	}
}

// checkMCP lists the tools and calls both over a session.
func checkMCP(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "ask,retrieve" {
		t.Errorf("tools %v", names)
	}
	for _, name := range []string{"retrieve", "ask"} {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"question": gustQuestion, "budget": 4}})
		if err != nil || r.IsError {
			t.Fatalf("%s: %v %+v", name, err, r)
		}
		b, _ := json.Marshal(r.StructuredContent)
		var out struct {
			SchemaVersion int    `json:"schema_version"`
			Budget        int    `json:"budget"`
			Chains        []any  `json:"chains"`
			Answer        string `json:"answer"`
		}
		if err := json.Unmarshal(b, &out); err != nil || out.SchemaVersion != 1 || out.Budget != 4 || len(out.Chains) == 0 {
			t.Errorf("%s: %s", name, b)
		}
		if name == "ask" && !strings.Contains(out.Answer, "131") {
			t.Errorf("ask answer %q", out.Answer)
		}
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": ""}})
	if err != nil || !r.IsError {
		t.Errorf("empty question: %v %+v", err, r)
	}
}

// The real binary over stdio, with the SDK's CommandTransport.
func TestMCPStdio(t *testing.T) {
	g := buildQuickstart(t)
	cmd := exec.Command(builtBinary(t), "mcp", "-g", g)
	cmd.Env = childEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	mc := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := mc.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	checkMCP(t, cs)
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("mcp process: %v\n%s", cmd.ProcessState, stderr.String())
	}
	if !strings.Contains(stderr.String(), "mcp: serving") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

func TestServeErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "-g GRAPHFILE is required"},
		{[]string{"serve", "-g", "missing.graph"}, "does not exist"},
		{[]string{"serve", "-g", "x", "extra"}, "unexpected argument"},
		{[]string{"mcp"}, "-g GRAPHFILE is required"},
	} {
		out, err := exec.Command(builtBinary(t), c.args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v %s", c.args, err, out)
		}
	}
}

// SIGTERM during an ask lets it finish: the server stops accepting, the
// call in flight (held in its model call) completes with 200, then the
// process exits 0.
func TestServeShutdownFinishesCallsInFlight(t *testing.T) {
	g := buildQuickstart(t)
	started := make(chan struct{}, 64)
	release := make(chan struct{})
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-release
		chatReply(w, r)
	}))
	defer chat.Close()
	p := startServe(t, "-g", g, "--llm-url", chat.URL, "--llm-model", "slow-vlm")
	type reply struct {
		status int
		body   string
		err    error
	}
	done := make(chan reply, 1)
	go func() {
		resp, err := http.Post(p.url+"/v1/ask", "application/json", strings.NewReader(`{"question": "`+gustQuestion+`", "budget": 2}`))
		if err != nil {
			done <- reply{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- reply{status: resp.StatusCode, body: string(b)}
	}()
	<-started // the ask is in its first model call
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(p.log(), "shutting down") {
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := http.Get(p.url + "/healthz"); err == nil {
		t.Error("a new connection was accepted during shutdown")
	}
	close(release)
	r := <-done
	if r.err != nil || r.status != 200 || !strings.Contains(r.body, `"answer":"131 km/h, during Storm Elda."`) {
		t.Fatalf("the call in flight: %v %d %s", r.err, r.status, r.body)
	}
	<-p.done
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, p.log())
	}
}
