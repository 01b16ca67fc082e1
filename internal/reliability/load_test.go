package reliability

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/faultserver"
	"github.com/flowreader/flowreader/internal/israce"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// pureModel is the scripted model as a stateless function: it keeps no call
// log, so the heap measures the library, not the fake.
func pureModel() llm.Model {
	return llmfunc.Model(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		var msgs []faultserver.Message
		for _, m := range req.Messages {
			text := ""
			for _, p := range m.Parts {
				if p.Image == nil {
					if text != "" {
						text += "\n"
					}
					text += p.Text
				}
			}
			msgs = append(msgs, faultserver.Message{Role: m.Role, Text: text})
		}
		return &llm.Response{Text: respond(&faultserver.ChatRequest{Schema: req.SchemaName, Messages: msgs})}, nil
	})
}

var loadQuestions = []string{
	question,
	"Which winds were noted at the harbour station?",
	"How many falcons were in the marsh counts table?",
	"What did observers log at the ridge station during week 3?",
	"what is the of and",
	"Compare the herons at the marsh with the terns at the harbour.",
	"visibility kilometres",
	"How many kestrels were counted in total across all reports?",
}

// digest is everything of an answer that must not depend on concurrency:
// text, citations, drafts, chains and the trace without wall times.
func digest(t testing.TB, res *flowreader.Result) string {
	t.Helper()
	tr := res.Trace
	tr.Stages, tr.Total = nil, 0
	var chains [][]int
	for _, c := range res.Evidence.Chains {
		var nodes []int
		for _, n := range c.Nodes {
			nodes = append(nodes, n.Node)
		}
		chains = append(chains, nodes)
	}
	b, err := json.Marshal(struct {
		Text      string
		Citations any
		Drafts    any
		Chains    [][]int
		Trace     any
	}{res.Text, res.Citations, res.Drafts, chains, tr})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func heapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// 64 goroutines ask concurrently on one loaded graph: no race (run under
// -race), every answer identical to the sequential run's, and the heap
// after a garbage collection does not grow with the number of questions
// answered.
func TestLoadConcurrentAsk(t *testing.T) {
	const goroutines = 64
	iterations := 4
	switch {
	case testing.Short():
		iterations = 2
	case israce.Enabled:
		iterations = 3
	}
	ctx := ctxTimeout(t, 5*time.Minute)
	for _, c := range []struct {
		name   string
		preset flowreader.Config
	}{{"classic", flowreader.Classic()}, {"aspects", flowreader.Config{}}} {
		preset := c.preset
		t.Run(c.name, func(t *testing.T) {
			cfg := preset
			cfg.Model = pureModel()
			cfg.Embedder = &fake.Embedder{Dim: 64}
			p, err := flowreader.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			built, err := p.Build(ctx, corpus())
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "g.flwg")
			if err := graph.Save(path, built); err != nil {
				t.Fatal(err)
			}
			g, err := graph.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]string, len(loadQuestions))
			for i, q := range loadQuestions {
				res, err := askOn(ctx, p, g, q)
				if err != nil {
					t.Fatalf("sequential %q: %v", q, err)
				}
				want[i] = digest(t, res)
			}
			distinct := map[string]bool{}
			for _, d := range want {
				distinct[d] = true
			}
			if len(distinct) < len(want)/2 {
				t.Fatalf("only %d distinct answers to %d questions: the comparison would not bite", len(distinct), len(want))
			}
			before := heapAfterGC()
			var wg sync.WaitGroup
			var mu sync.Mutex
			mismatches, errs := 0, 0
			for w := 0; w < goroutines; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for it := 0; it < iterations; it++ {
						qi := (w + it) % len(loadQuestions)
						res, err := askOn(ctx, p, g, loadQuestions[qi])
						mu.Lock()
						switch {
						case err != nil:
							errs++
							t.Errorf("goroutine %d question %d: %v", w, qi, err)
						case digest(t, res) != want[qi]:
							mismatches++
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			after := heapAfterGC()
			growth := int64(after) - int64(before)
			t.Logf("%s: %d goroutines × %d iterations = %d asks; errors %d, mismatches %d; heap after GC %.1f MB → %.1f MB",
				c.name, goroutines, iterations, goroutines*iterations, errs, mismatches, float64(before)/1e6, float64(after)/1e6)
			if mismatches > 0 {
				t.Fatalf("%d answers differ from the sequential run", mismatches)
			}
			// Loose bound: the answers are garbage once compared; what stays
			// is the graph and the pipeline.
			if limit := int64(16<<20) + int64(before)/2; growth > limit {
				t.Fatalf("heap grew by %d bytes over %d asks (limit %d)", growth, goroutines*iterations, limit)
			}
		})
	}
}
