package flowreader_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/openai"
)

// latencyServer is an OpenAI-compatible chat server that answers every call
// after l, and streams (stream: true) with its first piece after l and the
// next ones piece apart. It records, per call, when the request arrived and
// when its answer (or first piece) was written, on the server's clock.
type latencyServer struct {
	*httptest.Server
	l, piece time.Duration
	mu       sync.Mutex
	calls    []serverCall
}

type serverCall struct {
	kind                 string // worker, qtype, reasoner, analysis
	arrived, first, last time.Time
}

func newLatencyServer(l, piece time.Duration) *latencyServer {
	s := &latencyServer{l: l, piece: piece}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

func (s *latencyServer) serve(w http.ResponseWriter, r *http.Request) {
	c := serverCall{arrived: time.Now()}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Stream bool `json:"stream"`
	}
	json.Unmarshal(body, &req)
	prompt := string(body)
	var text string
	switch {
	case strings.Contains(prompt, "Classify the question"):
		c.kind, text = "qtype", `{"type":"value","length":"short"}`
	case strings.Contains(prompt, "EVIDENCE PATHS"):
		c.kind, text = "reasoner", "<output>The East Arm had 31 nests in 2025, down from 97.</output>"
	case strings.Contains(prompt, "Read the evidence passages"):
		c.kind, text = "worker", workerReply
	default:
		c.kind, text = "analysis", `{"summary":"s","keywords":["k"]}`
	}
	select {
	case <-time.After(s.l):
	case <-r.Context().Done():
		return
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"index": 0,
			"message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}}})
		c.first = time.Now()
		c.last = c.first
	} else {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, p := range strings.SplitAfter(text, " ") {
			if i > 0 {
				select {
				case <-time.After(s.piece):
				case <-r.Context().Done():
					return
				}
			}
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": p}}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
			if i == 0 {
				c.first = time.Now()
			}
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		c.last = time.Now()
	}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

// BenchmarkAskStreamLatency measures a streamed Ask against latencyServer
// (per-call latency L, the reasoner streaming a piece every 5 ms) through
// llm/openai over HTTP: from Ask's start, the evidence event, the first
// draft and the first answer delta; and the bound of the goal, the slowest
// worker's time plus the reasoner's time to its first piece (both on the
// server's clock, from the request's arrival), against the time from the
// evidence event to the first answer delta. over-ms is that time minus
// the bound: what the pipeline adds (the goal: ≤ 20 ms).
func BenchmarkAskStreamLatency(b *testing.B) {
	for _, l := range []time.Duration{50 * time.Millisecond, 200 * time.Millisecond} {
		b.Run(fmt.Sprintf("L=%v", l), func(b *testing.B) {
			srv := newLatencyServer(l, 5*time.Millisecond)
			defer srv.Close()
			chat, err := openai.NewChat(openai.Config{BaseURL: srv.URL, Model: "standin", TextOnly: true,
				HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}})
			if err != nil {
				b.Fatal(err)
			}
			cfg := flowreader.Config{}
			p, err := flowreader.New(cfg) // offline build: no analysis calls
			if err != nil {
				b.Fatal(err)
			}
			g, err := p.Build(context.Background(), docs())
			if err != nil {
				b.Fatal(err)
			}
			cfg.Model = llm.Model(chat)
			p, err = flowreader.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			ix, err := p.Open(context.Background(), g)
			if err != nil {
				b.Fatal(err)
			}
			var evidence, draft, delta, over, bound, total time.Duration
			for b.Loop() {
				srv.mu.Lock()
				srv.calls = nil
				srv.mu.Unlock()
				var tEv, tDraft, tDelta time.Time
				start := time.Now()
				_, err := ix.Ask(context.Background(), "How many nests did the East Arm have in 2025?", flowreader.Options{Stream: func(e flowreader.Event) {
					now := time.Now()
					switch {
					case e.Kind == "evidence":
						tEv = now
					case e.Kind == "draft" && tDraft.IsZero():
						tDraft = now
					case e.Kind == "delta" && !e.Thought && tDelta.IsZero():
						tDelta = now
					}
				}})
				if err != nil {
					b.Fatal(err)
				}
				var slowest, reasonerFirst time.Duration
				srv.mu.Lock()
				for _, c := range srv.calls {
					switch c.kind {
					case "worker":
						slowest = max(slowest, c.first.Sub(c.arrived))
					case "reasoner":
						reasonerFirst = c.first.Sub(c.arrived)
					}
				}
				srv.mu.Unlock()
				evidence += tEv.Sub(start)
				draft += tDraft.Sub(start)
				delta += tDelta.Sub(start)
				bound += slowest + reasonerFirst
				over += tDelta.Sub(tEv) - (slowest + reasonerFirst)
				total++
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(total) / float64(time.Millisecond) }
			b.ReportMetric(ms(evidence), "evidence-ms")
			b.ReportMetric(ms(draft), "first-draft-ms")
			b.ReportMetric(ms(delta), "first-delta-ms")
			b.ReportMetric(ms(bound), "bound-ms")
			b.ReportMetric(ms(over), "over-ms")
		})
	}
}
