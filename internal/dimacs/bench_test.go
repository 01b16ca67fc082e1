package dimacs

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/flowreader/flowreader/internal/lab/mcftest"
)

func BenchmarkRead(b *testing.B) {
	n, _, _ := mcftest.AspectsNetwork(rand.New(rand.NewPCG(1, 5)), 10000, 8, 16)
	var buf bytes.Buffer
	if err := Write(&buf, &Problem{Network: n}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}
