package fake_test

import (
	"context"
	"fmt"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

func ExampleModel() {
	m := &fake.Model{Default: "I don't know."}
	m.Rules = append(m.Rules, fake.Rule{Contains: "capital of France", Reply: "Paris"})
	m.Rules = append(m.Rules, fake.Rule{Contains: "flaky", Err: &llm.APIError{StatusCode: 429}, Times: 1})

	ctx := context.Background()
	r, _ := m.Generate(ctx, llmfunc.UserText("What is the capital of France?"))
	fmt.Println(r.Text)
	r, _ = m.Generate(ctx, llmfunc.UserText("Who wrote Hamlet?"))
	fmt.Println(r.Text)
	_, err := m.Generate(ctx, llmfunc.UserText("a flaky call"))
	fmt.Println(err)
	r, _ = m.Generate(ctx, llmfunc.UserText("a flaky call"))
	fmt.Println(r.Text)
	fmt.Println(len(m.Calls()), "calls; the first asked", fake.Prompt(m.Calls()[0]))
	// Output:
	// Paris
	// I don't know.
	// llm: HTTP 429
	// I don't know.
	// 4 calls; the first asked What is the capital of France?
}

func ExampleEmbedder() {
	e := &fake.Embedder{Dim: 256}
	vs, _ := e.Embed(context.Background(), []string{
		"the cat sat on the mat",
		"The cat sat on the mat!",
		"quarterly revenue grew",
	}, llm.KindDocument)
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	fmt.Printf("same words: %.2f\n", dot(vs[0], vs[1]))
	fmt.Printf("dimension: %d\n", e.Dimension())
	// Output:
	// same words: 1.00
	// dimension: 256
}
