package reader

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

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
