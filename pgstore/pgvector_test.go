package pgstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"

	pgvector "github.com/pgvector/pgvector-go"

	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/internal/pgtest"
	"github.com/flowreader/flowreader/internal/vec"
	"github.com/flowreader/flowreader/score"
)

// TestPgvector runs the store on PGlite with pgvector: writes by INSERT
// (PGlite's COPY FROM STDIN wedges), an HNSW index per collection, and the
// dense candidates from it, re-ranked exactly.
func TestPgvector(t *testing.T) {
	t.Parallel()
	url := pgtest.StartPGlite(t)
	ctx := context.Background()
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.ann || !s.noCopy {
		t.Fatalf("PGlite with pgvector: ann %v, noCopy %v; want both", s.ann, s.noCopy)
	}
	g := synth.Graph(t, 800, 24, 3).WithInt8Embeddings()
	if err := s.Import(ctx, "v", g); err != nil {
		t.Fatal(err)
	}
	m, err := s.meta(ctx, s.pool, "v")
	if err != nil || !m.ann {
		t.Fatalf("collection meta %+v, %v: want an HNSW index", m, err)
	}
	// The dense query uses the collection's index.
	var plan []string
	rows, err := s.pool.Query(ctx, fmt.Sprintf(`EXPLAIN SELECT seq FROM flowreader.ann WHERE coll = %d ORDER BY v::halfvec(%d) <#> $1 LIMIT 100`, m.id, m.dim),
		pgvector.NewHalfVector(g.AppendEmbedding(nil, 0)))
	if err == nil {
		for rows.Next() {
			var l string
			if err = rows.Scan(&l); err != nil {
				break
			}
			plan = append(plan, l)
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(plan, "\n"), fmt.Sprintf("flowreader_ann_%d", m.id)) {
		t.Fatalf("the dense query does not use the HNSW index:\n%s", strings.Join(plan, "\n"))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const cands = 32
	recall := 0.0
	const questions = 6
	for k := 0; k < questions; k++ {
		v := rng.IntN(len(g.Nodes))
		q := score.Query{Text: strings.Join(g.Nodes[v].Keywords, " "), Embedding: g.AppendEmbedding(nil, v)}
		// Exact mode: the same subgraph and BM25 as in-process.
		sameCandidates(t, s, "v", g, q, cands, score.Config{})
		f, err := s.fetch(ctx, "v", q, cands, score.Config{}, fetchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		exact := exactTop(g, q.Embedding, cands)
		hit := 0
		for _, d := range f.dense {
			if slices.Contains(exact, d) {
				hit++
			}
		}
		recall += float64(hit) / cands
	}
	if recall /= questions; recall < 0.98 {
		t.Fatalf("HNSW dense recall %.3f of the exact %d nearest, want ≥ 0.98", recall, cands)
	}
	t.Logf("HNSW dense recall %.3f", recall)

	// Updates and drops keep the index's table in step.
	h := synth.Graph(t, 850, 24, 4).WithInt8Embeddings()
	if _, err := s.Update(ctx, "v", version(t, s, "v"), h, nil); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM flowreader.ann WHERE coll = $1`, m.id).Scan(&n); err != nil || n != int64(len(h.Nodes)) {
		t.Fatalf("after the update: %d halfvec rows, %v; want %d", n, err, len(h.Nodes))
	}
	if err := s.Drop(ctx, "v"); err != nil {
		t.Fatal(err)
	}
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM flowreader.ann`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("after the drop: %d halfvec rows, %v", n, err)
	}
}

// exactTop returns the m nodes of g nearest e by brute force (ties by
// lower index).
func exactTop(g *graph.Graph, e []float32, m int) []int64 {
	qu := vec.Unit(e)
	type cs struct {
		v int
		s float64
	}
	all := make([]cs, len(g.Nodes))
	for v := range all {
		all[v] = cs{v, g.Dot(v, qu)}
	}
	slices.SortFunc(all, func(a, b cs) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return a.v - b.v
	})
	out := make([]int64, 0, m)
	for _, x := range all[:m] {
		out = append(out, int64(x.v))
	}
	return out
}
