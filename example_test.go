package flowreader_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
)

// docs is a tiny collection: a table of results and a paragraph that explains
// one of its rows, split across two documents.
func docs() []graph.Document {
	return []graph.Document{
		{ID: "survey", Title: "Harbour survey", Items: []graph.Item{
			{Modality: graph.ModalityText, Page: 0, Text: "The harbour survey counts seabird nests on three breakwaters every June."},
			{Modality: graph.ModalityTable, Page: 0, Caption: "Table 1: Nests per breakwater.",
				Text: "Breakwater | Nests 2024 | Nests 2025\nNorth Mole | 212 | 248\nEast Arm | 97 | 31\nLighthouse Spit | 58 | 66"},
			{Modality: graph.ModalityText, Page: 0, Text: "The East Arm lost its tern colony after the May storm flooded its lower sections."},
		}},
		{ID: "station", Title: "Weather station report", Items: []graph.Item{
			{Modality: graph.ModalityText, Page: 0, Text: "Storm Elda arrived on 14 May with gusts of 131 km/h and a surge of 2.1 metres."},
			{Modality: graph.ModalityText, Page: 1, Text: "Rainfall was highest in November and lowest in July."},
		}},
	}
}

func Example() {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{}) // no endpoints: embedded defaults
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, docs())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.Open(ctx, g) // per-graph work, once
	if err != nil {
		log.Fatal(err)
	}
	res, err := ix.Ask(ctx, "How many nests did the East Arm have in 2025?", flowreader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("reader:", res.Trace.Reader)
	fmt.Println("cites the table:", cites(res, "survey#1"))
	// Output:
	// reader: extractive
	// cites the table: true
}

func cites(res *flowreader.Result, id string) bool {
	for _, c := range res.Citations {
		if c.NodeID == id {
			return true
		}
	}
	return false
}

func ExamplePipeline_Build() {
	p, _ := flowreader.New(flowreader.Config{})
	g, err := p.Build(context.Background(), docs())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(g.Nodes), "nodes,", g.Dim, "dimensions")
	fmt.Println(g.Nodes[1].ID, g.Nodes[1].Modality)
	// Output:
	// 5 nodes, 100 dimensions
	// survey#1 table
}

// open builds the example collection and opens it.
func open(cfg flowreader.Config) *flowreader.Index {
	ctx := context.Background()
	p, err := flowreader.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, docs())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		log.Fatal(err)
	}
	return ix
}

func ExampleIndex_Score() {
	ix := open(flowreader.Config{})
	s, err := ix.Score(context.Background(), "Which storm had gusts of 131 km/h?")
	if err != nil {
		log.Fatal(err)
	}
	best := 0
	for v := range s.H {
		if s.H[v] > s.H[best] {
			best = v
		}
	}
	fmt.Println("top node:", ix.Graph().Nodes[best].ID, "h =", s.H[best])
	// Output:
	// top node: station#0 h = 1
}

func ExampleIndex_Route() {
	ctx := context.Background()
	ix := open(flowreader.Config{})
	s, _ := ix.Score(ctx, "Why did the East Arm lose nests?")
	r, err := ix.Route(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("router:", r.Router)
	fmt.Println("all demand routed:", r.Routed >= r.Demand-1e-9, "chains:", len(r.Chains) > 0)
	// Output:
	// router: aspects
	// all demand routed: true chains: true
}

func ExampleIndex_Select() {
	ctx := context.Background()
	ix := open(flowreader.Classic())
	s, _ := ix.Score(ctx, "Why did the East Arm lose nests?")
	r, _ := ix.Route(ctx, s)
	chains, err := ix.Select(ctx, r)
	if err != nil {
		panic(err)
	}
	fmt.Println("at most 11 paths read:", len(chains) <= 11 && len(chains) > 0)
	// Output:
	// at most 11 paths read: true
}

// Answer reads the evidence as the caller holds it: here only the first
// chain Retrieve selected.
func ExampleIndex_Answer() {
	ctx := context.Background()
	ix := open(flowreader.Config{})
	ev, err := ix.Retrieve(ctx, "What was the surge of Storm Elda?", flowreader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	ev.Chains = ev.Chains[:1] // keep what you trust; the reader reads what is left
	res, err := ix.Answer(ctx, ev)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	fmt.Println("chains read:", res.Trace.ChainsRead)
	// Output:
	// 2.1 metres
	// chains read: 1
}

// The step-by-step path: Score, Route and Select, then the Evidence of
// those steps, which Answer reads.
func ExampleIndex_Evidence() {
	ctx := context.Background()
	ix := open(flowreader.Config{})
	q := "What was the surge of Storm Elda?"
	s, _ := ix.Score(ctx, q)
	r, _ := ix.Route(ctx, s)
	chains, _ := ix.Select(ctx, r)
	res, err := ix.Answer(ctx, ix.Evidence(q, s, r, chains))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	// Output:
	// 2.1 metres
}

func ExampleIndex_Ask() {
	ix := open(flowreader.Config{})
	res, err := ix.Ask(context.Background(), "What was the surge of Storm Elda?", flowreader.Options{Budget: 4})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	fmt.Println("cited:", res.Citations[0].NodeID, "read:", len(res.Evidence.Chains) <= 4)
	// Output:
	// 2.1 metres
	// cited: station#0 read: true
}

// The JSON contract of the evidence (stages left out here: they are wall
// times).
func ExampleEvidence_MarshalJSON() {
	ix := open(flowreader.Config{})
	ev, err := ix.Retrieve(context.Background(), "What was the surge of Storm Elda?", flowreader.Options{Budget: 1})
	if err != nil {
		log.Fatal(err)
	}
	ev.Stages = nil
	b, err := json.MarshalIndent(ev, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(b))
	// Output:
	// {
	//   "schema_version": 1,
	//   "question": "What was the surge of Storm Elda?",
	//   "budget": 1,
	//   "chains": [
	//     {
	//       "flow": 1,
	//       "cost": 0,
	//       "aspect": 0,
	//       "nodes": [
	//         {
	//           "node": 3,
	//           "id": "station#0",
	//           "doc": "station",
	//           "page": 0,
	//           "modality": "text",
	//           "text": "Storm Elda arrived on 14 May with gusts of 131 km/h and a surge of 2.1 metres.",
	//           "score": 1,
	//           "flow": 1
	//         }
	//       ]
	//     }
	//   ],
	//   "routing": {
	//     "router": "aspects",
	//     "demand": 1,
	//     "routed": 1,
	//     "max_flow": 1,
	//     "saturation": 1,
	//     "kappa": 0.5063003513655716,
	//     "cost": 0,
	//     "relevant": 1,
	//     "distinct_nodes": 1,
	//     "chains_routed": 1,
	//     "aspects": [
	//       {
	//         "sigma": 1.0000000037154895,
	//         "capacity": 1,
	//         "flow": 1,
	//         "fed": 1
	//       }
	//     ]
	//   },
	//   "scoring": [
	//     "cosine",
	//     "bm25",
	//     "ref",
	//     "hop"
	//   ],
	//   "notes": [
	//     "embedded default embedder: glove-6b-100d-sif (offline GloVe word vectors, no server)",
	//     "embedded default reader: extractive (no model configured; answers are verbatim spans, not generated)"
	//   ],
	//   "stages_ms": {}
	// }
}

// An Evidence sent as JSON (to a log, another service, a review step) is
// answered by an index over the same graph as the original would be.
func ExampleEvidence_UnmarshalJSON() {
	ctx := context.Background()
	ix := open(flowreader.Config{})
	ev, _ := ix.Retrieve(ctx, "What was the surge of Storm Elda?", flowreader.Options{})
	b, _ := json.Marshal(ev)
	var got flowreader.Evidence
	if err := json.Unmarshal(b, &got); err != nil {
		log.Fatal(err)
	}
	res, err := ix.Answer(ctx, &got)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	// Output:
	// 2.1 metres
}

// The JSON contract of a result: the evidence's fields, then the answer,
// citations, drafts and trace.
func ExampleResult_MarshalJSON() {
	ix := open(flowreader.Config{})
	res, err := ix.Ask(context.Background(), "What was the surge of Storm Elda?", flowreader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		log.Fatal(err)
	}
	var doc map[string]any
	json.Unmarshal(b, &doc)
	fmt.Println(slices.Sorted(maps.Keys(doc)))
	fmt.Println(doc["answer"])
	// Output:
	// [answer budget chains citations confidence drafts low_confidence notes question routing schema_version scoring stages_ms trace]
	// 2.1 metres
}

// The zero Config runs on the embedded offline models and says so.
func ExampleNew() {
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	for _, n := range p.Notes() {
		fmt.Println(n)
	}
	_, err = flowreader.New(flowreader.Config{Budget: -1})
	fmt.Println(errors.Is(err, flowreader.ErrConfig))
	// Output:
	// embedded default embedder: glove-6b-100d-sif (offline GloVe word vectors, no server)
	// embedded default reader: extractive (no model configured; answers are verbatim spans, not generated)
	// true
}

// The paper's variants are constructors; everything else is a field.
func ExamplePaperAspects() {
	ctx := context.Background()
	for _, cfg := range []flowreader.Config{{}, flowreader.PaperAspects(), flowreader.Classic()} {
		ix := open(cfg)
		ev, err := ix.Retrieve(ctx, "Why did the East Arm lose nests?", flowreader.Options{})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(ev.Routing.Router, ev.Scoring)
	}
	// Output:
	// aspects [cosine bm25 ref hop]
	// aspects-paper [cosine ref]
	// classic [cosine bm25 fusion]
}

func ExamplePipeline_Open() {
	ctx := context.Background()
	p, _ := flowreader.New(flowreader.Config{})
	g, err := p.Build(ctx, docs())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.Open(ctx, g) // the graph's scoring index and router state, once
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(ix.Graph().Nodes), "nodes")
	_, err = p.Open(ctx, nil)
	fmt.Println(errors.Is(err, flowreader.ErrNoGraph))
	// Output:
	// 5 nodes
	// true
}

func ExamplePipeline_Load() {
	ctx := context.Background()
	p, _ := flowreader.New(flowreader.Config{})
	g, _ := p.Build(ctx, docs())
	dir, err := os.MkdirTemp("", "flowreader-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "survey.graph")
	if err := graph.Save(path, g); err != nil {
		log.Fatal(err)
	}
	ix, err := p.Load(ctx, path)
	if err != nil {
		log.Fatal(err)
	}
	res, err := ix.Ask(ctx, "How many nests did the North Mole have in 2025?", flowreader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(ix.Graph().Nodes), "nodes;", "cites the table:", cites(res, "survey#1"))
	// Output:
	// 5 nodes; cites the table: true
}

// Retrieval on its own: the evidence for a question with a per-call budget,
// for a caller that answers with its own model.
func ExampleIndex_Retrieve() {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, docs())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		log.Fatal(err)
	}
	ev, err := ix.Retrieve(ctx, "How many nests did the East Arm have in 2025?", flowreader.Options{Budget: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("budget:", ev.Budget, "router:", ev.Routing.Router)
	for _, c := range ev.Chains {
		for _, n := range c.Nodes {
			fmt.Printf("%s %s p.%d score %.2f: %s\n", n.ID, n.Modality, n.Page+1, n.Score, strings.SplitN(n.Text, "\n", 2)[0])
		}
	}
	// Output:
	// budget: 2 router: aspects
	// survey#1 table p.1 score 1.00: Breakwater | Nests 2024 | Nests 2025
	// survey#2 text p.1 score 0.89: The East Arm lost its tern colony after the May storm flooded its lower sections.
}

// Streaming: each step of the answer as it happens. With a Model that
// streams (llm.Streamer, as llm/openai's Chat does), the deltas are the
// reasoner's tokens; the offline reader gives its answer as one delta.
func ExampleOptions_stream() {
	ctx := context.Background()
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(ctx, docs())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := p.Open(ctx, g)
	if err != nil {
		log.Fatal(err)
	}
	_, err = ix.Ask(ctx, "How many nests did the East Arm have in 2025?", flowreader.Options{
		Stream: func(e flowreader.Event) {
			switch e.Kind {
			case "evidence":
				fmt.Println("evidence:", len(e.Evidence.Chains) > 0)
			case "draft":
				fmt.Println("draft of chain", e.Draft.Chain) // one per worker, as each finishes
			case "delta":
				fmt.Println("answer so far grows by", len(e.Text) > 0)
			case "citations":
				fmt.Println("citations:", len(e.Citations) > 0)
			case "done":
				fmt.Println("done:", e.Result.Trace.Reader)
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// evidence: true
	// answer so far grows by true
	// citations: true
	// done: extractive
}

// A reranker (here a stand-in; llm/openai's Reranker speaks vLLM's, TEI's
// and Infinity's /rerank) fused into relevance before routing.
func ExampleConfig_reranker() {
	ctx := context.Background()
	crossEncoder := rerankerFunc(func(ctx context.Context, q string, texts []string) ([]float64, error) {
		out := make([]float64, len(texts))
		for i, t := range texts {
			if strings.Contains(t, "storm") {
				out[i] = 0.9
			}
		}
		return out, nil
	})
	p, err := flowreader.New(flowreader.Config{Reranker: crossEncoder, RerankTop: 8})
	if err != nil {
		log.Fatal(err)
	}
	g, _ := p.Build(ctx, docs())
	ix, _ := p.Open(ctx, g)
	s, err := ix.Score(ctx, "Which storm flooded the East Arm?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Steps[len(s.Steps)-1], len(s.Reranked) > 0)
	// Output: rerank true
}

type rerankerFunc func(ctx context.Context, q string, texts []string) ([]float64, error)

func (f rerankerFunc) Rerank(ctx context.Context, q string, texts []string) ([]float64, error) {
	return f(ctx, q, texts)
}
