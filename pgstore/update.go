package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/flowreader/flowreader/graph"
)

// Update makes the collection hold g's documents, in one transaction that
// commits whole or not at all: documents of g the collection lacks are
// added, those whose nodes changed (by a hash of their content and
// embeddings) are replaced, those g lacks are removed, and the nodes of the
// others stay, with their edges brought to g's. g is the whole new
// collection, as graph.Builder.Update or a fresh build makes it. docs, when
// given, supply titles and metadata (matched by ID).
//
// base is the version the update was made from (Collection.Version): when
// another writer committed since, Update changes nothing and fails with
// ErrConflict, so that no update silently undoes another. Writers of one
// collection are serialised by a lock on its row; readers are never
// blocked and read the previous version until the commit. It returns the
// new version.
func (s *Store) Update(ctx context.Context, name string, base int64, g *graph.Graph, docs ...graph.Document) (int64, error) {
	if g == nil || len(g.Nodes) == 0 {
		return 0, fmt.Errorf("%w: update %q: a graph without nodes", ErrInput, name)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, wrap("update", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	var (
		id      int32
		version int64
		dim     int
		i8      bool
		nextSeq int64
		ann     bool
	)
	err = tx.QueryRow(ctx, `SELECT id, version, dim, int8, next_seq, ann FROM flowreader.collections WHERE name = $1 FOR UPDATE`, name).Scan(&id, &version, &dim, &i8, &nextSeq, &ann)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("pgstore: update %q: %w", name, errNotFound)
	}
	if err != nil {
		return 0, wrap("update", err)
	}
	if version != base {
		return 0, fmt.Errorf("pgstore: update %q: %w (base %d, now %d)", name, ErrConflict, base, version)
	}
	if dim != g.Dim || i8 != g.Int8Embeddings() {
		return 0, fmt.Errorf("%w: update %q: graph of dimension %d (int8 %v), collection %d (int8 %v)", ErrInput, name, g.Dim, g.Int8Embeddings(), dim, i8)
	}

	// The documents, old and new.
	old := map[string][]byte{}
	rows, err := tx.Query(ctx, `SELECT id, hash FROM flowreader.documents WHERE coll = $1`, id)
	if err != nil {
		return 0, wrap("update", err)
	}
	for rows.Next() {
		var d string
		var h []byte
		if err := rows.Scan(&d, &h); err != nil {
			rows.Close()
			return 0, wrap("update", err)
		}
		old[d] = h
	}
	if err := rows.Err(); err != nil {
		return 0, wrap("update", err)
	}
	hashes := docHashes(g)
	keep := map[string]bool{}
	var gone []string
	inNew := map[string]bool{}
	for _, h := range hashes {
		inNew[h.id] = true
		if o, ok := old[h.id]; ok && string(o) == string(h.sum[:]) {
			keep[h.id] = true
		}
	}
	for d := range old {
		if !keep[d] {
			gone = append(gone, d)
		}
	}

	// Remove the replaced and removed documents' nodes.
	if len(gone) > 0 {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE gone ON COMMIT DROP AS SELECT seq FROM flowreader.nodes WHERE coll = $1 AND doc = ANY($2)`, id, gone); err != nil {
			return 0, wrap("update", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE flowreader.terms t SET df = t.df - x.c
FROM (SELECT p.term, count(*) AS c FROM flowreader.postings p JOIN gone USING (seq) WHERE p.coll = $1 GROUP BY p.term) x
WHERE t.coll = $1 AND t.id = x.term`, id); err != nil {
			return 0, wrap("update", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE flowreader.keywords k SET df = k.df - x.c
FROM (SELECT kw, count(*) AS c FROM flowreader.cands c JOIN gone USING (seq) CROSS JOIN LATERAL unnest(c.kwnorm) kw WHERE c.coll = $1 GROUP BY kw) x
WHERE k.coll = $1 AND k.kw = x.kw`, id); err != nil {
			return 0, wrap("update", err)
		}
		tables := []string{"nodes", "cands", "sketches", "postings", "refs", "titles"}
		if ann {
			tables = append(tables, "ann")
		}
		for _, t := range tables {
			if _, err := tx.Exec(ctx, `DELETE FROM flowreader.`+t+` x USING gone WHERE x.coll = $1 AND x.seq = gone.seq`, id); err != nil {
				return 0, wrap("update", err)
			}
		}
		for _, t := range []string{"terms", "keywords"} {
			if _, err := tx.Exec(ctx, `DELETE FROM flowreader.`+t+` WHERE coll = $1 AND df <= 0`, id); err != nil {
				return 0, wrap("update", err)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM flowreader.documents WHERE coll = $1 AND id = ANY($2)`, id, gone); err != nil {
			return 0, wrap("update", err)
		}
	}

	// Node i of g is a kept node's seq (a kept document's nodes in order)
	// or a new one's, numbered after the collection's in g's order.
	kept := map[string][]int64{}
	rows, err = tx.Query(ctx, `SELECT doc, seq FROM flowreader.nodes WHERE coll = $1 ORDER BY seq`, id)
	if err != nil {
		return 0, wrap("update", err)
	}
	for rows.Next() {
		var d string
		var seq int64
		if err := rows.Scan(&d, &seq); err != nil {
			rows.Close()
			return 0, wrap("update", err)
		}
		kept[d] = append(kept[d], seq)
	}
	if err := rows.Err(); err != nil {
		return 0, wrap("update", err)
	}
	w := &writer{tx: tx, coll: id, g: g, seq: make([]int64, len(g.Nodes)), noCopy: s.noCopy, ann: ann}
	var fresh, stay []int
	used := map[string]int{}
	for i := range g.Nodes {
		d := g.Nodes[i].Doc
		if keep[d] {
			k := used[d]
			if k >= len(kept[d]) {
				return 0, fmt.Errorf("pgstore: update %q: document %q has more nodes than stored", name, d)
			}
			w.seq[i] = kept[d][k]
			used[d] = k + 1
			stay = append(stay, i)
			continue
		}
		w.seq[i] = nextSeq
		nextSeq++
		fresh = append(fresh, i)
	}
	if err := w.write(ctx, fresh); err != nil {
		return 0, err
	}
	if err := w.relink(ctx, stay); err != nil {
		return 0, err
	}
	if err := w.documents(ctx, docs, keep); err != nil {
		return 0, err
	}
	if err := refreshStats(ctx, tx, id); err != nil {
		return 0, err
	}
	// The changes log: what replicas' sketches follow.
	added := make([]int64, len(fresh))
	for k, i := range fresh {
		added[k] = w.seq[i]
	}
	removed := []int64{}
	if len(gone) > 0 {
		if err := tx.QueryRow(ctx, `SELECT coalesce(array_agg(seq ORDER BY seq), '{}') FROM gone`).Scan(&removed); err != nil {
			return 0, wrap("update", err)
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO flowreader.changes (coll, version, added, removed) SELECT $1, version, $2, $3 FROM flowreader.collections WHERE id = $1`,
		id, added, removed); err != nil {
		return 0, wrap("update", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE flowreader.collections SET next_seq = greatest(next_seq, $2) WHERE id = $1`, id, nextSeq); err != nil {
		return 0, wrap("update", err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_notify('flowreader', $1)`, name); err != nil {
		return 0, wrap("update", err)
	}
	var nv int64
	if err := tx.QueryRow(ctx, `SELECT version FROM flowreader.collections WHERE id = $1`, id).Scan(&nv); err != nil {
		return 0, wrap("update", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, wrap("update", err)
	}
	return nv, nil
}

// relink brings the kept nodes' edges and title mentions to g's: the new
// arrays go to a temporary table by COPY, and only the rows that differ
// are rewritten.
func (w *writer) relink(ctx context.Context, nodes []int) error {
	if len(nodes) == 0 {
		return nil
	}
	if _, err := w.tx.Exec(ctx, `CREATE TEMP TABLE relink (seq int8, names int8[], adj bytea) ON COMMIT DROP`); err != nil {
		return wrap("update edges", err)
	}
	names := w.names()
	k := 0
	_, err := w.copy(ctx, pgx.Identifier{"relink"}, []string{"seq", "names", "adj"}, pgx.CopyFromFunc(func() ([]any, error) {
		if k >= len(nodes) {
			return nil, nil
		}
		i := nodes[k]
		k++
		nm, adj := w.links(i, names)
		return []any{w.seqOf(i), nm, adj}, nil
	}))
	if err != nil {
		return wrap("update edges", err)
	}
	_, err = w.tx.Exec(ctx, `UPDATE flowreader.cands n SET names = r.names, adj = r.adj
FROM relink r WHERE n.coll = $1 AND n.seq = r.seq
AND (n.names, n.adj) IS DISTINCT FROM (r.names, r.adj)`, w.coll)
	return wrap("update edges", err)
}
