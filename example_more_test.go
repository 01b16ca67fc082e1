package flowreader_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"maps"
	"slices"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// Classic is the paper's v1 formulation: fused scores, the classic router,
// the replicator selector and the dual-process gate, whose System-2 pass
// needs a model to judge with (here a scripted one; over the offline
// extractive reader it does not run, and the notes say so). A variant is a
// change of fields.
func ExampleClassic() {
	m := &fake.Model{Default: `{"status":"not_reported","answer":"","evidence":""}`}
	m.Rules = append(m.Rules,
		fake.Rule{Contains: "EVIDENCE PATHS", Reply: "<output>The May storm flooded its lower sections.</output>"},
		fake.Rule{Contains: "lost its tern colony", Reply: `{"status":"supported","answer":"the May storm flooded it","evidence":"The East Arm lost its tern colony after the May storm flooded its lower sections."}`},
	)
	cfg := flowreader.Classic()
	cfg.Model = m
	cfg.Embedder = &fake.Embedder{Dim: 64}
	ix := open(cfg)
	res, err := ix.Ask(context.Background(), "Why did the East Arm lose nests?", flowreader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Evidence.Routing.Router, res.Evidence.Budget, res.Evidence.Scoring)
	fmt.Println(res.Text)
	fmt.Println(res.System2.Triggers, res.System2.Reason, "→ re-read:", res.System2.Ran)
	// Output:
	// classic 11 [cosine bm25 fusion]
	// The May storm flooded its lower sections.
	// [T1 low saturation] saturation 0.198 < ξ 0.60 → re-read: true
}

// Graph gives the nodes behind an answer's citations: their section, page
// and full content, for a user interface that shows the source.
func ExampleIndex_Graph() {
	ix := open(flowreader.Config{})
	res, err := ix.Ask(context.Background(), "What was the surge of Storm Elda?", flowreader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	g := ix.Graph()
	c := res.Citations[0]
	n := g.Nodes[c.Node]
	fmt.Printf("%s p.%d %s: %s\n", n.Doc, n.Page+1, n.Modality, n.Content)
	// Output:
	// station p.1 text: Storm Elda arrived on 14 May with gusts of 131 km/h and a surge of 2.1 metres.
}

// Notes says which parts run on the embedded defaults, so that a service
// can log it at start-up and users do not mistake offline answers for a
// model's. A fully configured pipeline has none.
func ExamplePipeline_Notes() {
	for _, cfg := range []flowreader.Config{
		{Embedder: &fake.Embedder{Dim: 64}},
		{Embedder: &fake.Embedder{Dim: 64}, Model: &fake.Model{}},
	} {
		p, err := flowreader.New(cfg)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(len(p.Notes()), p.Notes())
	}
	// Output:
	// 1 [embedded default reader: extractive (no model configured; answers are verbatim spans, not generated)]
	// 0 []
}

// Embedder is the embedder the pipeline uses, the configured one or the
// embedded default: embed questions with it when you score or cache them
// yourself, and check a graph built elsewhere against its dimension.
func ExamplePipeline_Embedder() {
	p, err := flowreader.New(flowreader.Config{})
	if err != nil {
		log.Fatal(err)
	}
	e := p.Embedder()
	v, err := e.Embed(context.Background(), []string{"What was the surge of Storm Elda?"}, llm.KindQuery)
	if err != nil {
		log.Fatal(err)
	}
	g, err := p.Build(context.Background(), docs())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.(llm.Namer).Name(), e.Dimension(), len(v[0]), g.Dim == e.Dimension())
	// Output:
	// glove-6b-100d-sif 100 100 true
}

// Events marshal to the JSON contract, one object per line: what the
// server's event stream and ask --stream --json write. (The evidence and the
// result hold wall times, so only their keys are shown here.)
func ExampleEvent_MarshalJSON() {
	ix := open(flowreader.Config{})
	_, err := ix.Ask(context.Background(), "What was the surge of Storm Elda?", flowreader.Options{
		Stream: func(e flowreader.Event) {
			b, err := json.Marshal(e) // or json.NewEncoder(w).Encode(e) on a response
			if err != nil {
				log.Fatal(err)
			}
			if e.Kind == "evidence" || e.Kind == "done" {
				var obj map[string]json.RawMessage
				json.Unmarshal(b, &obj)
				fmt.Println(slices.Sorted(maps.Keys(obj)))
				return
			}
			fmt.Println(string(b))
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// [event evidence pass]
	// {"event":"delta","pass":1,"text":"2.1 metres"}
	// {"event":"citations","pass":1,"citations":[{"doc":"station","page":0,"node":3,"node_id":"station#0","quote":"Storm Elda arrived on 14 May with gusts of 131 km/h and a surge of 2.1 metres.","chain":-1,"span":[67,77]}]}
	// [event pass result]
}
