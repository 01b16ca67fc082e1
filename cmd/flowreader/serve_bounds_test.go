//go:build unix

package main

import (
	"context"
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
)

// post sends a JSON body with the given headers and returns the status and
// body; a transport error fails the test.
func post(t *testing.T, url, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
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
	return resp.StatusCode, string(b)
}

// waitLog waits (a minute at most) for a stderr line matching re and
// returns its submatches.
func waitLog(t *testing.T, p *serveProcess, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(p.log()); m != nil {
			return m
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no line matching %s in a minute:\n%s", re, p.log())
	return nil
}

// One call cannot buy unbounded work: a budget above --max-budget is a 400
// at once, and a call of a large (allowed) budget stops computing soon
// after its timeout or its client's departure, instead of routing and
// selecting to the end. "Soon" is judged by work, not by the clock: the
// server's CPU time over the cut call must stay under half of what the same
// call costs when it runs to the end (measured in this run, on the same
// graph), so a loaded machine slows both sides alike.
func TestServeBoundsOneCall(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g10k.frg")
	cmd := exec.Command(builtBinary(t), "bench", "scale", "--nodes", "10000", "--dim", "100", "--out", g)
	cmd.Env, cmd.Dir = childEnv(), dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bench scale: %v\n%s", err, out)
	}
	const warm = `{"question": "calm bay", "budget": 2}`

	// The whole call, on a server without a practical timeout: the
	// reference work.
	ref := startServe(t, "-g", g, "--max-budget", "100000", "--call-timeout", "10m", "--log-level", "info")
	post(t, ref.url+"/v1/retrieve", warm, nil)
	before, cpuOK := ref.cpu()
	if status, body := post(t, ref.url+"/v1/retrieve", `{"question": "storm gust", "budget": 10000}`, nil); status != 200 {
		t.Fatalf("budget 10000 without a timeout: %d %.300s", status, body)
	}
	after, _ := ref.cpu()
	full := after - before
	t.Logf("the whole call: %s of CPU", full)
	// cutCPU runs call and the server's log wait, then a small call (so
	// that work still running would be counted), and returns the CPU time
	// the server spent over all of it.
	cutCPU := func(p *serveProcess, call func(), logged *regexp.Regexp) (time.Duration, string) {
		t.Helper()
		before, _ := p.cpu()
		call()
		m := waitLog(t, p, logged)
		post(t, p.url+"/v1/retrieve", warm, nil)
		after, _ := p.cpu()
		return after - before, m[1]
	}

	// The client leaves after 300 ms.
	cut, d := cutCPU(ref, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", ref.url+"/v1/retrieve", strings.NewReader(`{"question": "harbour flood", "budget": 9999}`))
		req.Header.Set("Content-Type", "application/json")
		if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("the departing client got %v", err)
		}
	}, regexp.MustCompile(`server: call" endpoint=retrieve status=503 budget=9999 queued=\S+ duration=(\S+) code=canceled`))
	t.Logf("the call whose client left: %s of CPU, duration %s", cut, d)
	if cpuOK && cut > full/2 {
		t.Errorf("the call whose client left cost %s of CPU (the whole call: %s)", cut, full)
	}

	// Past --call-timeout: 504.
	p := startServe(t, "-g", g, "--max-budget", "100000", "--call-timeout", "100ms", "--log-level", "info")
	if status, body := post(t, p.url+"/v1/retrieve", `{"question": "storm gust", "budget": 99999999}`, nil); status != 400 || !strings.Contains(body, "bad_budget") {
		t.Errorf("budget above --max-budget: %d %s", status, body)
	}
	post(t, p.url+"/v1/retrieve", warm, nil)
	cut, d = cutCPU(p, func() {
		if status, body := post(t, p.url+"/v1/retrieve", `{"question": "storm gust", "budget": 10000}`, nil); status != 504 {
			t.Errorf("budget 10000 past a 100 ms timeout: %d %.300s", status, body)
		}
	}, regexp.MustCompile(`server: call" endpoint=retrieve status=504 budget=10000 queued=\S+ duration=(\S+)`))
	t.Logf("the timed-out call: %s of CPU, duration %s", cut, d)
	if cpuOK && cut > full/2 {
		t.Errorf("the timed-out call cost %s of CPU (the whole call: %s)", cut, full)
	}
	for _, p := range []*serveProcess{ref, p} {
		if log := p.log(); strings.Contains(log, "storm gust") || strings.Contains(log, "harbour flood") {
			t.Errorf("the question reached the log:\n%s", log)
		}
	}
}

// The exposure options of the real binary: application/json required, the
// Host checked, bearer tokens from a file and from the environment, a
// warning when listening beyond loopback without tokens.
func TestServeExposure(t *testing.T) {
	g := buildQuickstart(t)
	body := `{"question": "` + gustQuestion + `", "budget": 2}`
	p := startServe(t, "-g", g)
	if status, b := post(t, p.url+"/v1/retrieve", body, map[string]string{"Content-Type": ""}); status != 415 {
		t.Errorf("no Content-Type: %d %s", status, b)
	}
	if status, b := post(t, p.url+"/v1/retrieve", body, map[string]string{"Content-Type": "text/plain"}); status != 415 {
		t.Errorf("text/plain: %d %s", status, b)
	}
	port := p.url[strings.LastIndex(p.url, ":"):]
	if status, b := post(t, p.url+"/v1/retrieve", body, map[string]string{"Host": "rebind.example" + port}); status != 403 {
		t.Errorf("a DNS-rebinding Host: %d %s", status, b)
	}
	if status, b := post(t, p.url+"/v1/retrieve", body, map[string]string{"Host": "localhost" + port}); status != 200 {
		t.Errorf("Host localhost: %d %s", status, b)
	}
	if status, b := post(t, p.url+"/v1/retrieve", `{"question": "gust", "budget": 99999999}`, nil); status != 400 {
		t.Errorf("a budget of 99999999: %d %s", status, b)
	}
	if strings.Contains(p.log(), "beyond loopback") {
		t.Errorf("a loopback server warned:\n%s", p.log())
	}

	tokens := filepath.Join(t.TempDir(), "tokens")
	os.WriteFile(tokens, []byte("# clients\nfile-token-0123456789abcdef\n"), 0o600)
	serveEnv = []string{envServeTokens + "=env-token-abcdef0123456789"}
	p = startServe(t, "-g", g, "--token-file", tokens, "--allow-host", "flowreader.test")
	serveEnv = nil
	for _, c := range []struct {
		hdr    map[string]string
		status int
	}{
		{nil, 401},
		{map[string]string{"Authorization": "Bearer file-token-0123456789abcde"}, 401},
		{map[string]string{"Authorization": "Bearer file-token-0123456789abcdef"}, 200},
		{map[string]string{"Authorization": "Bearer env-token-abcdef0123456789", "Host": "flowreader.test"}, 200},
	} {
		if status, b := post(t, p.url+"/v1/retrieve", body, c.hdr); status != c.status {
			t.Errorf("%v: %d %s", c.hdr, status, b)
		}
	}
	if resp, err := http.Get(p.url + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("healthz without a token: %v %v", err, resp)
	}

	// Beyond loopback (all interfaces; nothing is sent there).
	p = startServe(t, "-g", g, "--addr", "0.0.0.0:0")
	if !strings.Contains(p.log(), "beyond loopback, without tokens") {
		t.Errorf("no warning for a server on every interface:\n%s", p.log())
	}
}

// 64 clients at once on the default limits all get answers: calls beyond
// the CPUs wait in the queue instead of 503.
func TestServe64Clients(t *testing.T) {
	g := buildQuickstart(t)
	p := startServe(t, "-g", g)
	body := `{"question": "` + gustQuestion + `", "budget": 4}`
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 8 {
				resp, err := http.Post(p.url+"/v1/retrieve", "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				codes[resp.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if codes[200] != 64*8 {
		t.Errorf("statuses of 512 calls from 64 clients: %v", codes)
	}
}

// SIGTERM with a call that outlasts the grace period: the call is cut, the
// process exits 0, and says so.
func TestServeShutdownCutsCallsPastTheGrace(t *testing.T) {
	g := buildQuickstart(t)
	started := make(chan struct{}, 64)
	never := make(chan struct{})
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that a closed connection ends r.Context()
		started <- struct{}{}
		select {
		case <-never:
		case <-r.Context().Done():
		}
	}))
	defer chat.Close()
	defer close(never)
	p := startServe(t, "-g", g, "--llm-url", chat.URL, "--llm-model", "stuck", "--shutdown-grace", "1s")
	go http.Post(p.url+"/v1/ask", "application/json", strings.NewReader(`{"question": "`+gustQuestion+`"}`))
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatalf("the ask never reached the model:\n%s", p.log())
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { <-p.done; exited <- p.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, p.log())
		}
	case <-time.After(time.Minute):
		t.Fatalf("serve still running a minute after SIGTERM:\n%s", p.log())
	}
	if !strings.Contains(p.log(), "grace period over") {
		t.Errorf("stderr:\n%s", p.log())
	}
}

// serve uses the image folder the graph records, from any working folder,
// and labels its warnings as its own.
func TestServeUsesTheGraphsImageFolder(t *testing.T) {
	g := buildQuickstart(t)
	chat := httptest.NewServer(http.HandlerFunc(chatReply))
	defer chat.Close()
	cmd := exec.Command(builtBinary(t), "serve", "--addr", "127.0.0.1:0", "-g", g, "--llm-url", chat.URL, "--llm-model", "m")
	cmd.Env, cmd.Dir = childEnv(), t.TempDir()
	var stderr strings.Builder
	var mu sync.Mutex
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	listening := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := pr.Read(buf)
			mu.Lock()
			stderr.Write(buf[:n])
			if strings.Contains(stderr.String(), "listening on") {
				select {
				case <-listening:
				default:
					close(listening)
				}
			}
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(time.Minute):
		t.Fatal("serve did not start")
	}
	mu.Lock()
	defer mu.Unlock()
	if s := stderr.String(); strings.Contains(s, "images not found") || strings.Contains(s, "ask:") {
		t.Errorf("stderr:\n%s", s)
	}
}

// bench serve runs its rounds against a real serve and prints its figures.
func TestBenchServe(t *testing.T) {
	g := buildQuickstart(t)
	cmd := exec.Command(builtBinary(t), "bench", "serve", "-g", g, "--clients", "4", "--duration", "2s", "--rounds", "1", "--stop-probes", "2", "--", "--max-budget", "64")
	cmd.Env = childEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bench serve: %v\n%s", err, out)
	}
	for _, re := range []string{`plain-errors 0\n`, `attacked-errors 0\n`, `plain-p99-ms [0-9.]+\n`, `attack-statuses 400:\d+\n`, `rss-idle-bytes [1-9]\d+\n`, `stop-probes 2\n`, `stop-finished-first [0-2]\n`, `exit-status 0\n`} {
		if !regexp.MustCompile(re).Match(out) {
			t.Errorf("no %s in:\n%s", re, out)
		}
	}
}
