package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// benchQuestionsServe are the legitimate clients' questions, in turn.
var benchQuestionsServe = []string{
	"What was the peak gust of the storm?",
	"Which breakwater lost its colony after the flood?",
	"How many nests were counted in June?",
	"When did the surge reach the harbour?",
	"What does the survey count every year?",
	"Which station recorded the highest rainfall?",
}

// runBenchServe starts `flowreader serve` on a free loopback port and runs
// closed-loop clients against it, in rounds that alternate plain load and
// load under attack, so that the two are measured side by side.
func runBenchServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	graphFile := fs.String("g", "", "graph file to serve (required)")
	clients := fs.Int("clients", 64, "legitimate clients, each sending one call after another")
	duration := fs.Duration("duration", 60*time.Second, "time under attack in all (and as long again without)")
	rounds := fs.Int("rounds", 2, "rounds of each condition, alternated: plain, attacked, plain, attacked, ...")
	budget := fs.Int("budget", 16, "the legitimate calls' budget")
	attackers := fs.Int("attackers", 2, "clients that send one heavy call after another during the attacked rounds")
	attackBudget := fs.Int("attack-budget", 99999999, "the attackers' budget (the server refuses one above its --max-budget; set it to that limit for the heaviest call it accepts)")
	slow := fs.Int("slow-readers", 2, "clients that ask for a large answer and never read it, during the attacked rounds")
	probes := fs.Int("stop-probes", 0, "after the rounds, this many heavy calls ({\"budget\": --attack-budget}) each left by its client after a delay; prints how long the server computed after that (see below)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: flowreader bench serve -g GRAPHFILE [flags] [-- SERVE FLAGS]

Starts flowreader serve on the graph (with the serve flags after --), waits
until it answers, then runs --clients closed-loop clients alternating
POST /v1/retrieve and POST /v1/ask, in rounds: plain load, then the same
load while --attackers send {"budget": --attack-budget} one after another
and --slow-readers hold large answers unread, --rounds times. Then SIGTERM,
and the server's exit status. One figure a line:
  plain-calls, plain-errors, plain-p50-ms, plain-p99-ms
  attacked-calls, attacked-errors, attacked-p50-ms, attacked-p99-ms
  p99-ratio                     attacked p99 / plain p99
  attack-calls, attack-statuses the attackers' calls and their statuses
  slow-reader-connections       connections the slow readers opened
  rss-idle-bytes, rss-peak-bytes, rss-end-bytes   the server's resident memory
  stop-probes, stop-finished-first, stop-ms-p50, stop-ms-max
                                with --stop-probes N: N calls, alone on the
                                server, whose client leaves after 50 ms to 2 s;
                                stop-ms is the time from the client leaving to
                                the server's in-flight gauge (/metrics) back
                                at 0, that is to the call no longer computing
                                (a call past its --call-timeout ends through
                                the same context); calls that finished before
                                their client left are counted apart
  exit-status                   the server's exit status after SIGTERM
An error is any legitimate call not answered 200.

flags:`)
		fs.PrintDefaults()
	}
	var serveArgs []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, serveArgs = args[:i], args[i+1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	switch {
	case *graphFile == "":
		return fmt.Errorf("-g GRAPHFILE is required: %w", errUsage)
	case *clients < 1 || *rounds < 1 || *duration <= 0 || *attackers < 0 || *slow < 0 || *probes < 0:
		return fmt.Errorf("--clients and --rounds must be positive, --duration too, --attackers, --slow-readers and --stop-probes not negative: %w", errUsage)
	}
	srv, err := startBenchServer(*graphFile, serveArgs, stderr)
	if err != nil {
		return err
	}
	defer srv.kill()
	fmt.Fprintf(stdout, "server %s\n", srv.url)
	time.Sleep(2 * time.Second) // let the loaded graph settle before the idle figure
	idle := srv.rss()
	fmt.Fprintf(stdout, "rss-idle-bytes %d\n", idle)

	peak := idle
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-t.C:
				if r := srv.rss(); r > peak {
					peak = r
				}
			}
		}
	}()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *clients + *attackers + 4}, Timeout: 5 * time.Minute}
	var plain, attacked loadStats
	var attackStatus statusCount
	var slowConns atomic.Int64
	round := *duration / time.Duration(*rounds)
	for r := 0; r < 2**rounds; r++ {
		if ctx.Err() != nil {
			break
		}
		under := r%2 == 1
		st := &plain
		if under {
			st = &attacked
		}
		rctx, cancel := context.WithTimeout(ctx, round)
		var wg sync.WaitGroup
		for c := range *clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; rctx.Err() == nil; i++ {
					path := "/v1/retrieve"
					if (c+i)%2 == 1 {
						path = "/v1/ask"
					}
					q := benchQuestionsServe[(c+i)%len(benchQuestionsServe)]
					t0 := time.Now()
					status := benchPost(context.Background(), client, srv.url+path, fmt.Sprintf(`{"question": %q, "budget": %d}`, q, *budget))
					st.add(status, time.Since(t0))
				}
			}()
		}
		if under {
			for range *attackers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for rctx.Err() == nil {
						status := benchPost(rctx, client, srv.url+"/v1/retrieve", fmt.Sprintf(`{"question": "storm", "budget": %d}`, *attackBudget))
						if rctx.Err() == nil { // not cut by the round's end
							attackStatus.add(status)
						}
					}
				}()
			}
			for range *slow {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for rctx.Err() == nil {
						slowConns.Add(1)
						slowRead(rctx, srv.addr)
					}
				}()
			}
		}
		wg.Wait()
		cancel()
	}
	close(stopSampling)
	<-sampled
	end := srv.rss()
	for _, c := range []struct {
		name string
		st   *loadStats
	}{{"plain", &plain}, {"attacked", &attacked}} {
		p50, p99 := c.st.quantiles()
		fmt.Fprintf(stdout, "%s-calls %d\n%s-errors %d\n%s-p50-ms %.1f\n%s-p99-ms %.1f\n", c.name, c.st.n(), c.name, c.st.errors(), c.name, p50, c.name, p99)
		if e := c.st.errorStatuses(); e != "" {
			fmt.Fprintf(stdout, "%s-error-statuses %s\n", c.name, e)
		}
	}
	_, p99p := plain.quantiles()
	_, p99a := attacked.quantiles()
	if p99p > 0 {
		fmt.Fprintf(stdout, "p99-ratio %.2f\n", p99a/p99p)
	}
	fmt.Fprintf(stdout, "attack-calls %d\nattack-statuses %s\nslow-reader-connections %d\n", attackStatus.total(), attackStatus.String(), slowConns.Load())
	fmt.Fprintf(stdout, "rss-peak-bytes %d\nrss-end-bytes %d\n", peak, end)
	if *probes > 0 {
		if err := stopProbes(ctx, client, srv.url, *probes, *attackBudget, stdout); err != nil {
			return err
		}
	}
	code := srv.stop()
	fmt.Fprintf(stdout, "exit-status %d\n", code)
	return nil
}

// stopProbes sends n heavy calls one at a time, each left by its client
// after a delay from 50 ms to 2 s, and prints how long the server went on
// computing: from the client leaving until /metrics reports no call in
// flight (the call's slot is released when its computation returns).
func stopProbes(ctx context.Context, client *http.Client, url string, n, budget int, stdout io.Writer) error {
	delays := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}
	var stops []time.Duration
	finished := 0
	for i := range n {
		if err := waitInFlight(ctx, client, url, time.Minute); err != nil {
			return fmt.Errorf("stop probe: before call %d: %w", i+1, err)
		}
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan int, 1)
		go func() {
			done <- benchPost(cctx, client, url+"/v1/retrieve", fmt.Sprintf(`{"question": %q, "budget": %d}`, benchQuestionsServe[i%len(benchQuestionsServe)], budget))
		}()
		select {
		case <-done: // answered before its client left: not a probe of stopping
			cancel()
			finished++
			continue
		case <-time.After(delays[i%len(delays)]):
		}
		cut := time.Now()
		cancel()
		<-done
		if err := waitInFlight(ctx, client, url, time.Minute); err != nil {
			return fmt.Errorf("stop probe: call %d: %w", i+1, err)
		}
		stops = append(stops, time.Since(cut))
	}
	fmt.Fprintf(stdout, "stop-probes %d\nstop-finished-first %d\n", n, finished)
	if len(stops) > 0 {
		slices.Sort(stops)
		fmt.Fprintf(stdout, "stop-ms-p50 %.1f\nstop-ms-max %.1f\n", ms(stops[len(stops)/2]), ms(stops[len(stops)-1]))
	}
	return nil
}

// waitInFlight polls the server's /metrics every millisecond until no
// retrieve or ask call is in flight, for at most limit.
func waitInFlight(ctx context.Context, client *http.Client, url string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		req, err := http.NewRequestWithContext(ctx, "GET", url+"/metrics", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET /metrics: %s", resp.Status)
		}
		if bytes.Contains(b, []byte("\nflowreader_server_calls_in_flight 0\n")) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("a call still in flight after %s", limit)
		}
		time.Sleep(time.Millisecond)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// benchPost sends one call and returns its status (-1 for a transport
// error), reading the whole answer.
func benchPost(ctx context.Context, c *http.Client, url, body string) int {
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		return -1
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return -1
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// slowRead asks for a large answer (every node's score and the largest
// evidence) on a connection with a small receive buffer, reads one byte of
// it and then nothing, until the server gives up on it or ctx ends.
func slowRead(ctx context.Context, addr string) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		time.Sleep(100 * time.Millisecond)
		return
	}
	defer c.Close()
	c.(*net.TCPConn).SetReadBuffer(4096)
	body := `{"question": "storm surge harbour", "budget": 256, "scores": true}`
	fmt.Fprintf(c, "POST /v1/retrieve HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	var b [1]byte
	c.SetReadDeadline(time.Now().Add(5 * time.Minute))
	if _, err := c.Read(b[:]); err != nil {
		return
	}
	// Hold the connection until the server closes it or ctx ends,
	// looking once a second.
	for ctx.Err() == nil && !tcpClosed(c) {
		time.Sleep(time.Second)
	}
}

// tcpClosed reports whether the peer closed c, by reading with a deadline
// already past: EOF or a reset means closed, a timeout means open. A byte
// read (the answer's) counts as open; that byte is lost, which a client
// that reads nothing does not mind.
func tcpClosed(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(-time.Second))
	var b [1]byte
	_, err := c.Read(b[:])
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// loadStats collects the latencies and statuses of legitimate calls.
type loadStats struct {
	mu     sync.Mutex
	lat    []time.Duration
	status statusCount
}

func (s *loadStats) add(status int, d time.Duration) {
	s.mu.Lock()
	s.lat = append(s.lat, d)
	s.mu.Unlock()
	s.status.add(status)
}

func (s *loadStats) n() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.lat) }

func (s *loadStats) errors() int { return s.status.total() - s.status.of(200) }

func (s *loadStats) errorStatuses() string {
	s.status.mu.Lock()
	defer s.status.mu.Unlock()
	var parts []string
	for _, k := range sortedStatuses(s.status.m) {
		if k != 200 {
			parts = append(parts, fmt.Sprintf("%d:%d", k, s.status.m[k]))
		}
	}
	return strings.Join(parts, ",")
}

// quantiles are the p50 and p99 latencies in milliseconds (nearest rank).
func (s *loadStats) quantiles() (p50, p99 float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lat) == 0 {
		return 0, 0
	}
	l := slices.Clone(s.lat)
	slices.Sort(l)
	q := func(p float64) float64 {
		i := int(p*float64(len(l))+0.999999) - 1
		return ms(l[max(0, min(i, len(l)-1))])
	}
	return q(0.50), q(0.99)
}

type statusCount struct {
	mu sync.Mutex
	m  map[int]int
}

func (s *statusCount) add(status int) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[int]int{}
	}
	s.m[status]++
	s.mu.Unlock()
}

func (s *statusCount) of(status int) int { s.mu.Lock(); defer s.mu.Unlock(); return s.m[status] }

func (s *statusCount) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, v := range s.m {
		n += v
	}
	return n
}

func (s *statusCount) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	for _, k := range sortedStatuses(s.m) {
		parts = append(parts, fmt.Sprintf("%d:%d", k, s.m[k]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}

func sortedStatuses(m map[int]int) []int {
	var k []int
	for s := range m {
		k = append(k, s)
	}
	sort.Ints(k)
	return k
}

// benchServer is the serve process under test.
type benchServer struct {
	cmd       *exec.Cmd
	url, addr string
	done      chan struct{}
}

// startBenchServer starts this executable's serve command on a free
// loopback port and waits for it to answer /healthz.
func startBenchServer(graphFile string, extra []string, stderr io.Writer) (*benchServer, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, append([]string{"serve", "-g", graphFile, "--addr", "127.0.0.1:0"}, extra...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &benchServer{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	re := regexp.MustCompile(`listening on http://(\S+)`)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			fmt.Fprintln(stderr, sc.Text())
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case s.addr = <-addr:
	case <-s.done:
		cmd.Wait()
		return nil, fmt.Errorf("serve exited before listening")
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		return nil, fmt.Errorf("serve did not listen within 5 minutes")
	}
	s.url = "http://" + s.addr
	for range 600 {
		if resp, err := http.Get(s.url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.kill()
	return nil, fmt.Errorf("serve did not answer /healthz")
}

// rss is the server's resident set in bytes (VmRSS), 0 when unknown.
func (s *benchServer) rss() int64 {
	return procStatusBytes("/proc/"+strconv.Itoa(s.cmd.Process.Pid)+"/status", "VmRSS:")
}

// stop sends SIGTERM and returns the exit status (-1 when it had to be
// killed after two minutes).
func (s *benchServer) stop() int {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(2 * time.Minute):
		s.cmd.Process.Kill()
		<-s.done
		s.cmd.Wait()
		return -1
	}
	s.cmd.Wait()
	return s.cmd.ProcessState.ExitCode()
}

func (s *benchServer) kill() {
	if s.cmd.ProcessState == nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}
