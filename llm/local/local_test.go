package local

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/local/internal/glovedata"
)

func cos(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return d / math.Sqrt(na*nb)
}

func embed(t *testing.T, g *gloVe, texts ...string) [][]float32 {
	t.Helper()
	v, err := g.Embed(context.Background(), texts, llm.KindDocument)
	if err != nil {
		t.Fatal(err)
	}
	if err := llmutil.CheckVectors(v, len(texts), dimension); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSanityPairs(t *testing.T) {
	g := Embedder().(*gloVe)
	v := embed(t, g, "cat", "dog", "carburetor")
	catDog, catCarb := cos(v[0], v[1]), cos(v[0], v[2])
	t.Logf("cos(cat, dog) = %.4f, cos(cat, carburetor) = %.4f", catDog, catCarb)
	if catDog < 0.8 || catDog > 0.95 {
		t.Errorf("cos(cat, dog) = %.4f, want ≈ 0.88", catDog)
	}
	if catCarb > 0.2 {
		t.Errorf("cos(cat, carburetor) = %.4f, want ≈ 0.05", catCarb)
	}
	// Sentences: topical overlap beats none.
	s := embed(t, g, "The cat chased a mouse in the garden.", "A dog ran after the rabbit across the lawn.",
		"Quarterly revenue rose on strong bond trading.")
	if a, b := cos(s[0], s[1]), cos(s[0], s[2]); a <= b+0.2 {
		t.Errorf("animal sentences %.3f vs finance %.3f", a, b)
	}
}

func TestDeterministicAndNormalised(t *testing.T) {
	g := Embedder().(*gloVe)
	texts := []string{"Min-cost flow routes evidence through the graph.", "GloVe 100 dimensions, 2014!"}
	a := embed(t, g, texts...)
	b := embed(t, newGloVe(0, false), texts...)
	for i := range a {
		var n float64
		for j := range a[i] {
			if math.Float32bits(a[i][j]) != math.Float32bits(b[i][j]) {
				t.Fatalf("text %d not bit-identical", i)
			}
			n += float64(a[i][j]) * float64(a[i][j])
		}
		if math.Abs(n-1) > 1e-5 {
			t.Errorf("text %d squared norm %v", i, n)
		}
	}
	q, _ := g.Embed(context.Background(), texts[:1], llm.KindQuery)
	for j := range q[0] {
		if q[0][j] != a[0][j] {
			t.Fatal("kind changed the vector")
		}
	}
}

func TestEmptyAndUnknownAreZero(t *testing.T) {
	g := Embedder().(*gloVe)
	v := embed(t, g, "", "   ", "!!! ---", "zzqxjv qqwvvz", "ÿþ\x00\xff")
	for i, x := range v {
		for _, c := range x {
			if c != 0 || math.IsNaN(float64(c)) {
				t.Fatalf("text %d: component %v, want zero vector", i, c)
			}
		}
	}
	if v, _ := g.Embed(context.Background(), nil, llm.KindQuery); len(v) != 0 {
		t.Fatal("nil input")
	}
}

func TestStopWords(t *testing.T) {
	g := Embedder().(*gloVe)
	v := embed(t, g, "the cat", "cat", "to be or not to be")
	if c := cos(v[0], v[1]); c < 0.9999 {
		t.Errorf("stop word changed the vector: cos %.5f", c)
	}
	var n float64
	for _, x := range v[2] {
		n += float64(x * x)
	}
	if n == 0 {
		t.Error("all-stop-word text gave the zero vector; want the fallback")
	}
	k := newGloVe(0, true)
	if k.Name() == g.Name() {
		t.Error("options not reflected in Name")
	}
	if g.Name() != "glove-6b-100d-sif" {
		t.Errorf("Name = %q", g.Name())
	}
	if n := newGloVe(1e-2, true).Name(); n != "glove-6b-100d-sif-a0.01-stop" {
		t.Errorf("Name with options = %q", n)
	}
	if c := cos(embed(t, k, "the cat")[0], v[1]); c >= 0.9999 {
		t.Error("KeepStopWords had no effect")
	}
}

func TestOOVAndVector(t *testing.T) {
	g := Embedder().(*gloVe)
	oov, err := g.oov("The flowreaderx router and Qwen3vlx, flowreaderx again, 2014")
	if err != nil {
		t.Fatal(err)
	}
	// The wink redistribution has no numeric tokens: numbers are always OOV.
	if strings.Join(oov, ",") != "flowreaderx,qwen3vlx,2014" {
		t.Fatalf("OOV = %q", oov)
	}
	if _, ok := g.vector("Cat"); !ok {
		t.Fatal("cat not found")
	}
	if _, ok := g.vector("two words"); ok {
		t.Fatal("multi-token Vector")
	}
}

func TestWeight(t *testing.T) {
	g := Embedder().(*gloVe)
	w1, w100, w10k := g.weight(1), g.weight(100), g.weight(10000)
	if !(w1 < 0.02 && w100 > 0.5 && w100 < 0.65 && w10k > 0.98 && w10k < 1) {
		t.Fatalf("weights %v %v %v", w1, w100, w10k)
	}
}

func TestEmbeddedTable(t *testing.T) {
	tab, err := decode(glovedata.Data())
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 100000 || tab.Dim() != 100 || tab.Word(0) != "the" || tab.Rank("the") != 1 {
		t.Fatalf("table %d×%d first %q", tab.Len(), tab.Dim(), tab.Word(0))
	}
	for i := 0; i < tab.Len(); i += 997 {
		if toks := tokens(tab.Word(i)); len(toks) != 1 || toks[0] != tab.Word(i) {
			t.Fatalf("word %q is not a token", tab.Word(i))
		}
	}
}

func TestContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Embedder().Embed(ctx, []string{"x"}, llm.KindDocument); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// encode writes a table in the tools/glove format (for tests and fuzz seeds).
func encode(words []string, dim int, vecs [][]int8, scales []float32) string {
	var b []byte
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(dim))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(words)))
	v := strings.Join(words, "\n")
	b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
	b = append(b, v...)
	for _, s := range scales {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s))
	}
	for _, x := range vecs {
		for _, c := range x {
			b = append(b, byte(c))
		}
	}
	return string(binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)))
}

func TestDecodeRejects(t *testing.T) {
	good := encode([]string{"a", "b"}, 2, [][]int8{{1, -2}, {127, -127}}, []float32{0.5, 1})
	tab, err := decode(good)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := tab.Vector("b"); v[0] != 127 || v[1] != -127 {
		t.Fatalf("vector b = %v", v)
	}
	flipped := []byte(good)
	flipped[len(flipped)-6] ^= 1
	for name, bad := range map[string]string{
		"empty":     "",
		"magic":     "XXXXXXXX" + good[8:],
		"truncated": good[:len(good)-3],
		"checksum":  string(flipped),
		"dup":       encode([]string{"a", "a"}, 2, [][]int8{{1, 1}, {1, 1}}, []float32{1, 1}),
		"count":     encode([]string{"a"}, 2, [][]int8{{1, 1}, {1, 1}}, []float32{1, 1}),
		"scale":     encode([]string{"a"}, 2, [][]int8{{1, 1}}, []float32{float32(math.NaN())}),
		"emptyword": encode([]string{""}, 1, [][]int8{{1}}, []float32{1}),
	} {
		if _, err := decode(bad); !errors.Is(err, errFormat) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(encode([]string{"a", "b"}, 2, [][]int8{{1, -2}, {127, -127}}, []float32{0.5, 1}))
	f.Add(encode([]string{"x"}, 3, [][]int8{{0, 0, 0}}, []float32{1}))
	f.Add(magic + "\x02\x00\x00\x00")
	f.Add("")
	f.Fuzz(func(t *testing.T, data string) {
		tab, err := decode(data)
		if err != nil {
			if !errors.Is(err, errFormat) {
				t.Fatalf("error %v does not wrap errFormat", err)
			}
			return
		}
		for i := 0; i < tab.Len(); i++ {
			v, ok := tab.Vector(tab.Word(i))
			if !ok || len(v) != tab.Dim() {
				t.Fatalf("word %d unusable", i)
			}
		}
	})
}
