package local

import (
	"context"
	"testing"

	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/local/internal/glovedata"
)

// BenchmarkLoad measures decoding the embedded 100k-word table, the one-off
// cost of the first Embed call in a process.
func BenchmarkLoad(b *testing.B) {
	data := glovedata.Data()
	for b.Loop() {
		if _, err := decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmbed measures sentence embedding once the table is loaded.
func BenchmarkEmbed(b *testing.B) {
	g := Embedder()
	if _, err := g.Embed(context.Background(), nil, llm.KindDocument); err != nil {
		b.Fatal(err)
	}
	texts := []string{
		"The minimum-cost flow routes a fixed evidence budget through the content graph.",
		"Quarterly revenue rose 12% on strong bond trading, the bank said on Tuesday.",
	}
	for b.Loop() {
		g.Embed(context.Background(), texts, llm.KindDocument)
	}
}
