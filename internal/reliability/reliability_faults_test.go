package reliability

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/faultserver"
	"github.com/flowreader/flowreader/internal/israce"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/reader"
)

// buildRates mixes every fault class. NotJSON is not temporary (a 200 with a
// broken body is not retried), so it ends a build with a clear error and the
// next run resumes; the other classes are absorbed by llm.Retry unless one
// request draws MaxAttempts of them.
var buildRates = faultserver.Rates{
	RateLimited: 0.05, Internal: 0.04, Unavailable: 0.04, Reset: 0.04, Truncated: 0.04, NotJSON: 0.02, Stall: 0.01,
}

// perAttempt is the per-attempt deadline (http.Client.Timeout): a stall
// becomes llm.ErrUnavailable after it and is retried.
const perAttempt = 1500 * time.Millisecond

// clearBuildError reports whether err is one of the errors a build under
// model faults may end with: wrapped by the facade and matching one of the
// llm package's sentinels or its *APIError.
func clearBuildError(err error) bool {
	var api *llm.APIError
	return strings.HasPrefix(err.Error(), "flowreader: build: ") &&
		(errors.Is(err, llm.ErrInvalidOutput) || errors.Is(err, llm.ErrUnavailable) ||
			errors.Is(err, llm.ErrRateLimited) || errors.As(err, &api))
}

// A full Build (model analysis, embeddings, three evolution rounds) against
// a server injecting every fault class either completes or fails with a
// clear error; the next run resumes from the on-disk cache, and the server
// never sees a request for anything the client already received. The
// finished graph is byte-identical to a fault-free build: no data is lost
// or corrupted.
func TestReliabilityBuildResumesUnderFaults(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx := ctxTimeout(t, 5*time.Minute)

	clean := serve(t, faultserver.Config{Chat: respond, RetryAfter: 20 * time.Millisecond})
	cst := newStack(t, clean, "", 0)
	ref, err := cst.pipeline(t, nil).Build(ctx, corpus())
	if err != nil {
		t.Fatal(err)
	}
	want := encode(t, ref)
	refCalls := len(clean.Log())
	cst.hc.CloseIdleConnections()
	clean.Close()

	seeds := []uint64{1, 2, 3}
	switch {
	case testing.Short():
		seeds = seeds[:1]
	case israce.Enabled:
		seeds = seeds[:2]
	}
	total := map[faultserver.Fault]int{}
	var runs, failedRuns int
	prog := &progressCheck{t: t}
	endedBy := map[string]int{}
	for _, seed := range seeds {
		s := serve(t, faultserver.Config{
			Seed: seed, Rates: buildRates, MaxFaultsPerKey: 3, Chat: respond, RetryAfter: 20 * time.Millisecond,
		})
		dir := t.TempDir()
		var g *graph.Graph
		var errs []string
		for run := 1; run <= 25 && g == nil; run++ {
			st := newStack(t, s, "", perAttempt)
			cfg := flowreader.Config{}
			cfg.Model, cfg.Embedder, cfg.Cache, cfg.Concurrency = st.model, st.emb, llm.DirStore(dir), 4
			cfg.Progress = prog.report
			p, err := flowreader.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			g, err = p.Build(ctx, corpus())
			st.hc.CloseIdleConnections()
			runs++
			if err != nil {
				failedRuns++
				if !clearBuildError(err) {
					t.Fatalf("seed %d run %d: unclear error %v", seed, run, err)
				}
				errs = append(errs, err.Error())
				switch {
				case strings.Contains(err.Error(), "after 4 attempts"):
					endedBy["retries exhausted"]++
				case errors.Is(err, llm.ErrInvalidOutput):
					endedBy["invalid output (not retried)"]++
				default:
					endedBy[err.Error()]++
				}
			}
		}
		if g == nil {
			t.Fatalf("seed %d: no complete build in 25 runs: %v", seed, errs)
		}
		if got := encode(t, g); !bytes.Equal(got, want) {
			t.Fatalf("seed %d: graph after %d failed runs differs from the fault-free build", seed, len(errs))
		}
		if r := s.Repeats(); len(r) != 0 {
			lg := s.Log()
			for _, x := range r {
				t.Logf("repeat %s: first %+v again %+v", x.Item[:8], lg[x.First], lg[x.Again])
			}
			t.Fatalf("seed %d: %d requests for items already received, first %+v", seed, len(r), r[0])
		}
		// A re-build of the finished collection is answered from the cache.
		before := len(s.Log())
		st := newStack(t, s, "", perAttempt)
		if _, err := st.pipeline(t, llm.DirStore(dir)).Build(ctx, corpus()); err != nil {
			t.Fatal(err)
		}
		st.hc.CloseIdleConnections()
		if n := len(s.Log()) - before; n != 0 {
			t.Fatalf("seed %d: a cached re-build made %d requests", seed, n)
		}
		counts := s.Counts()
		abandoned := 0
		for _, e := range s.Log() {
			if e.Served && !e.Consumed {
				abandoned++
			}
		}
		t.Logf("seed %d: %d runs (%d ended with a clear error), %d requests (fault-free build: %d), served-but-abandoned %d, faults %v",
			seed, len(errs)+1, len(errs), len(s.Log()), refCalls, abandoned, counts)
		for _, e := range errs {
			t.Logf("  clean error: %.160s", e)
		}
		for f, n := range counts {
			total[f] += n
		}
		s.Close()
	}
	writeFaultTable(t, "build", total, fmt.Sprintf("%d builds, %d ended with a clear error and were resumed (%v); final graphs byte-identical to the fault-free build; 0 repeated calls for received answers", runs, failedRuns, endedBy))
}

// writeFaultTable logs the fault table and, when RELIABILITY_REPORT names a
// folder, writes it there for the report.
func writeFaultTable(t *testing.T, name string, counts map[faultserver.Fault]int, outcome string) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", name, outcome)
	for _, f := range faultClasses {
		fmt.Fprintf(&b, "  %-10s %5d\n", f, counts[f])
	}
	fmt.Fprintf(&b, "  %-10s %5d\n", faultserver.OK, counts[faultserver.OK])
	t.Log("\n" + b.String())
	if dir := os.Getenv("RELIABILITY_REPORT"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, name+"-faults.txt"), []byte(b.String()), 0o644)
	}
}

// askRates are harsher than buildRates so that some workers fail for good
// (NotJSON is not retried) and their chains are dropped.
var askRates = faultserver.Rates{
	RateLimited: 0.05, Internal: 0.05, Unavailable: 0.05, Reset: 0.05, Truncated: 0.05, NotJSON: 0.12, Stall: 0.01,
}

// A full Ask with the VLM reader against a faulty server completes with the
// surviving chains or fails with a clear error; the trace accounts for
// every dropped chain (and matches the server's log of failed worker
// calls); no goroutine outlives the call.
func TestReliabilityAskUnderFaults(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx := ctxTimeout(t, 5*time.Minute)
	clean := serve(t, faultserver.Config{Chat: respond})
	cst := newStack(t, clean, "", 0)
	// The classic preset reads about ten chains of this small collection
	// (aspects reads one or two), which gives dropped chains room to show.
	g, err := cst.pipelineWith(t, flowreader.Classic(), nil).Build(ctx, corpus())
	if err != nil {
		t.Fatal(err)
	}
	cst.hc.CloseIdleConnections()
	clean.Close()

	seeds := 16
	if testing.Short() {
		seeds = 6
	}
	total := map[faultserver.Fault]int{}
	outcomes := map[string]int{}
	droppedTotal, chainsTotal := 0, 0
	for seed := 1; seed <= seeds; seed++ {
		// Even seeds run System 2 (classic's default), odd seeds System 1
		// only, where the server's log can be matched chain by chain.
		cfg := flowreader.Classic()
		system2 := seed%2 == 0
		if !system2 {
			cfg.System2 = false
		}
		s := serve(t, faultserver.Config{Seed: uint64(seed), Rates: askRates, Chat: respond, Label: label, RetryAfter: 20 * time.Millisecond})
		st := newStack(t, s, "", perAttempt)
		p := st.pipelineWith(t, cfg, nil)
		snapshot := goleak.IgnoreCurrent()
		res, err := askOn(ctx, p, g, question)
		st.hc.CloseIdleConnections()
		if lerr := goleak.Find(snapshot); lerr != nil {
			t.Fatalf("seed %d: goroutines outlive Ask: %v", seed, lerr)
		}
		log := s.Log()
		s.Close()
		for _, e := range log {
			total[e.Fault]++
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "flowreader: ") ||
				!(errors.Is(err, reader.ErrAllWorkersFailed) || errors.Is(err, reader.ErrReasoner) ||
					errors.Is(err, llm.ErrInvalidOutput) || errors.Is(err, llm.ErrUnavailable) ||
					errors.Is(err, llm.ErrRateLimited) || errors.As(err, new(*llm.APIError))) {
				t.Fatalf("seed %d: unclear error %v", seed, err)
			}
			outcomes["clean error"]++
			t.Logf("seed %d: clean error: %.200v", seed, err)
			continue
		}
		outcomes["completed"]++
		tr := res.Trace
		if res.Text == "" {
			t.Fatalf("seed %d: empty answer", seed)
		}
		// Every failed draft is a dropped chain of its reading, with the
		// reason; the kept answer is System 1's unless a System-2 pass found
		// support, and then System 1's is kept beside it.
		s1 := res.Answer
		if res.System2 != nil && res.System2.System1 != nil {
			s1 = res.System2.System1
		}
		for _, a := range []*reader.Answer{res.Answer, s1} {
			failed := 0
			for _, d := range a.Drafts {
				if d.Status == reader.StatusFailed {
					failed++
					if d.Err == "" {
						t.Fatalf("seed %d: failed draft %d without a reason", seed, d.Chain)
					}
				}
			}
			if len(a.Drafts) != a.Trace.ChainsRead || failed != a.Trace.Dropped {
				t.Fatalf("seed %d: read %d chains, %d drafts, %d failed, %d dropped", seed, a.Trace.ChainsRead, len(a.Drafts), failed, a.Trace.Dropped)
			}
		}
		if s1.Trace.ChainsRead != len(res.Evidence.Chains) {
			t.Fatalf("seed %d: System 1 read %d chains of %d selected", seed, s1.Trace.ChainsRead, len(res.Evidence.Chains))
		}
		dropped := map[int]int{1: s1.Trace.Dropped}
		s2read := 0
		if res.System2 != nil && res.System2.Ran {
			s2read = len(res.System2.Chains)
			if res.System2.System1 != nil {
				dropped[2] = tr.Dropped
			}
		}
		if !system2 {
			// The server agrees: the worker prompts that never got an answer
			// through to the client are exactly the dropped chains.
			keys, ok := map[string]bool{}, map[string]bool{}
			for _, e := range log {
				if e.Label == "worker" {
					keys[e.Key] = true
					if e.Consumed {
						ok[e.Key] = true
					}
				}
			}
			if len(keys) != s1.Trace.ChainsRead || len(keys)-len(ok) != dropped[1] {
				t.Fatalf("seed %d: server saw %d worker prompts, %d answered; trace read %d chains, dropped %d",
					seed, len(keys), len(ok), s1.Trace.ChainsRead, dropped[1])
			}
		}
		droppedTotal += dropped[1] + dropped[2]
		chainsTotal += s1.Trace.ChainsRead + s2read
		t.Logf("seed %d: completed, %d+%d chains read, dropped %v, system 2 ran %v, answer %q",
			seed, s1.Trace.ChainsRead, s2read, dropped, s2read > 0, res.Text)
	}
	writeFaultTable(t, "ask", total, fmt.Sprintf("%d asks: %d completed (%d chains read, %d dropped, every one in the trace), %d clean errors",
		seeds, outcomes["completed"], chainsTotal, droppedTotal, outcomes["clean error"]))
	if outcomes["completed"] == 0 || droppedTotal == 0 {
		t.Fatal("the rates leave nothing to check: no Ask completed or no chain was dropped")
	}
}

// label names the reader's prompt families in the server log.
func label(r *faultserver.ChatRequest) string {
	p := r.Prompt()
	switch {
	case strings.Contains(p, workerMarker):
		return "worker"
	case strings.Contains(p, "EVIDENCE PATHS"):
		return "reasoner"
	case r.Schema != "":
		return r.Schema
	}
	return ""
}

// A server that asks for a longer pause than llm.Middleware.MaxRetryAfter
// allows ends the build at once with a clear rate-limit error: the client
// neither sleeps through the pause nor retries early.
func TestReliabilityLongRetryAfterEndsTheBuild(t *testing.T) {
	ctx := ctxTimeout(t, time.Minute)
	s := serve(t, faultserver.Config{Rates: faultserver.Rates{RateLimited: 1}, RetryAfter: 10 * time.Minute, Chat: respond})
	st := newStack(t, s, "", perAttempt)
	_, err := st.pipeline(t, llm.DirStore(t.TempDir())).Build(ctx, corpus())
	var api *llm.APIError
	if !errors.Is(err, llm.ErrRateLimited) || !errors.As(err, &api) || api.RetryAfter != 10*time.Minute {
		t.Fatalf("error %v", err)
	}
	for _, e := range s.Log() {
		if e.Attempt != 1 {
			t.Fatalf("request %d retried (attempt %d) despite a 10-minute Retry-After", e.Seq, e.Attempt)
		}
	}
}

// progressCheck fails the test when Progress is called concurrently or a
// stage's count goes backwards or past its total.
type progressCheck struct {
	t      *testing.T
	inside atomic.Bool
	mu     sync.Mutex
	last   map[string]int
	calls  int
}

func (p *progressCheck) report(done, total int, stage string) {
	if !p.inside.CompareAndSwap(false, true) {
		p.t.Errorf("Progress called concurrently (stage %s)", stage)
		return
	}
	defer p.inside.Store(false)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		p.last = map[string]int{}
	}
	if done == 0 {
		p.last[stage] = 0 // a new run starts the stage again
	}
	if done < p.last[stage] || done > total {
		p.t.Errorf("stage %s: progress %d/%d after %d", stage, done, total, p.last[stage])
	}
	p.last[stage] = done
	p.calls++
}
