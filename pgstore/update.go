package pgstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/mention"
	"github.com/flowreader/flowreader/internal/scorehook"
)

// Update makes the collection hold g's documents, in one transaction that
// commits whole or not at all: documents of g the collection lacks are
// added, those whose nodes changed are replaced, those g lacks are
// removed, and the nodes of the others stay, with their edges brought to
// g's. g is the whole new collection, as graph.Builder.Update or a fresh
// build makes it. docs, when given, supply titles and metadata (matched
// by ID).
//
// diff, when not nil, says which documents changed: the Diff
// graph.Builder.Update (or Pipeline.Update) returned with g, made from the
// graph the collection holds at base. The documents it does not name are
// then taken as unchanged without reading their nodes, so the update's
// cost follows the change rather than the collection. It is checked
// against the collection by IDs and node counts (every document it adds is
// new, every one it replaces or removes is there, every other document of
// g is there with as many nodes, and every stored document g lacks is
// removed), and an update it does not match fails with ErrInput and
// writes nothing; a document whose content changed under an unchanged
// node count is not caught by that check, so give only a Diff made from
// the collection's own graph. With diff nil every document of g is
// compared with the stored one by a hash of its nodes' content and
// embeddings.
//
// base is the version the update was made from (Collection.Version): when
// another writer committed since, Update changes nothing and fails with
// ErrConflict, so that no update silently undoes another. Writers of one
// collection are serialised by a lock on its row; readers are never
// blocked and read the previous version until the commit. It returns the
// new version.
//
// The database work is proportional to what changed, not to the
// collection: the removed nodes' rows are found by their keys (their
// terms recomputed from their stored text), the kept documents' links are
// rewritten only where a document's hash of them differs, and the
// statistics are brought from the old ones by the nodes added and removed.
func (s *Store) Update(ctx context.Context, name string, base int64, g *graph.Graph, diff *graph.Diff, docs ...graph.Document) (int64, error) {
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
		st      collStats
	)
	err = tx.QueryRow(ctx, `SELECT id, version, dim, int8, next_seq, ann, nodes, total_len, max_sum_len, emb_sum FROM flowreader.collections WHERE name = $1 FOR UPDATE`, name).
		Scan(&id, &version, &dim, &i8, &nextSeq, &ann, &st.n, &st.total, &st.maxSum, &st.emb)
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
	if len(st.emb) != dim {
		st.emb = make([]float64, dim)
	}
	s.stage("lock")

	// The documents, old and new: one row a document (its node hash only
	// when there is no Diff to say what changed).
	old := map[string]oldDoc{}
	rows, err := tx.Query(ctx, `SELECT id, CASE WHEN $2 THEN hash END, nodes, links, ranges FROM flowreader.documents WHERE coll = $1`, id, diff == nil)
	if err != nil {
		return 0, wrap("update", err)
	}
	for rows.Next() {
		var d string
		var o oldDoc
		var r []int64
		if err := rows.Scan(&d, &o.hash, &o.nodes, &o.links, &r); err != nil {
			rows.Close()
			return 0, wrap("update", err)
		}
		for k := 0; k+1 < len(r); k += 2 {
			for v := r[k]; v <= r[k+1]; v++ {
				o.seqs = append(o.seqs, v)
			}
		}
		old[d] = o
	}
	if err := rows.Err(); err != nil {
		return 0, wrap("update", err)
	}
	s.stage("read documents")
	var hashes []docHash
	keep := map[string]bool{}
	if diff == nil {
		hashes = docHashes(g, nil)
		for _, h := range hashes {
			if o, ok := old[h.id]; ok && string(o.hash) == string(h.sum[:]) {
				keep[h.id] = true
			}
		}
	} else {
		if keep, err = diffKeeps(g, diff, old); err != nil {
			return 0, fmt.Errorf("%w: update %q: %w", ErrInput, name, err)
		}
		hashes = docHashes(g, func(d string) bool { return !keep[d] })
	}
	s.stage("compare")
	var gone []string
	var goneSeqs []int64
	for _, d := range slices.Sorted(maps.Keys(old)) {
		if !keep[d] {
			gone = append(gone, d)
			goneSeqs = append(goneSeqs, old[d].seqs...)
		}
	}
	slices.Sort(goneSeqs)
	var dfs dfCounts
	if err := removeNodes(ctx, tx, id, i8, ann, goneSeqs, &st, &dfs); err != nil {
		return 0, err
	}
	if len(gone) > 0 {
		if _, err := tx.Exec(ctx, `DELETE FROM flowreader.documents WHERE coll = $1 AND id = ANY($2)`, id, gone); err != nil {
			return 0, wrap("update", err)
		}
	}
	s.stage("remove")

	// Node i of g is a kept node's seq (a kept document's nodes in order)
	// or a new one's, numbered after the collection's in g's order.
	w := &writer{tx: tx, coll: id, g: g, seq: make([]int64, len(g.Nodes)), noCopy: s.noCopy, ann: ann, dfs: dfs}
	var fresh []int
	used := map[string]int{}
	for i := range g.Nodes {
		d := g.Nodes[i].Doc
		if keep[d] {
			k := used[d]
			if k >= len(old[d].seqs) {
				return 0, fmt.Errorf("pgstore: update %q: document %q has more nodes than stored", name, d)
			}
			w.seq[i] = old[d].seqs[k]
			used[d] = k + 1
			continue
		}
		w.seq[i] = nextSeq
		nextSeq++
		fresh = append(fresh, i)
	}
	if err := w.write(ctx, fresh); err != nil {
		return 0, err
	}
	s.stage("write")
	// The kept nodes whose links (edges, title mentions) differ from the
	// stored ones, by their hashes: only their rows are rewritten.
	links := w.linkHashes()
	s.stage("link hashes")
	var stay []int
	clear(used)
	for i := range g.Nodes {
		d := g.Nodes[i].Doc
		if !keep[d] {
			continue
		}
		k := used[d]
		used[d] = k + 1
		if ls := old[d].links; len(ls) != len(old[d].seqs) || ls[k] != links[d][k] {
			stay = append(stay, i)
		}
	}
	w.relinked = map[string]bool{}
	for _, i := range stay {
		w.relinked[g.Nodes[i].Doc] = true
	}
	if err := w.relink(ctx, stay); err != nil {
		return 0, err
	}
	s.stage("relink")
	if err := w.documents(ctx, docs, keep, hashes, links); err != nil {
		return 0, err
	}
	s.stage("documents")
	// The statistics: the old ones less the removed nodes (removeNodes)
	// plus the added ones (write).
	st.n += w.st.n
	st.total += w.st.total
	for k, x := range w.st.emb {
		st.emb[k] += x
	}
	if st.maxSum < 0 { // a removed node had the longest summary
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(sum_len), 0) FROM flowreader.cands WHERE coll = $1`, id).Scan(&st.maxSum); err != nil {
			return 0, wrap("update", err)
		}
	}
	st.maxSum = max(st.maxSum, w.st.maxSum)
	if err := w.dfs.write(ctx, tx, id); err != nil {
		return 0, err
	}
	if err := writeStats(ctx, tx, id, st, nil); err != nil {
		return 0, err
	}
	s.stage("statistics")
	// The changes log: what replicas' sketches follow.
	added := make([]int64, len(fresh))
	for k, i := range fresh {
		added[k] = w.seq[i]
	}
	if goneSeqs == nil {
		goneSeqs = []int64{}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO flowreader.changes (coll, version, added, removed) SELECT $1, version, $2, $3 FROM flowreader.collections WHERE id = $1`,
		id, added, goneSeqs); err != nil {
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
	s.stage("commit")
	return nv, nil
}

// removeNodes deletes the nodes seqs (ascending) from every table by their
// keys, decrements the document frequencies of their terms and keywords,
// and takes them out of st (st.maxSum < 0 when one of them had the
// longest summary: the caller recomputes it). A node's postings are found
// by its terms, recomputed from its stored text as the writer computed
// them; the frequencies deleted must add up to its stored BM25 length, or
// the update fails.
func removeNodes(ctx context.Context, tx pgx.Tx, coll int32, i8, ann bool, seqs []int64, st *collStats, dfs *dfCounts) error {
	if len(seqs) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT c.seq, c.keywords, c.kwnorm, c.len, c.sum_len, c.refs, c.section, c.emb, c.scale, n.summary, n.content, n.caption
FROM flowreader.cands c JOIN flowreader.nodes n ON n.coll = c.coll AND n.seq = c.seq WHERE c.coll = $1 AND c.seq = ANY($2) ORDER BY c.seq`, coll, seqs)
	if err != nil {
		return wrap("update", err)
	}
	terms := scorehook.NewTerms()
	var (
		ids               []int32
		pTerm             []int32 // local term ids
		pSeq              []int64
		lens              = map[int64]float32{}
		kwDF              = map[string]int32{}
		refKeys, firsts   []string
		refSeqs, titleSeq []int64
		got               int
		maxGone           = int32(-1)
	)
	for rows.Next() {
		var (
			seq          int64
			nd           graph.Node
			kwnorm, refs []string
			ln, scale    float32
			sumLen       int32
			emb          []byte
		)
		if err := rows.Scan(&seq, &nd.Keywords, &kwnorm, &ln, &sumLen, &refs, &nd.Section, &emb, &scale, &nd.Summary, &nd.Content, &nd.Caption); err != nil {
			rows.Close()
			return wrap("update", err)
		}
		got++
		ids = terms.Append(ids[:0], &nd)
		slices.Sort(ids)
		ids = slices.Compact(ids)
		for _, t := range ids {
			pTerm, pSeq = append(pTerm, t), append(pSeq, seq)
		}
		lens[seq] = ln
		for _, k := range kwnorm {
			kwDF[k]++
		}
		for _, r := range refs {
			refKeys, refSeqs = append(refKeys, r), append(refSeqs, seq)
		}
		if f, ok := mention.TitleFirstWord(nd.Section, mention.Options{}); ok {
			firsts, titleSeq = append(firsts, f), append(titleSeq, seq)
		}
		st.n--
		st.total -= float64(ln)
		maxGone = max(maxGone, sumLen)
		addRow(st.emb, emb, scale, i8, -1)
	}
	if err := rows.Err(); err != nil {
		return wrap("update", err)
	}
	if got != len(seqs) {
		return fmt.Errorf("pgstore: update: %d of the %d removed nodes are stored", got, len(seqs))
	}
	if maxGone >= st.maxSum {
		st.maxSum = -1
	}
	// The terms' collection ids, then the postings by their keys; the
	// deleted frequencies per node must add up to its length.
	words := make([]string, terms.Len())
	for k := range words {
		words[k] = terms.Term(int32(k))
	}
	termID := make([]int32, len(words))
	for k := range termID {
		termID[k] = -1
	}
	trows, err := tx.Query(ctx, `SELECT u.ord, t.id FROM unnest($2::text[]) WITH ORDINALITY u(term, ord) JOIN flowreader.terms t ON t.coll = $1 AND t.term = u.term`, coll, words)
	if err != nil {
		return wrap("update", err)
	}
	for trows.Next() {
		var ord int64
		var tid int32
		if err := trows.Scan(&ord, &tid); err != nil {
			trows.Close()
			return wrap("update", err)
		}
		termID[ord-1] = tid
	}
	if err := trows.Err(); err != nil {
		return wrap("update", err)
	}
	for k, t := range pTerm {
		if termID[t] < 0 {
			return fmt.Errorf("pgstore: update: removed node %d has term %q, which the collection lacks", pSeq[k], words[t])
		}
		pTerm[k] = termID[t]
	}
	drows, err := tx.Query(ctx, `WITH del AS (
	DELETE FROM flowreader.postings p USING unnest($2::int4[], $3::int8[]) u(term, seq)
	WHERE p.coll = $1 AND p.term = u.term AND p.seq = u.seq RETURNING p.term, p.seq, p.tf),
dec AS (UPDATE flowreader.terms t SET df = t.df - x.c FROM (SELECT term, count(*) AS c FROM del GROUP BY term) x WHERE t.coll = $1 AND t.id = x.term
	RETURNING t.df, x.c)
SELECT false, seq, sum(tf::float8) FROM del GROUP BY seq
UNION ALL SELECT true, df, c FROM dec`, coll, pTerm, pSeq)
	if err != nil {
		return wrap("update", err)
	}
	sums := map[int64]float64{}
	for drows.Next() {
		var term bool
		var seq int64 // a term's new frequency when term
		var sum float64
		if err := drows.Scan(&term, &seq, &sum); err != nil {
			drows.Close()
			return wrap("update", err)
		}
		if term {
			dfs.move(int32(seq)+int32(sum), int32(seq))
			continue
		}
		sums[seq] = sum
	}
	if err := drows.Err(); err != nil {
		return wrap("update", err)
	}
	for seq, ln := range lens {
		if sums[seq] != float64(ln) {
			return fmt.Errorf("pgstore: update: removed node %d: its postings' frequencies add up to %v, its length is %v", seq, sums[seq], ln)
		}
	}
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM flowreader.terms WHERE coll = $1 AND id = ANY($2) AND df <= 0`, coll, pTerm)
	if len(kwDF) > 0 {
		kws := slices.Sorted(maps.Keys(kwDF))
		dfs := make([]int32, len(kws))
		for k, kw := range kws {
			dfs[k] = kwDF[kw]
		}
		b.Queue(`UPDATE flowreader.keywords k SET df = k.df - u.c FROM unnest($2::text[], $3::int4[]) u(kw, c) WHERE k.coll = $1 AND k.kw = u.kw`, coll, kws, dfs)
		b.Queue(`DELETE FROM flowreader.keywords WHERE coll = $1 AND kw = ANY($2) AND df <= 0`, coll, kws)
	}
	b.Queue(`DELETE FROM flowreader.refs r USING unnest($2::text[], $3::int8[]) u(key, seq) WHERE r.coll = $1 AND r.key = u.key AND r.seq = u.seq`, coll, nonNil(refKeys), refSeqs)
	b.Queue(`DELETE FROM flowreader.titles t USING unnest($2::text[], $3::int8[]) u(first, seq) WHERE t.coll = $1 AND t.first = u.first AND t.seq = u.seq`, coll, nonNil(firsts), titleSeq)
	tables := []string{"nodes", "cands", "sketches"}
	if ann {
		tables = append(tables, "ann")
	}
	for _, t := range tables {
		b.Queue(`DELETE FROM flowreader.`+t+` WHERE coll = $1 AND seq = ANY($2)`, coll, seqs)
	}
	return wrap("update", tx.SendBatch(ctx, b).Close())
}

// linkHashes returns a 64-bit hash (FNV-1a) of each node's links in w.g
// (its title mentions and adjacency in seqs, as links encodes them), by
// document ID, in node order. It allocates nothing a node: it runs over
// every node of the collection on every update.
func (w *writer) linkHashes() map[string][]int64 {
	names := w.names()
	out := map[string][]int64{}
	var (
		b     []byte
		nbrs  []int64
		kinds []int16
		doc   string
		cur   []int64
	)
	for i := range w.g.Nodes {
		if d := w.g.Nodes[i].Doc; i == 0 || d != doc {
			if i > 0 {
				out[doc] = cur
			}
			doc, cur = d, out[d]
		}
		b = binary.AppendVarint(b[:0], w.seqOf(i))
		b = binary.AppendUvarint(b, uint64(len(names[i])))
		for _, v := range names[i] {
			b = binary.AppendVarint(b, w.seqOf(int(v)))
		}
		nb, es := w.g.Neighbors(i)
		nbrs, kinds = nbrs[:0], kinds[:0]
		for j, v := range nb {
			nbrs, kinds = append(nbrs, w.seqOf(int(v))), append(kinds, int16(w.g.Edges[es[j]].Kind))
		}
		sortLinks(nbrs, kinds)
		b = appendAdj(b, nbrs, kinds)
		h := uint64(14695981039346656037)
		for _, c := range b {
			h = (h ^ uint64(c)) * 1099511628211
		}
		cur = append(cur, int64(h))
	}
	out[doc] = cur
	return out
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

// oldDoc is what an update reads of a stored document.
type oldDoc struct {
	hash        []byte // nil when not read
	nodes       int32
	links, seqs []int64
}

// errDiff is a Diff that does not describe the change from the collection
// to the new graph.
var errDiff = errors.New("the Diff does not match the collection")

// diffKeeps returns the documents of g that diff leaves unchanged, having
// checked diff against the collection's documents old and g's: every
// document it adds is new to the collection, every one it replaces or
// removes is stored, the added and replaced ones are g's and the removed
// ones are not, every other document of g is stored with as many nodes,
// and every stored document g lacks is removed. Only IDs and node counts
// are compared, so the check costs a pass over g's nodes.
func diffKeeps(g *graph.Graph, diff *graph.Diff, old map[string]oldDoc) (map[string]bool, error) {
	count := map[string]int32{}
	for i := range g.Nodes {
		count[g.Nodes[i].Doc]++
	}
	named := map[string]string{}
	for _, l := range []struct {
		what string
		ids  []string
	}{{"added", diff.Added}, {"replaced", diff.Replaced}, {"removed", diff.Removed}} {
		for _, d := range l.ids {
			if w, ok := named[d]; ok {
				return nil, fmt.Errorf("%w: document %q is both %s and %s", errDiff, d, w, l.what)
			}
			named[d] = l.what
			_, stored := old[d]
			_, inG := count[d]
			switch {
			case l.what == "added" && stored:
				return nil, fmt.Errorf("%w: added document %q is already stored", errDiff, d)
			case l.what != "added" && !stored:
				return nil, fmt.Errorf("%w: %s document %q is not stored", errDiff, l.what, d)
			case l.what == "removed" && inG:
				return nil, fmt.Errorf("%w: removed document %q has nodes in the graph", errDiff, d)
			case l.what != "removed" && !inG:
				return nil, fmt.Errorf("%w: %s document %q has no nodes in the graph", errDiff, l.what, d)
			}
		}
	}
	keep := map[string]bool{}
	for d, n := range count {
		if _, ok := named[d]; ok {
			continue
		}
		o, stored := old[d]
		switch {
		case !stored:
			return nil, fmt.Errorf("%w: document %q is new but not added", errDiff, d)
		case o.nodes != n || len(o.seqs) != int(n):
			return nil, fmt.Errorf("%w: document %q has %d nodes, %d stored, but is not replaced", errDiff, d, n, o.nodes)
		}
		keep[d] = true
	}
	for d := range old {
		if _, ok := count[d]; !ok && named[d] != "removed" {
			return nil, fmt.Errorf("%w: stored document %q is not in the graph but not removed", errDiff, d)
		}
	}
	return keep, nil
}
