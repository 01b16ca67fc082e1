package pgstore

import (
	"context"
	"errors"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/score"
)

// TestSketchCache: the replica's in-memory sketches give the dense pass
// the database's scan gives (the same order), loaded whole, kept, and
// brought up to date from the changes log after updates, or reloaded when
// the log has a gap.
func TestSketchCache(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	g := synth.Graph(t, 900, 40, 11).WithInt8Embeddings()
	if err := s.Import(ctx, "k", g); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(stage string, firstTrips int) {
		t.Helper()
		for i := 0; i < 4; i++ {
			v := rng.IntN(len(g.Nodes))
			q := score.Query{Text: strings.Join(g.Nodes[v].Keywords, " "), Embedding: g.AppendEmbedding(nil, v)}
			s.sketchMin = 1 << 62
			want, err := s.fetch(ctx, "k", q, 16, score.Config{}, fetchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s.sketchMin = 1
			got, err := s.fetch(ctx, "k", q, 16, score.Config{}, fetchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.dense, want.dense) || !slices.Equal(got.seqs, want.seqs) || got.cosMean != want.cosMean {
				t.Fatalf("%s: the cached sketches' candidates differ from the database's:\ncache %v\ndb    %v", stage, got.dense, want.dense)
			}
			if trips := map[bool]int{true: firstTrips, false: 3}[i == 0]; got.trips-got.kwTrips != trips || want.trips-want.kwTrips != 2 {
				t.Fatalf("%s: round trips %d with the cache, %d without; want %d and 2", stage, got.trips, want.trips, map[bool]int{true: firstTrips, false: 3}[i == 0])
			}
			if set := s.sketches.get("k"); set == nil || set.version != got.version || len(set.seqs) != int(got.n) {
				t.Fatalf("%s: the cache does not hold version %d", stage, got.version)
			}
			// Under a filter the cache ranks only the allowed nodes, as
			// the database's scan does.
			only := fetchOptions{filter: flowreader.Filter{IDs: []string{"b"}}}
			s.sketchMin = 1 << 62
			want, err = s.fetch(ctx, "k", q, 16, score.Config{}, only)
			if err != nil {
				t.Fatal(err)
			}
			s.sketchMin = 1
			got, err = s.fetch(ctx, "k", q, 16, score.Config{}, only)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.dense) == 0 || !slices.Equal(got.dense, want.dense) || !slices.Equal(got.seqs, want.seqs) {
				t.Fatalf("%s, filtered: the cached sketches' candidates differ from the database's:\ncache %v\ndb    %v", stage, got.dense, want.dense)
			}
		}
	}
	check("loaded", 3)
	check("kept", 3)
	h := synth.Graph(t, 900, 40, 12).WithInt8Embeddings()
	// Keep one document of g: the nodes of a, replace b.
	for i := range h.Nodes {
		if h.Nodes[i].Doc == "a" {
			h.Nodes[i] = g.Nodes[i]
		}
	}
	v, err := s.Update(ctx, "k", version(t, s, "k"), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("no change", 3)
	if v, err = s.Update(ctx, "k", v, h, nil); err != nil {
		t.Fatal(err)
	}
	check("after an update", 3)
	if _, err := s.Update(ctx, "k", v, g, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM flowreader.changes`); err != nil {
		t.Fatal(err)
	}
	if v, err = s.Update(ctx, "k", v+1, h, nil); err != nil {
		t.Fatal(err)
	}
	check("after a gap in the log", 4)
}

func TestSketchNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, dim = 500, 100
	words := (dim + 63) / 64
	set := newSketchSet(words, n) // outside the heap, where mappings are
	type row struct {
		seq int64
		b   pgtype.Bits
	}
	var rows []row
	for i := 0; i < n; i++ {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		b := sketch(v)
		seq := int64(3 * i)
		rows = append(rows, row{seq, b})
		set.seqs = append(set.seqs, seq)
		set.bits = sketchWords(set.bits, b, words)
	}
	q := make([]float32, dim)
	for j := range q {
		q[j] = float32(rng.NormFloat64())
	}
	qb := sketch(q)
	// The oracle: distance by bytes, sorted by (distance, seq).
	dist := func(b pgtype.Bits) int {
		d := 0
		for i := range b.Bytes {
			x := b.Bytes[i] ^ qb.Bytes[i]
			for ; x != 0; x &= x - 1 {
				d++
			}
		}
		return d
	}
	slices.SortStableFunc(rows, func(a, b row) int { return dist(a.b) - dist(b.b) })
	for _, k := range []int{1, 7, 64, 499, 500, 600} {
		got := set.nearest(sketchWords(nil, qb, words), k, nil)
		want := []int64{}
		for _, r := range rows[:min(k, n)] {
			want = append(want, r.seq)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("k %d: %v, want %v", k, got, want)
		}
		// Filtered: of the even seqs only, in the same order.
		even := func(seq int64) bool { return seq%2 == 0 }
		got = set.nearest(sketchWords(nil, qb, words), k, even)
		want = []int64{}
		for _, r := range rows {
			if even(r.seq) && len(want) < k {
				want = append(want, r.seq)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("filtered, k %d: %v, want %v", k, got, want)
		}
	}
	// A later version made of it: every third sketch removed, three
	// added; once the first set is garbage (its mappings unmapped), the
	// new one still answers as the oracle over its own rows.
	removed := map[int64]bool{}
	var kept []row
	for i, r := range rows {
		if i%3 == 0 {
			removed[r.seq] = true
		} else {
			kept = append(kept, r)
		}
	}
	var added []int64
	var addedBits []uint64
	for i := 0; i < 3; i++ {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		r := row{int64(3*n + i), sketch(v)}
		kept, added, addedBits = append(kept, r), append(added, r.seq), sketchWords(addedBits, r.b, words)
	}
	next := set.withChanges(2, removed, added, addedBits)
	set = nil
	runtime.GC()
	runtime.GC()
	slices.SortStableFunc(kept, func(a, b row) int {
		if d := dist(a.b) - dist(b.b); d != 0 {
			return d
		}
		return int(a.seq - b.seq)
	})
	if len(next.seqs) != len(kept) {
		t.Fatalf("%d sketches after the changes, want %d", len(next.seqs), len(kept))
	}
	for _, k := range []int{1, 50, len(kept)} {
		got := next.nearest(sketchWords(nil, qb, words), k, nil)
		want := []int64{}
		for _, r := range kept[:k] {
			want = append(want, r.seq)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("after the changes, k %d: %v, want %v", k, got, want)
		}
	}
}

// TestSketchFirstQuestionsTogether: questions that find no sketches in
// memory at once load them one at a time (the others wait and use the
// loaded set), and all answer as the database's scan does.
func TestSketchFirstQuestionsTogether(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	g := synth.Graph(t, 900, 40, 13).WithInt8Embeddings()
	if err := s.Import(ctx, "k", g); err != nil {
		t.Fatal(err)
	}
	q := score.Query{Text: strings.Join(g.Nodes[7].Keywords, " "), Embedding: g.AppendEmbedding(nil, 7)}
	s.sketchMin = 1 << 62
	want, err := s.fetch(ctx, "k", q, 16, score.Config{}, fetchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.sketchMin = 1
	const n = 4
	got := make([]*fetched, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = s.fetch(ctx, "k", q, 16, score.Config{}, fetchOptions{})
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !slices.Equal(got[i].dense, want.dense) || !slices.Equal(got[i].seqs, want.seqs) {
			t.Fatalf("question %d: the cached sketches' candidates differ from the database's:\ncache %v\ndb    %v", i, got[i].dense, want.dense)
		}
	}
	if set := s.sketches.get("k"); set == nil || len(set.seqs) != len(g.Nodes) {
		t.Fatal("no set of every node held after the first questions")
	}
	if len(s.sketches.loading) != 0 {
		t.Fatal("the load lock is still held")
	}
}

// TestSketchNearestOracle checks nearest against a sort of every sketch by
// (distance, seq), on random sets: few bits (many ties at every distance)
// and many, clustered sketches, every k from 1 past the set's size, with
// and without a filter.
func TestSketchNearestOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 60; round++ {
		words := 1 + rng.IntN(13)
		n := rng.IntN(3000)
		set := &sketchSet{words: words}
		centres := make([][]uint64, 1+rng.IntN(8))
		for c := range centres {
			for j := 0; j < words; j++ {
				centres[c] = append(centres[c], rng.Uint64())
			}
		}
		noisy := func() []uint64 {
			c := centres[rng.IntN(len(centres))]
			out := make([]uint64, words)
			for j := range out {
				out[j] = c[j] ^ (rng.Uint64() & rng.Uint64() & rng.Uint64())
				if words == 1 {
					out[j] &= 0xff // 8 bits used: ties everywhere
				}
			}
			return out
		}
		seq := int64(0)
		for i := 0; i < n; i++ {
			seq += 1 + int64(rng.IntN(3))
			set.seqs = append(set.seqs, seq)
			set.bits = append(set.bits, noisy()...)
		}
		q := noisy()
		type row struct {
			seq int64
			d   int
		}
		rows := make([]row, n)
		for i := range rows {
			d := 0
			for j := 0; j < words; j++ {
				d += bits.OnesCount64(set.bits[i*words+j] ^ q[j])
			}
			rows[i] = row{set.seqs[i], d}
		}
		slices.SortFunc(rows, func(a, b row) int {
			if a.d != b.d {
				return a.d - b.d
			}
			return int(a.seq - b.seq)
		})
		mod := int64(2 + rng.IntN(4))
		allow := func(s int64) bool { return s%mod != 0 }
		for _, k := range []int{1, 2, 1 + rng.IntN(64), 1 + rng.IntN(n+1), n, n + 5} {
			for _, f := range []func(int64) bool{nil, allow} {
				want := []int64{}
				for _, r := range rows {
					if len(want) < k && (f == nil || f(r.seq)) {
						want = append(want, r.seq)
					}
				}
				got := set.nearest(q, k, f)
				if len(got) == 0 && len(want) == 0 {
					continue
				}
				if !slices.Equal(got, want) {
					t.Fatalf("round %d, %d words, n %d, k %d, filtered %v:\n got %v\nwant %v", round, words, n, k, f != nil, got, want)
				}
			}
		}
	}
}

// BenchmarkSketchNearest ranks a million synthetic 768-bit sketches
// (clustered: each a noisy copy of one of 256 centres, bits flipped with
// probability 1/4) for the 1,024 nearest, as a replica's dense pass does
// at a million nodes. In memory only: 96 MB of sketches.
//
//	go test -run '^$' -bench SketchNearest -benchtime 50x ./pgstore/
func BenchmarkSketchNearest(b *testing.B) {
	const n, words, k = 1_000_000, 12, 1024
	rng := rand.New(rand.NewPCG(9, 10))
	centres := make([]uint64, 256*words)
	for i := range centres {
		centres[i] = rng.Uint64()
	}
	set := &sketchSet{words: words, seqs: make([]int64, n), bits: make([]uint64, n*words)}
	for i := 0; i < n; i++ {
		set.seqs[i] = int64(i)
		c := centres[rng.IntN(256)*words:][:words]
		for j := range c {
			set.bits[i*words+j] = c[j] ^ (rng.Uint64() & rng.Uint64())
		}
	}
	qs := make([][]uint64, 16)
	for i := range qs {
		c := centres[rng.IntN(256)*words:][:words]
		for j := range c {
			qs[i] = append(qs[i], c[j]^(rng.Uint64()&rng.Uint64()))
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got := set.nearest(qs[i%len(qs)], k, nil); len(got) != k {
			b.Fatalf("%d nearest, want %d", len(got), k)
		}
	}
}

// TestSketchCacheDimension: a question whose embedding has another
// dimension than the collection's is refused with ErrInput while the
// replica holds the collection's sketches, whose ranking starts during
// round trip 1, before the collection row (and so its dimension) is read.
// (A question's sketch of fewer words than the set's must not reach the
// ranking: it would panic in its goroutine, ending the process.)
func TestSketchCacheDimension(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	ctx := context.Background()
	g := synth.Graph(t, 300, 200, 5).WithInt8Embeddings() // 4 sketch words a node
	if err := s.Import(ctx, "d", g); err != nil {
		t.Fatal(err)
	}
	s.sketchMin = 1
	text := strings.Join(g.Nodes[0].Keywords, " ")
	if _, err := s.Candidates(ctx, "d", score.Query{Text: text, Embedding: g.AppendEmbedding(nil, 0)}, 16, score.Config{}, flowreader.Filter{}); err != nil {
		t.Fatal(err)
	}
	if s.sketches.get("d") == nil {
		t.Fatal("the sketches are not cached: the ranking during round trip 1 is not tested")
	}
	for _, dim := range []int{0, 1, 40, 64, 130, 199, 201, 400} {
		e := make([]float32, dim)
		for k := range e {
			e[k] = float32(k%3) - 1
		}
		_, err := s.Candidates(ctx, "d", score.Query{Text: text, Embedding: e}, 16, score.Config{}, flowreader.Filter{})
		if !errors.Is(err, ErrInput) {
			t.Fatalf("a question of dimension %d: %v, want ErrInput", dim, err)
		}
	}
}
