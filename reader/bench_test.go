package reader

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/openai"
)

// latencyServer is an OpenAI-compatible chat server that answers after l,
// with a worker, question-type or reasoner reply depending on the prompt.
func latencyServer(l time.Duration) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		select {
		case <-time.After(l):
		case <-r.Context().Done():
			return
		}
		var text string
		switch {
		case bytes.Contains(body, []byte(mQType)):
			text = `{"type":"value","length":"short"}`
		case bytes.Contains(body, []byte(mReasoner)):
			text = "<thought>ok</thought><output>248</output>"
		case bytes.Contains(body, []byte("| North Mole | 650")):
			text = `{"status":"supported","answer":"248","evidence":"North Mole 248"}`
		default:
			text = `{"status":"not_reported","answer":"","evidence":""}`
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": len(body) / 4, "completion_tokens": len(text) / 4},
		})
	}))
}

// BenchmarkAnswerLatency reports Answer wall time over (worker latency +
// reasoner latency) with 16 chains against an httptest server injecting
// latency L: the goal is ≤ 1.15, i.e. workers and the question-type call
// overlap fully and the reader adds little of its own.
func BenchmarkAnswerLatency(b *testing.B) {
	for _, l := range []time.Duration{50 * time.Millisecond, 200 * time.Millisecond} {
		b.Run(fmt.Sprintf("L=%v", l), func(b *testing.B) {
			srv := latencyServer(l)
			defer srv.Close()
			// A pooled transport, as a deployment would use: with Go's
			// default of 2 idle connections per host, 14 of the 16
			// parallel workers would open a new connection every query.
			chat, err := openai.NewChat(openai.Config{BaseURL: srv.URL, Model: "bench", TextOnly: true, HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}})
			if err != nil {
				b.Fatal(err)
			}
			in := input(b, 16, 1)
			v := &VLM{Model: chat}
			ctx := context.Background()
			// One worker and one reasoner call, alone: the denominator.
			r := v.newRun(in)
			wreq, _ := r.workerRequest(in.Chains[0])
			r.qt = questionType{Type: "value", Length: "short"}
			r.keyNodesN = 2
			rreq := r.reasonerRequest([]Draft{{Nodes: in.Chains[0].Nodes, Status: StatusSupported, Answer: "248"}})
			single := func(req *llm.Request) time.Duration {
				best := time.Duration(1 << 62)
				for i := 0; i < 3; i++ {
					t0 := time.Now()
					if _, err := chat.Generate(ctx, req); err != nil {
						b.Fatal(err)
					}
					best = min(best, time.Since(t0))
				}
				return best
			}
			base := single(wreq) + single(rreq)
			b.ResetTimer()
			var total time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				ans, err := v.Read(ctx, in)
				if err != nil {
					b.Fatal(err)
				}
				total += time.Since(t0)
				if ans.Trace.Calls != 18 {
					b.Fatalf("%d calls", ans.Trace.Calls)
				}
			}
			b.ReportMetric(float64(total)/float64(b.N)/float64(base), "ratio")
			b.ReportMetric(float64(base)/1e6, "base-ms")
		})
	}
}

// BenchmarkExtractive16 times one extractive reading of 16 nodes, the
// default budget, over the repository's own documentation (real prose,
// lists and tables, ingested as a user's collection would be): the 16
// longest nodes, one chain each, one question of each answer kind in turn.
//
//	go test -run '^$' -bench Extractive16 -benchmem ./reader
func BenchmarkExtractive16(b *testing.B) {
	docs, err := ingest.Path(filepath.Join("..", "docs"))
	if err != nil {
		b.Skip(err)
	}
	var ns []graph.Node
	for _, d := range docs {
		for k, it := range d.Items {
			ns = append(ns, graph.Node{ID: fmt.Sprintf("%s#%d", d.ID, k), Doc: d.ID, Page: it.Page, Order: k,
				Modality: it.Modality, Section: it.Section, Content: it.Text, Caption: it.Caption})
		}
	}
	sort.SliceStable(ns, func(i, j int) bool { return len(ns[i].Content) > len(ns[j].Content) })
	ns = ns[:min(16, len(ns))]
	g, err := graph.New(ns, 0, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	chars := 0
	for _, n := range ns {
		chars += len(n.Content)
	}
	qs := []string{
		"How many questions does the QASPER dev slice have?", // number
		"When was the baseline measured?",                    // date
		"Which router has the highest evidence recall?",      // name
		"Who wrote the paper?",                               // person
		"Where are the figure images written?",               // place
		"What does MCF stand for?",                           // acronym
		"What is the abstention rule?",                       // definition
		"Why does the reader abstain?",                       // other
	}
	e := &Extractive{}
	ctx := context.Background()
	b.ReportMetric(float64(chars)/16, "chars/node")
	b.ResetTimer()
	for i := range b.N {
		if _, err := e.Read(ctx, &Input{Question: qs[i%len(qs)], Graph: g, Chains: allChains(g)}); err != nil {
			b.Fatal(err)
		}
	}
}
