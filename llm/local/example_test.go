package local_test

import (
	"context"
	"fmt"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/local"
)

func ExampleEmbedder() {
	e := local.Embedder()
	v, err := e.Embed(context.Background(), []string{"cat", "dog", "carburetor"}, llm.KindDocument)
	if err != nil {
		panic(err)
	}
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	fmt.Println(e.(llm.Namer).Name(), e.Dimension()) // it has the optional llm.Namer
	fmt.Printf("cat~dog %.2f, cat~carburetor %.2f\n", dot(v[0], v[1]), dot(v[0], v[2]))
	// Output:
	// glove-6b-100d-sif 100
	// cat~dog 0.88, cat~carburetor 0.05
}
