package pgstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/graphhook"
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
// terms recomputed from their stored text), the statistics are brought
// from the old ones by the nodes added and removed, and the links (edges,
// title mentions) of only the kept nodes whose links changed are
// rewritten. A Diff from graph.Builder.Update, given with the graph it
// returned with it, names the kept nodes whose edges changed, and those
// whose title mentions changed are found by comparing the old
// collection's (the kept nodes and the removed ones) with the new; without
// such a Diff (nil, made by hand, or given with another graph, such as a
// copy read back from a file) every kept node's links are hashed and
// compared with the stored hashes. What stays proportional to the
// collection: a pass over g's documents and the stored ones (one row a
// document: ID, node count, seq ranges), the kept documents' titles and
// metadata (compared in SQL), and, when the collection has titles, the
// title mentions over every text (in memory).
func (s *Store) Update(ctx context.Context, name string, base int64, g *graph.Graph, diff *graph.Diff, docs ...graph.Document) (int64, error) {
	if g == nil || len(g.Nodes) == 0 {
		return 0, fmt.Errorf("%w: update %q: a graph without nodes", ErrInput, name)
	}
	// What the Diff says of the kept nodes' links: a Diff from
	// graph.Builder.Update names those whose edges changed in the graph
	// it returned with it; a Diff made otherwise, or given with another
	// graph, says nothing of g's edges, and every kept node's links are
	// compared.
	var relinked []int32
	known := false
	if diff != nil {
		relinked, known = graphhook.DiffRelinked(diff, g)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, wrap("update", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	// Every statement of an update reads and writes rows by their keys,
	// in number the change's: a sequential scan of a collection's table
	// is never what it means. The planner may still pick one where it
	// costs less than a few thousand index probes (terms, keywords and
	// candidate rows at 100k), which makes the commit grow with the
	// collection; this transaction's setting tells it not to. (The scan
	// of a temporary table, which has no index, then costs more than
	// jit_above_cost, and JIT compiled the relink statement for most of
	// a second: no statement here is worth compiling.)
	if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off; SET LOCAL jit = off`); err != nil {
		return 0, wrap("update", err)
	}
	var (
		id      int32
		version int64
		dim     int
		i8      bool
		nextSeq int64
		ann     bool
		st      collStats
	)
	var keepsCopies bool
	err = tx.QueryRow(ctx, `SELECT id, version, dim, int8, next_seq, ann, nodes, total_len, max_sum_len, emb_sum, copies FROM flowreader.collections WHERE name = $1 FOR UPDATE`, name).
		Scan(&id, &version, &dim, &i8, &nextSeq, &ann, &st.n, &st.total, &st.maxSum, &st.emb, &keepsCopies)
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

	// The documents, old and new: one row a document, its nodes as seq
	// ranges (its node hash only when there is no Diff to say which
	// documents changed, its nodes' link hashes only when nothing says
	// which kept nodes' links changed).
	old := map[string]oldDoc{}
	rows, err := tx.Query(ctx, `SELECT id, CASE WHEN $2 THEN hash END, nodes, CASE WHEN $3 THEN links END, ranges FROM flowreader.documents WHERE coll = $1`, id, diff == nil, !known)
	if err != nil {
		return 0, wrap("update", err)
	}
	for rows.Next() {
		var d string
		var o oldDoc
		if err := rows.Scan(&d, &o.hash, &o.nodes, &o.links, &o.ranges); err != nil {
			rows.Close()
			return 0, wrap("update", err)
		}
		old[d] = o
	}
	if err := rows.Err(); err != nil {
		return 0, wrap("update", err)
	}
	s.stage("read documents")
	runs := docRuns(g)
	var hashes []docHash
	keep := map[string]bool{}
	if diff == nil {
		hashes = docHashes(g, runs, nil)
		for _, h := range hashes {
			if o, ok := old[h.id]; ok && string(o.hash) == string(h.sum[:]) {
				keep[h.id] = true
			}
		}
	} else {
		if keep, err = diffKeeps(runs, diff, old); err != nil {
			return 0, fmt.Errorf("%w: update %q: %w", ErrInput, name, err)
		}
		hashes = docHashes(g, runs, func(d string) bool { return !keep[d] })
	}
	// Node i of g is a kept node's seq (a kept document's nodes in order
	// take its stored seqs in order) or a new one's, numbered after the
	// collection's in g's order: one base seq a run of new nodes.
	m := &seqMap{runs: runs, old: old, base: make([]int64, len(runs))}
	var fresh []int
	for k, r := range runs {
		if keep[r.doc] {
			m.base[k] = -1
			continue
		}
		m.base[k] = nextSeq
		nextSeq += int64(r.n)
		for i := r.start; i < r.start+r.n; i++ {
			fresh = append(fresh, i)
		}
	}
	for _, r := range runs {
		if o := old[r.doc]; keep[r.doc] && (r.off+r.n > int(o.nodes) || rangesLen(o.ranges) != int64(o.nodes)) {
			return 0, fmt.Errorf("pgstore: update %q: document %q has more nodes than stored", name, r.doc)
		}
	}
	if known {
		for _, i := range relinked {
			if i < 0 || int(i) >= len(g.Nodes) || !keep[g.Nodes[i].Doc] {
				return 0, fmt.Errorf("%w: update %q: %w: it reports node %d relinked, not a kept node of the graph", ErrInput, name, errDiff, i)
			}
		}
	}
	s.stage("compare")
	var gone []string
	var goneSeqs []int64
	for _, d := range slices.Sorted(maps.Keys(old)) {
		if !keep[d] {
			gone = append(gone, d)
			for _, p := range seqPairs(old[d].ranges) {
				for v := p[0]; v <= p[1]; v++ {
					goneSeqs = append(goneSeqs, v)
				}
			}
		}
	}
	slices.Sort(goneSeqs)
	// The content classes the update changes, found before the removed
	// nodes' rows (and their stored classes) are deleted.
	var cu *copyUpdate
	var newClass []int32
	var oldCopies map[int64]int64
	if keepsCopies {
		idx := newSeqIndex(m)
		var rl []int32
		if known {
			rl = relinked
		} else {
			rl = changedLinks(&writer{tx: tx, coll: id, g: g, at: m.seq, runs: runs}, old, keep)
		}
		if cu, err = regionCopies(ctx, tx, id, g, m, idx, fresh, rl, goneSeqs); err != nil {
			return 0, err
		}
		if titledGraph(g) {
			if oldCopies, err = storedClasses(ctx, tx, id); err != nil {
				return 0, err
			}
			newClass = classVector(g, idx, cu, oldCopies)
		}
	}
	s.stage("content classes")
	var dfs dfCounts
	var goneNonRep map[int64]bool
	if cu != nil {
		goneNonRep = cu.goneNonRep
	}
	goneNodes, err := removeNodes(ctx, tx, id, i8, ann, goneSeqs, goneNonRep, &st, &dfs)
	if err != nil {
		return 0, err
	}
	if len(gone) > 0 {
		if _, err := tx.Exec(ctx, `DELETE FROM flowreader.documents WHERE coll = $1 AND id = ANY($2)`, id, gone); err != nil {
			return 0, wrap("update", err)
		}
	}
	s.stage("remove")

	w := &writer{tx: tx, coll: id, g: g, at: m.seq, runs: runs, noCopy: s.noCopy, ann: ann, dfs: dfs, class: newClass, oldCopies: oldCopies}
	if cu != nil {
		w.copies = func(i int) []int64 {
			if c := cu.class[i]; c != nil {
				return rowCopies(cu.seqs(m, c), m.seq(i))
			}
			return nil
		}
	}
	if err := w.write(ctx, fresh); err != nil {
		return 0, err
	}
	// The collection's contents: the nodes less those holding a lower
	// node's content.
	contents := int64(len(fresh)) - w.nonReps - int64(len(goneSeqs)-len(goneNonRep))
	if cu != nil {
		d, err := cu.write(ctx, tx, id, m)
		if err != nil {
			return 0, err
		}
		contents += d
	}
	if _, err := tx.Exec(ctx, `UPDATE flowreader.collections SET contents = contents + $2 WHERE id = $1`, id, contents); err != nil {
		return 0, wrap("update", err)
	}
	s.stage("write")
	// The kept nodes whose links (edges, title mentions) differ from the
	// stored ones: the Diff's, and those whose title mentions changed;
	// else those whose links' hashes differ from the stored hashes.
	var stay []int
	var links map[string][]int64 // the written documents' (and without a report every document's) link hashes
	if known {
		for _, i := range relinked {
			stay = append(stay, int(i))
		}
		stay = append(stay, w.renamed(keep, goneNodes)...)
		slices.Sort(stay)
		stay = slices.Compact(stay)
		links = map[string][]int64{}
		var b []byte
		var h int64
		for _, r := range runs {
			if !keep[r.doc] {
				for i := r.start; i < r.start+r.n; i++ {
					h, b = w.linkHash(i, b)
					links[r.doc] = append(links[r.doc], h)
				}
			}
		}
	} else {
		links = w.linkHashes()
		used := map[string]int{}
		for i := range g.Nodes {
			d := g.Nodes[i].Doc
			if !keep[d] {
				continue
			}
			k := used[d]
			used[d] = k + 1
			if ls := old[d].links; len(ls) != int(old[d].nodes) || ls[k] != links[d][k] {
				stay = append(stay, i)
			}
		}
		w.relinked = map[string]bool{}
		for _, i := range stay {
			w.relinked[g.Nodes[i].Doc] = true
		}
	}
	s.stage("link hashes")
	if err := w.relink(ctx, stay); err != nil {
		return 0, err
	}
	if known {
		if err := w.rehash(ctx, m, stay); err != nil {
			return 0, err
		}
	}
	if s.trace != nil {
		s.stage(fmt.Sprintf("relink (%d nodes)", len(stay)))
	}
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
	// The collection's seqs: the kept documents' ranges and the new
	// runs'.
	var flat [][]int64
	for d, o := range old {
		if keep[d] {
			flat = append(flat, o.ranges)
		}
	}
	for k, r := range runs {
		if m.base[k] >= 0 {
			flat = append(flat, []int64{m.base[k], m.base[k] + int64(r.n) - 1})
		}
	}
	if err := writeStats(ctx, tx, id, st, seqPairs(flat...), false); err != nil {
		return 0, err
	}
	s.stage("statistics")
	// The changes log: what replicas' sketches follow.
	added := make([]int64, len(fresh))
	for k, i := range fresh {
		added[k] = w.seqOf(i)
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

// seqMap maps node i of an update's graph to its seq: a kept document's
// nodes take its stored seqs (its ranges) in order, a new run's nodes
// consecutive seqs from the run's base. It holds a few numbers a run, so
// that mapping the nodes an update touches costs nothing a node of the
// collection.
type seqMap struct {
	runs []docRun
	base []int64 // a new run's first seq; -1 for a kept document's run
	old  map[string]oldDoc
}

func (m *seqMap) seq(i int) int64 {
	k := sort.Search(len(m.runs), func(k int) bool { return m.runs[k].start > i }) - 1
	r := m.runs[k]
	if m.base[k] >= 0 {
		return m.base[k] + int64(i-r.start)
	}
	// The document's (r.off + i - r.start)-th seq, ascending.
	x := int64(r.off + i - r.start)
	rs := m.old[r.doc].ranges
	for j := 0; j+1 < len(rs); j += 2 {
		if x <= rs[j+1]-rs[j] {
			return rs[j] + x
		}
		x -= rs[j+1] - rs[j] + 1
	}
	return -1 // not reached: Update checks the kept documents' node counts
}

// rangesLen counts the seqs of flat inclusive ranges.
func rangesLen(rs []int64) int64 {
	n := int64(0)
	for j := 0; j+1 < len(rs); j += 2 {
		n += rs[j+1] - rs[j] + 1
	}
	return n
}

// changedLinks returns the kept nodes whose links differ from the stored
// ones (their link hashes; those of a document stored without them), for
// an update given no Diff of g's edges: the content classes' region needs
// the kept nodes whose edges changed before the classes, on which the
// title mentions of the links hashed later depend, are known. w (a writer
// of g with no classes) hashes title mentions counted without classes: a
// node whose mentions counted with them are the stored ones may be
// reported too, never one whose edges changed left out.
func changedLinks(w *writer, old map[string]oldDoc, keep map[string]bool) []int32 {
	links := w.linkHashes()
	used := map[string]int{}
	var out []int32
	for i := range w.g.Nodes {
		d := w.g.Nodes[i].Doc
		if !keep[d] {
			continue
		}
		k := used[d]
		used[d] = k + 1
		if ls := old[d].links; len(ls) != int(old[d].nodes) || ls[k] != links[d][k] {
			out = append(out, int32(i))
		}
	}
	return out
}

// fresh reports whether node i is a new one (of a written document).
func (m *seqMap) fresh(i int) bool {
	k := sort.Search(len(m.runs), func(k int) bool { return m.runs[k].start > i }) - 1
	return m.base[k] >= 0
}

// pos returns node i's position among its document's nodes.
func (m *seqMap) pos(i int) (string, int) {
	k := sort.Search(len(m.runs), func(k int) bool { return m.runs[k].start > i }) - 1
	r := m.runs[k]
	return r.doc, r.off + i - r.start
}

// renamed returns the kept nodes of w.g (not in a document keep lacks)
// whose title mentions differ from those the collection stores: those of
// the old collection (the kept nodes and the removed ones, gone) are
// found again and compared, in seqs. Title mentions are counted over the
// whole collection (a title named by more than 1 % of the texts names
// nothing), so this is a pass over every text, as writing the new nodes'
// mentions is; a collection without titles skips it.
func (w *writer) renamed(keep map[string]bool, gone []goneNode) []int {
	g := w.g
	titled := false
	for i := range g.Nodes {
		titled = titled || g.Nodes[i].Section != ""
	}
	for _, nd := range gone {
		titled = titled || nd.section != ""
	}
	if !titled {
		return nil
	}
	var texts, titles []string
	var seqs []int64 // of the old collection's nodes
	var kept []int   // the old collection's first nodes: g's
	for _, r := range w.runs {
		if keep[r.doc] {
			for i := r.start; i < r.start+r.n; i++ {
				texts, titles = append(texts, g.Nodes[i].Content), append(titles, g.Nodes[i].Section)
				seqs, kept = append(seqs, w.seqOf(i)), append(kept, i)
			}
		}
	}
	for _, nd := range gone {
		texts, titles, seqs = append(texts, nd.content), append(titles, nd.section), append(seqs, nd.seq)
	}
	var class []int32
	if w.oldCopies != nil {
		class = make([]int32, len(seqs))
		id := map[int64]int32{}
		for p, sq := range seqs {
			k := sq
			if lo, ok := w.oldCopies[sq]; ok {
				k = lo
			}
			c, ok := id[k]
			if !ok {
				c = int32(len(id))
				id[k] = c
			}
			class[p] = c
		}
	}
	was := mention.TitleMentions(texts, titles, mention.Options{Class: class})
	var out []int
	var a, b []int64
	for p, i := range kept {
		a = w.namedSeqs(a[:0], w.namesOf(i))
		b = b[:0]
		for _, v := range was[p] {
			b = append(b, seqs[v])
		}
		slices.Sort(b)
		if !slices.Equal(a, b) {
			out = append(out, i)
		}
	}
	return out
}

// rehash brings the stored link hashes of the kept nodes nodes (whose
// links relink rewrote) to w.g's, element by element in their documents'
// arrays; a document whose array is unknown (NULL, or not one hash a
// node) stays so, and the next update without a report rewrites its
// nodes' links.
func (w *writer) rehash(ctx context.Context, m *seqMap, nodes []int) error {
	if len(nodes) == 0 {
		return nil
	}
	// Per document, its changed positions (1-based) and hashes, as the
	// slice [lo, hi] of two flat arrays.
	type change struct {
		pos, h int64
	}
	byDoc := map[string][]change{}
	var b []byte
	for _, i := range nodes {
		d, p := m.pos(i)
		var h int64
		h, b = w.linkHash(i, b)
		byDoc[d] = append(byDoc[d], change{int64(p + 1), h})
	}
	var ids []string
	var los, his []int32
	var pos, hs []int64
	for _, d := range slices.Sorted(maps.Keys(byDoc)) {
		ids, los = append(ids, d), append(los, int32(len(pos)+1))
		for _, c := range byDoc[d] {
			pos, hs = append(pos, c.pos), append(hs, c.h)
		}
		his = append(his, int32(len(pos)))
	}
	_, err := w.tx.Exec(ctx, `UPDATE flowreader.documents d SET links = (
	SELECT array_agg(coalesce(c.h, e.v) ORDER BY e.ord)
	FROM unnest(d.links) WITH ORDINALITY e(v, ord)
	LEFT JOIN unnest(($5::int8[])[u.lo:u.hi], ($6::int8[])[u.lo:u.hi]) c(pos, h) ON c.pos = e.ord)
FROM unnest($2::text[], $3::int4[], $4::int4[]) u(id, lo, hi)
WHERE d.coll = $1 AND d.id = ANY($2) AND d.id = u.id AND cardinality(d.links) = d.nodes`, w.coll, ids, los, his, pos, hs)
	return wrap("update documents", err)
}

// goneNode is what an update keeps of a removed node: its seq, text and
// title (what the old collection's title mentions were found from).
type goneNode struct {
	seq              int64
	content, section string
}

// removeNodes deletes the nodes seqs (ascending) from every table by their
// keys, decrements the document frequencies of their terms and keywords,
// and takes them out of st (st.maxSum < 0 when one of them had the
// longest summary: the caller recomputes it). A node's postings are found
// by its terms, recomputed from its stored text as the writer computed
// them; the frequencies deleted must add up to its stored BM25 length, or
// the update fails. It returns the removed nodes' texts and titles.
func removeNodes(ctx context.Context, tx pgx.Tx, coll int32, i8, ann bool, seqs []int64, nonRep map[int64]bool, st *collStats, dfs *dfCounts) ([]goneNode, error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	var gone []goneNode
	rows, err := tx.Query(ctx, `SELECT c.seq, c.keywords, c.kwnorm, c.len, c.sum_len, c.refs, c.section, c.emb, c.scale, n.summary, n.content, n.caption
FROM flowreader.cands c JOIN flowreader.nodes n ON n.coll = c.coll AND n.seq = c.seq WHERE c.coll = $1 AND c.seq = ANY($2) ORDER BY c.seq`, coll, seqs)
	if err != nil {
		return nil, wrap("update", err)
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
			return nil, wrap("update", err)
		}
		got++
		gone = append(gone, goneNode{seq: seq, content: nd.Content, section: nd.Section})
		ids = terms.Append(ids[:0], &nd)
		slices.Sort(ids)
		ids = slices.Compact(ids)
		for _, t := range ids {
			pTerm, pSeq = append(pTerm, t), append(pSeq, seq)
		}
		lens[seq] = ln
		if !nonRep[seq] { // a copy of a lower node's content counted no keyword
			for _, k := range kwnorm {
				kwDF[k]++
			}
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
		return nil, wrap("update", err)
	}
	if got != len(seqs) {
		return nil, fmt.Errorf("pgstore: update: %d of the %d removed nodes are stored", got, len(seqs))
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
	// (term = ANY: the terms are read by their key; joined with the
	// array alone the planner may hash a scan of every term.)
	trows, err := tx.Query(ctx, `SELECT u.ord, t.id FROM unnest($2::text[]) WITH ORDINALITY u(term, ord)
JOIN flowreader.terms t ON t.coll = $1 AND t.term = ANY($2) AND t.term = u.term`, coll, words)
	if err != nil {
		return nil, wrap("update", err)
	}
	for trows.Next() {
		var ord int64
		var tid int32
		if err := trows.Scan(&ord, &tid); err != nil {
			trows.Close()
			return nil, wrap("update", err)
		}
		termID[ord-1] = tid
	}
	if err := trows.Err(); err != nil {
		return nil, wrap("update", err)
	}
	for k, t := range pTerm {
		if termID[t] < 0 {
			return nil, fmt.Errorf("pgstore: update: removed node %d has term %q, which the collection lacks", pSeq[k], words[t])
		}
		pTerm[k] = termID[t]
	}
	// The terms are updated by their key (coll, term), the term's text:
	// the table has no index on id, and a join on it would read every
	// term of the collection.
	var foundIDs []int32
	var found []string
	for k, tid := range termID {
		if tid >= 0 {
			foundIDs, found = append(foundIDs, tid), append(found, words[k])
		}
	}
	drows, err := tx.Query(ctx, `WITH del AS (
	DELETE FROM flowreader.postings p USING unnest($2::int4[], $3::int8[]) u(term, seq)
	WHERE p.coll = $1 AND p.term = u.term AND p.seq = u.seq RETURNING p.term, p.seq, p.tf),
dec AS (UPDATE flowreader.terms t SET df = t.df - x.c FROM (
		SELECT m.term, count(*) AS c FROM del JOIN unnest($4::int4[], $5::text[]) m(id, term) ON m.id = del.term GROUP BY m.term) x
	WHERE t.coll = $1 AND t.term = x.term
	RETURNING t.df, x.c)
SELECT false, seq, sum(tf::float8) FROM del GROUP BY seq
UNION ALL SELECT true, df, c FROM dec`, coll, pTerm, pSeq, foundIDs, found)
	if err != nil {
		return nil, wrap("update", err)
	}
	sums := map[int64]float64{}
	for drows.Next() {
		var term bool
		var seq int64 // a term's new frequency when term
		var sum float64
		if err := drows.Scan(&term, &seq, &sum); err != nil {
			drows.Close()
			return nil, wrap("update", err)
		}
		if term {
			dfs.move(int32(seq)+int32(sum), int32(seq))
			continue
		}
		sums[seq] = sum
	}
	if err := drows.Err(); err != nil {
		return nil, wrap("update", err)
	}
	for seq, ln := range lens {
		if sums[seq] != float64(ln) {
			return nil, fmt.Errorf("pgstore: update: removed node %d: its postings' frequencies add up to %v, its length is %v", seq, sums[seq], ln)
		}
	}
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM flowreader.terms WHERE coll = $1 AND term = ANY($2) AND df <= 0`, coll, found)
	if len(kwDF) > 0 {
		kws := slices.Sorted(maps.Keys(kwDF))
		dfs := make([]int32, len(kws))
		for k, kw := range kws {
			dfs[k] = kwDF[kw]
		}
		b.Queue(`UPDATE flowreader.keywords k SET df = k.df - u.c FROM unnest($2::text[], $3::int4[]) u(kw, c) WHERE k.coll = $1 AND k.kw = ANY($2) AND k.kw = u.kw`, coll, kws, dfs)
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
	return gone, wrap("update", tx.SendBatch(ctx, b).Close())
}

// linkHashes returns a 64-bit hash (linkHash) of each node's links in
// w.g, by document ID, in node order: every node of the collection, for an
// import and for an update that has no report of which kept nodes'
// links changed.
func (w *writer) linkHashes() map[string][]int64 {
	out := map[string][]int64{}
	var b []byte
	var h int64
	doc, cur := "", []int64(nil)
	for i := range w.g.Nodes {
		if d := w.g.Nodes[i].Doc; i == 0 || d != doc {
			if i > 0 {
				out[doc] = cur
			}
			doc, cur = d, out[d]
		}
		h, b = w.linkHash(i, b)
		cur = append(cur, h)
	}
	out[doc] = cur
	return out
}

// linkHash returns a 64-bit hash (FNV-1a) of node i's links (its seq,
// title mentions and adjacency in seqs, as links encodes them), with b as
// scratch space (returned for reuse). It allocates nothing once b has
// grown.
func (w *writer) linkHash(i int, b []byte) (int64, []byte) {
	named := w.namesOf(i)
	b = binary.AppendVarint(b[:0], w.seqOf(i))
	b = binary.AppendUvarint(b, uint64(len(named)))
	w.scratch = w.namedSeqs(w.scratch[:0], named)
	for _, v := range w.scratch {
		b = binary.AppendVarint(b, v)
	}
	nb, es := w.g.Neighbors(i)
	nbrs, kinds := w.nbrs[:0], w.kinds[:0]
	for j, v := range nb {
		nbrs, kinds = append(nbrs, w.seqOf(int(v))), append(kinds, int16(w.g.Edges[es[j]].Kind))
	}
	sortLinks(nbrs, kinds)
	w.nbrs, w.kinds = nbrs, kinds
	b = appendAdj(b, nbrs, kinds)
	return fnv64(b), b
}

// fnv64 is the 64-bit FNV-1a hash of b.
func fnv64(b []byte) int64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return int64(h)
}

// relink brings the kept nodes' edges and title mentions to g's: the new
// arrays go to a temporary table by COPY, and only the rows that differ
// are rewritten.
func (w *writer) relink(ctx context.Context, nodes []int) error {
	if len(nodes) == 0 {
		return nil
	}
	if _, err := w.tx.Exec(ctx, `CREATE TEMP TABLE relink (seq int8, names int8[], adj bytea, wts bytea, lists bytea) ON COMMIT DROP`); err != nil {
		return wrap("update edges", err)
	}
	k := 0
	_, err := w.copy(ctx, pgx.Identifier{"relink"}, []string{"seq", "names", "adj", "wts", "lists"}, pgx.CopyFromFunc(func() ([]any, error) {
		if k >= len(nodes) {
			return nil, nil
		}
		i := nodes[k]
		k++
		nm, adj, wts := w.links(i)
		nd := &w.g.Nodes[i]
		return []any{w.seqOf(i), nm, adj, wts, appendLists(nil, nd.Keywords, scorehook.NodeRefKeys(nd), nm)}, nil
	}))
	if err != nil {
		return wrap("update edges", err)
	}
	// The rows are also named by their keys (seq = ANY), so that the
	// planner reads them by the primary key: joined with the temporary
	// table alone it may hash-join a scan of every candidate row of the
	// collection (it did at 100k: a quarter of a second).
	seqs := make([]int64, len(nodes))
	for k, i := range nodes {
		seqs[k] = w.seqOf(i)
	}
	_, err = w.tx.Exec(ctx, `UPDATE flowreader.cands n SET names = r.names, adj = r.adj, wts = r.wts, lists = r.lists
FROM relink r WHERE n.coll = $1 AND n.seq = ANY($2) AND n.seq = r.seq
AND (n.names, n.adj, n.wts, n.lists) IS DISTINCT FROM (r.names, r.adj, r.wts, r.lists)`, w.coll, seqs)
	return wrap("update edges", err)
}

// oldDoc is what an update reads of a stored document.
type oldDoc struct {
	hash   []byte // nil when not read
	nodes  int32
	links  []int64 // nil when not read (or unknown)
	ranges []int64 // its nodes' seqs as inclusive ranges, flat
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
// are compared, so the check costs a pass over g's documents (its runs of
// nodes) and the stored ones.
func diffKeeps(runs []docRun, diff *graph.Diff, old map[string]oldDoc) (map[string]bool, error) {
	count := map[string]int32{}
	for _, r := range runs {
		count[r.doc] += int32(r.n)
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
		case o.nodes != n:
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
