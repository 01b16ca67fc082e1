package pgstore

import (
	"context"
	"testing"

	"github.com/flowreader/flowreader"
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
DROP TABLE flowreader.keywords;
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
