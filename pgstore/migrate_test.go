package pgstore

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/synth"
)

// TestMigrateFrom1: a collection in a schema-1 database (made here by
// taking schema 2's additions away from an import) is migrated by Open,
// its ranks, normalised keywords, keyword frequencies and seq ranges
// backfilled, so that its evidence, filtered or not, equals the
// in-memory index's again.
func TestMigrateFrom1(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := synth.NewCollection(1200, 32, 6, 5)
	docs := c.Documents()
	p, err := flowreader.New(flowreader.Config{Embedder: c.Embedder(), Candidates: 64})
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Build(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	s, srv := openTest(t)
	if err := s.Import(ctx, "m", g, docs...); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `
ALTER TABLE flowreader.cands DROP COLUMN rank, DROP COLUMN kwnorm, DROP COLUMN last_page;
ALTER TABLE flowreader.documents DROP COLUMN ranges, DROP COLUMN links;
DROP TABLE flowreader.keywords, flowreader.dfs;
DROP INDEX flowreader.cands_sum_len;
ALTER TABLE flowreader.cands DROP COLUMN wts, DROP COLUMN lists;
ALTER TABLE flowreader.cands DROP COLUMN copies, DROP COLUMN ckey;
ALTER TABLE flowreader.collections DROP COLUMN copies, DROP COLUMN contents;
DELETE FROM flowreader.schema_version WHERE version >= 2`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	m, err := Open(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.exact = true
	var v int
	if err := m.pool.QueryRow(ctx, `SELECT max(version) FROM flowreader.schema_version`).Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("schema version %d after Open, %v", v, err)
	}
	var idx bool
	if err := m.pool.QueryRow(ctx, `SELECT to_regclass('flowreader.cands_sum_len') IS NOT NULL`).Scan(&idx); err != nil || !idx {
		t.Fatalf("migration 5's index: %v, %v", idx, err)
	}
	ref, err := p.Open(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := p.OpenStore(ctx, m, "m")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range c.Questions {
		for _, f := range []flowreader.Filter{{}, {Metadata: map[string]string{"part": "odd"}}, {IDs: []string{docs[2].ID}}} {
			want, err := ref.Retrieve(ctx, q, flowreader.Options{Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			got, err := ix.Retrieve(ctx, q, flowreader.Options{Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			if err := sameEvidence(want, got); err != nil {
				t.Fatalf("%q (filter %+v) after the migration: %v", q, f, err)
			}
		}
	}
}

// TestMigrateFrom3: a schema-3 database (an import without the counts of
// terms per document frequency) is migrated by Open, the counts
// backfilled from the terms, and an update from it then leaves the
// collection as a fresh import of the new graph has it.
func TestMigrateFrom3(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, srv := openTest(t)
	da, db := versionDocs(false), versionDocs(true)
	p, ga := buildDocs(t, da)
	if err := s.Import(ctx, "m", ga, da...); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `DROP TABLE flowreader.dfs; DROP INDEX flowreader.cands_sum_len; ALTER TABLE flowreader.cands DROP COLUMN wts, DROP COLUMN lists, DROP COLUMN copies, DROP COLUMN ckey; ALTER TABLE flowreader.collections DROP COLUMN copies, DROP COLUMN contents;
DELETE FROM flowreader.schema_version WHERE version >= 4`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	m, err := Open(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	gb, diff, err := p.Update(ctx, ga, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Update(ctx, "m", version(t, m, "m"), gb, &diff, db...); err != nil {
		t.Fatal(err)
	}
	if err := m.Import(ctx, "fresh", gb, db...); err != nil {
		t.Fatal(err)
	}
	got, gotSums := storedState(t, m, "m")
	want, wantSums := storedState(t, m, "fresh")
	if got != want {
		t.Fatalf("after the migration and an update the collection differs from a fresh import:\nupdated\n%s\nimported\n%s", got, want)
	}
	for j := range wantSums {
		if math.Abs(gotSums[j]-wantSums[j]) > 1e-9 {
			t.Fatalf("idf and embedding sums [%d] %v, fresh %v", j, gotSums[j], wantSums[j])
		}
	}
}

// TestMigrateFrom5: schema-5 databases (imports without stored edge
// weights and packed lists: float32 and int8 rows) are migrated by Open,
// the weights and lists backfilled from the stored rows, so that every
// stored weight equals a fresh import's (the graph's edge weights), every
// node's lists its arrays, and the fetched subgraph's nodes, edges and
// weights equal the graph's; then updated with a Diff, as a
// fresh import again. The backfill is also run a few nodes at a time
// (its chunks, whose neighbours are read apart), with the same result.
func TestMigrateFrom5(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, srv := openTest(t)
	da, db := versionDocs(false), versionDocs(true)
	p, ga := buildDocs(t, da)
	graphs := map[string]*graph.Graph{"f": ga, "q": ga.WithInt8Embeddings()}
	for name, g := range graphs {
		if err := s.Import(ctx, name, g, da...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.pool.Exec(ctx, `ALTER TABLE flowreader.cands DROP COLUMN wts, DROP COLUMN lists, DROP COLUMN copies, DROP COLUMN ckey; ALTER TABLE flowreader.collections DROP COLUMN copies, DROP COLUMN contents; DELETE FROM flowreader.schema_version WHERE version >= 6`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	m, err := Open(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var v int
	if err := m.pool.QueryRow(ctx, `SELECT max(version) FROM flowreader.schema_version`).Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("schema version %d after Open, %v", v, err)
	}
	check := func(stage string) {
		t.Helper()
		for name, g := range graphs {
			fresh := "fresh-" + name
			if err := m.Import(ctx, fresh, g, da...); err != nil {
				t.Fatal(err)
			}
			got, _ := storedState(t, m, name)
			want, _ := storedState(t, m, fresh)
			if got != want {
				t.Fatalf("%s, %q: the collection differs from a fresh import:\nmigrated\n%s\nimported\n%s", stage, name, got, want)
			}
			if !strings.Contains(got, "weight ") {
				t.Fatalf("%s, %q: no edge weights stored", stage, name)
			}
			sameCollection(t, m, name, p, g)
			if err := m.Drop(ctx, fresh); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("after the migration")
	// Again a few nodes at a time.
	tx, err := m.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE flowreader.cands SET wts = '', lists = ''`); err != nil {
		t.Fatal(err)
	}
	if err := backfillWeightsBy(ctx, tx, 7); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	check("backfilled 7 nodes at a time")
	gb, diff, err := p.Update(ctx, ga, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Update(ctx, "f", version(t, m, "f"), gb, &diff, db...); err != nil {
		t.Fatal(err)
	}
	if err := m.Import(ctx, "fresh", gb, db...); err != nil {
		t.Fatal(err)
	}
	got, _ := storedState(t, m, "f")
	want, _ := storedState(t, m, "fresh")
	if got != want {
		t.Fatalf("after the migration and an update the collection differs from a fresh import:\nupdated\n%s\nimported\n%s", got, want)
	}
	sameCollection(t, m, "f", p, gb)
}
