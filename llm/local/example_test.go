package local_test

import (
	"context"
	"fmt"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/local"
)

func ExampleEmbedder() {
	e := local.Embedder()
	v, err := e.Embed(context.Background(), []string{"cat", "dog", "carburetor"}, llm.Document)
	if err != nil {
		panic(err)
	}
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	fmt.Println(e.Name(), e.Dimension())
	fmt.Printf("cat~dog %.2f, cat~carburetor %.2f\n", dot(v[0], v[1]), dot(v[0], v[2]))
	oov, _ := e.OOV("routing with flowreaderx")
	fmt.Println("out of vocabulary:", oov)
	// Output:
	// glove-6b-100d-sif 100
	// cat~dog 0.88, cat~carburetor 0.05
	// out of vocabulary: [flowreaderx]
}

func ExampleNew() {
	e := local.New(local.Config{A: 1e-2, KeepStopWords: true})
	v, _ := e.Embed(context.Background(), []string{"the quick brown fox"}, llm.Query)
	fmt.Println(e.Name(), len(v[0]))
	// Output: glove-6b-100d-sif-a0.01-stop 100
}

func ExampleGloVe_OOV() {
	oov, _ := local.Embedder().OOV("Qwen3 reads 12 PDFs on MinerU")
	fmt.Println(oov)
	// Output: [qwen3 12 pdfs mineru]
}
