package pgstore

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	pgvector "github.com/pgvector/pgvector-go"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/flowhook"
	"github.com/flowreader/flowreader/internal/graphhook"
	"github.com/flowreader/flowreader/internal/mention"
	"github.com/flowreader/flowreader/internal/scorehook"
	_ "github.com/flowreader/flowreader/score" // sets the scorehook functions
)

// entryCount is how many evenly spaced nodes the in-process candidate
// search starts from and estimates the mean relevance with (score's
// candidateEntries); the collection row lists them.
const entryCount = 1024

// Import creates the collection name from g, a graph as Pipeline.Build
// makes it or graph.Load reads it, in one transaction: the collection is
// there whole or not at all. docs, when given, supply the documents'
// titles and metadata (matched by ID); every document of g's nodes is
// stored either way. Node i of g is the collection's node i: a question
// over the collection reads what the in-process index over g reads.
//
// It fails with ErrExists when the name is taken and ErrInput for an
// invalid name or an empty graph.
func (s *Store) Import(ctx context.Context, name string, g *graph.Graph, docs ...graph.Document) error {
	if err := validName(name); err != nil {
		return err
	}
	if g == nil || len(g.Nodes) == 0 || g.Dim <= 0 {
		return fmt.Errorf("%w: import %q: a graph without nodes", ErrInput, name)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return wrap("import", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	var id int32
	// Version 0 until the statistics are written, which bump it: an
	// imported collection is at version 1, each update adds one.
	err = tx.QueryRow(ctx, `INSERT INTO flowreader.collections (name, dim, int8, embedder, image_root, version) VALUES ($1, $2, $3, $4, $5, 0) RETURNING id`,
		name, g.Dim, g.Int8Embeddings(), g.Embedder, g.ImageRoot).Scan(&id)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return fmt.Errorf("pgstore: import %q: %w", name, ErrExists)
	}
	if err != nil {
		return wrap("import", err)
	}
	w := &writer{tx: tx, coll: id, g: g, noCopy: s.noCopy, ann: s.ann}
	// The content classes, found over the whole graph (graph.Graph.Copies),
	// so that a question's candidates route and cite each content once, as
	// in-process. Finding them takes a third of a 1M import's time when
	// done first (98 s without them, 131 s with); they are found while the
	// database takes the nodes' text, which does not need them, and
	// awaited before the candidate rows, which do. (An import that fails
	// before them returns at once; the detection then finishes on its
	// own, into g's cache of its classes.)
	found := make(chan struct{})
	go func() {
		defer close(found)
		g.Copies(0)
	}()
	w.beforeCands = func() {
		<-found
		w.class = graphhook.Classes(g)
	}
	w.copies = func(i int) []int64 {
		cs := g.Copies(i)
		switch {
		case cs == nil:
			return nil
		case int(cs[0]) != i:
			return []int64{int64(cs[0]), int64(i)} // rowCopies
		}
		out := make([]int64, len(cs))
		for k, c := range cs {
			out[k] = int64(c)
		}
		return out
	}
	if w.ann {
		if _, err := tx.Exec(ctx, annTable); err != nil {
			return wrap("import", err)
		}
	}
	all := make([]int, len(g.Nodes))
	for i := range all {
		all[i] = i
	}
	if err := w.write(ctx, all); err != nil {
		return err
	}
	if err := w.documents(ctx, docs, nil, nil, nil); err != nil {
		return err
	}
	if w.ann {
		// The index is built once the rows are in: faster than row by row.
		if _, err := tx.Exec(ctx, annIndex(id, g.Dim)); err != nil {
			return wrap("import", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE flowreader.collections SET ann = true WHERE id = $1`, id); err != nil {
			return wrap("import", err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE flowreader.collections SET copies = true WHERE id = $1`, id); err != nil {
		return wrap("import", err)
	}
	if err := w.dfs.write(ctx, tx, id); err != nil {
		return err
	}
	if err := writeStats(ctx, tx, id, w.st, [][2]int64{{0, int64(len(g.Nodes)) - 1}}, true); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE flowreader.collections SET contents = nodes - $2 WHERE id = $1`, id, w.nonReps); err != nil {
		return wrap("import", err)
	}
	// The planner's statistics, so that the first questions find the
	// indexes (a large import changes the tables' sizes).
	an := `ANALYZE flowreader.nodes, flowreader.cands, flowreader.sketches, flowreader.terms, flowreader.postings, flowreader.refs, flowreader.titles, flowreader.documents`
	if w.ann {
		an += `, flowreader.ann`
	}
	if _, err := tx.Exec(ctx, an); err != nil {
		return wrap("import", err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_notify('flowreader', $1)`, name); err != nil {
		return wrap("import", err)
	}
	return wrap("import", tx.Commit(ctx))
}

// writer copies nodes of a graph into a collection.
type writer struct {
	tx   pgx.Tx
	coll int32
	g    *graph.Graph
	// at maps node i of g to its seq in the collection; nil means i.
	at func(i int) int64
	// runs are g's documents' runs of nodes (docRuns), when known.
	runs []docRun
	// named is what each node of g names by title (namesOf), when
	// namesFound; nil when no node has a title.
	namesFound bool
	named      [][]int32
	// noCopy writes by INSERT instead of COPY (see copy).
	noCopy bool
	// ann also writes the embeddings as halfvec, for pgvector's HNSW.
	ann bool
	// st accumulates the statistics of the nodes write writes, in the
	// order it writes them.
	st collStats
	// relinked are the kept documents of an update whose links changed.
	relinked map[string]bool
	// scratch, nbrs and kinds are linkHash's buffers.
	scratch, nbrs []int64
	kinds         []int16
	// dfs collects the changes to the collection's count of terms per
	// document frequency (flowreader.dfs) as terms are merged.
	dfs dfCounts
	// copies returns what node i's row stores of its content class
	// (rowCopies: the whole class for its lowest member, else its lowest
	// seq and its own; nil when it has no copy; graph.Graph.Copies, see
	// Import and Update); nil writes no class.
	copies func(i int) []int64
	// class is each node of g's content class (its lowest copy), for the
	// title mentions' counts (mention.Options.Class); nil: every node its
	// own content.
	class []int32
	// oldCopies is an update's stored classes before it (seq → its
	// class's lowest seq), for the old collection's title mentions.
	oldCopies map[int64]int64
	// nonReps counts the nodes write wrote that hold a lower node's
	// content (not counted in collections.contents nor keywords.df).
	nonReps int64
	// beforeCands, when set, runs before the candidate rows are written
	// (Import: it waits for the content classes found meanwhile).
	beforeCands func()
}

// namesOf returns the nodes node i of g names by title, over the whole
// graph, as score's hop step finds them: found for every node on first
// use, when some node of g has a title (a title is a node's Section; a
// graph without any names nothing, and costs no more than this check).
func (w *writer) namesOf(i int) []int32 {
	if !w.namesFound {
		w.namesFound = true
		g := w.g
		if titledGraph(g) {
			texts, titles := make([]string, len(g.Nodes)), make([]string, len(g.Nodes))
			for k := range g.Nodes {
				texts[k], titles[k] = g.Nodes[k].Content, g.Nodes[k].Section
			}
			w.named = mention.TitleMentions(texts, titles, mention.Options{Class: w.class})
		}
	}
	if w.named == nil {
		return nil
	}
	return w.named[i]
}

// links returns node i's title mentions and adjacency in seqs, and the
// weights (graph.Edge.Weight, as g has them) of its edges to the
// neighbours after it in seq order (appendWeights): each edge's weight is
// stored once, by its lower end, so that a question's subgraph takes
// them as they are instead of computing a cosine an edge.
func (w *writer) links(i int) (nm []int64, adj, wts []byte) {
	named := w.namesOf(i)
	nm = w.namedSeqs(make([]int64, 0, len(named)), named)
	nb, es := w.g.Neighbors(i)
	type link struct {
		seq  int64
		kind int16
		wt   float32
	}
	ls := make([]link, len(nb))
	for j, v := range nb {
		e := &w.g.Edges[es[j]]
		ls[j] = link{w.seqOf(int(v)), int16(e.Kind), e.Weight}
	}
	// Seqs ascend with node indexes on import; after an update a kept
	// node's neighbours may not: keep each array in ascending seq, the
	// order the expansion walks.
	slices.SortFunc(ls, func(a, b link) int { return cmp.Compare(a.seq, b.seq) })
	nbrs, kinds, weights := make([]int64, len(ls)), make([]int16, len(ls)), make([]float32, len(ls))
	for j, l := range ls {
		nbrs[j], kinds[j], weights[j] = l.seq, l.kind, l.wt
	}
	return nm, encodeAdj(nbrs, kinds), appendWeights(make([]byte, 0, 4*len(nbrs)), w.seqOf(i), nbrs, weights)
}

// appendWeights appends to b the weights of the edges from the node of
// seq own to its neighbours nbrs (seqs ascending, weights alongside) that
// come after it, as the cands.wts bytes: each weight's float32 bits,
// little-endian, in the neighbours' order. The edge to a neighbour before
// it is stored by that neighbour's row.
func appendWeights(b []byte, own int64, nbrs []int64, weights []float32) []byte {
	for j, v := range nbrs {
		if v > own {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(weights[j]))
		}
	}
	return b
}

// appendLists appends to b the lists a question reads of a node, packed
// as the cands.lists bytes: its keywords, then its reference keys (each
// list: the count as a uvarint, then per string its length as a uvarint
// and its bytes), then the seqs it names by title (ascending: the count,
// then the gaps from the previous seq, the first from 0, as uvarints).
// One bytea column instead of two text arrays and an int8 array: the
// database sends it, and the replica decodes it, without an array's
// per-element work (about 5 ms of the backend's CPU a question at 100k).
func appendLists(b []byte, keywords, refs []string, names []int64) []byte {
	for _, l := range [][]string{keywords, refs} {
		b = binary.AppendUvarint(b, uint64(len(l)))
		for _, x := range l {
			b = binary.AppendUvarint(b, uint64(len(x)))
			b = append(b, x...)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(names)))
	prev := int64(0)
	for _, v := range names {
		b = binary.AppendUvarint(b, uint64(v-prev))
		prev = v
	}
	return b
}

// errLists is a cands.lists value that appendLists did not make.
var errLists = errors.New("pgstore: corrupt node lists")

// decodeLists decodes appendLists's bytes (nil for an empty list). The
// strings share one allocation.
func decodeLists(b []byte) (keywords, refs []string, names []int64, err error) {
	all := string(b)
	at := 0
	uv := func() (uint64, bool) {
		x, k := binary.Uvarint(b[at:])
		if k <= 0 || k != uvarintLen(x) {
			return 0, false
		}
		at += k
		return x, true
	}
	var ls [2][]string
	for j := range ls {
		n, ok := uv()
		if !ok || n > uint64(len(b)-at) {
			return nil, nil, nil, errLists
		}
		if n > 0 {
			ls[j] = make([]string, n)
		}
		for i := range ls[j] {
			m, ok := uv()
			if !ok || m > uint64(len(b)-at) {
				return nil, nil, nil, errLists
			}
			ls[j][i] = all[at : at+int(m)]
			at += int(m)
		}
	}
	n, ok := uv()
	if !ok || n > uint64(len(b)-at) {
		return nil, nil, nil, errLists
	}
	if n > 0 {
		names = make([]int64, n)
	}
	prev := int64(0)
	for i := range names {
		d, ok := uv()
		if !ok || d > math.MaxInt64-uint64(prev) {
			return nil, nil, nil, errLists
		}
		prev += int64(d)
		names[i] = prev
	}
	if at != len(b) {
		return nil, nil, nil, errLists
	}
	return ls[0], ls[1], names, nil
}

// errWeights is a cands.wts value that does not fit its row's adjacency.
var errWeights = errors.New("pgstore: corrupt edge weights")

// weightsFrom returns the index in nbrs (seqs ascending) of the first
// neighbour after own, whose weight is the first of wts (appendWeights's
// bytes), and checks that wts holds one weight for each from there.
func weightsFrom(own int64, nbrs []int64, wts []byte) (int, error) {
	first, _ := slices.BinarySearch(nbrs, own+1)
	if len(wts) != 4*(len(nbrs)-first) {
		return 0, errWeights
	}
	return first, nil
}

// namedSeqs appends the seqs of the nodes named (node indexes of g) to
// dst, ascending: the order the store keeps a node's title mentions in,
// whatever the nodes' order in g.
func (w *writer) namedSeqs(dst []int64, named []int32) []int64 {
	for _, v := range named {
		dst = append(dst, w.seqOf(int(v)))
	}
	slices.Sort(dst)
	return dst
}

// ranks returns the position of each node of sel (node indexes of g) in
// its document's reading order, by sel's position: by Order, then node
// index, as the router's reading order has it. sel holds whole
// documents (every node of g of a document of sel is in sel): an import's
// every node, an update's new documents' nodes.
func (w *writer) ranks(sel []int) []int32 {
	g := w.g
	byDoc := map[string][]int{} // positions in sel
	for x, i := range sel {
		byDoc[g.Nodes[i].Doc] = append(byDoc[g.Nodes[i].Doc], x)
	}
	rank := make([]int32, len(sel))
	for _, xs := range byDoc {
		slices.SortStableFunc(xs, func(a, b int) int { return cmp.Compare(g.Nodes[sel[a]].Order, g.Nodes[sel[b]].Order) })
		for r, x := range xs {
			rank[x] = int32(r)
		}
	}
	return rank
}

// normKeywords is a node's keywords as the router counts them: normalised,
// empty ones dropped, each once, in first-seen order.
func normKeywords(kws []string) []string {
	out := make([]string, 0, len(kws))
	// Duplicates are found by a hash of each keyword kept beside it (a
	// question normalises the keywords of its 2,048 candidates, 16 each
	// on the synthetic collection: comparing strings pairwise was a few
	// ms of it), the strings compared only when the hashes are equal.
	var small [32]uint64
	hs := small[:0]
	for _, k := range kws {
		if k = flowhook.NormKeyword(k); k == "" {
			continue
		}
		h, dup := fnvString(k), false
		for j, x := range hs {
			if x == h && out[j] == k {
				dup = true
				break
			}
		}
		if !dup {
			out, hs = append(out, k), append(hs, h)
		}
	}
	return out
}

// fnvString is the 64-bit FNV-1a hash of s.
func fnvString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

func (w *writer) seqOf(i int) int64 {
	if w.at == nil {
		return int64(i)
	}
	return w.at(i)
}

// write copies the nodes sel of w.g (ascending): their rows, embeddings,
// sketches, postings, references and titles; and adds their terms to the
// collection's vocabulary.
func (w *writer) write(ctx context.Context, sel []int) error {
	g := w.g
	a, b := 0, len(sel)

	terms := scorehook.NewTerms()
	var (
		ids  []int32
		lens = make([]float32, b-a)
		i    = a
	)
	// Postings are collected per node as (term, tf) runs; the vocabulary
	// numbering is the collection's once the terms table is merged.
	type posting struct {
		term int32
		tf   float32
	}
	post := make([][]posting, b-a)
	for k := a; k < b; k++ {
		ids = terms.Append(ids[:0], &g.Nodes[sel[k]])
		lens[k-a] = float32(len(ids))
		slices.Sort(ids)
		for x := 0; x < len(ids); {
			y := x + 1
			for y < len(ids) && ids[y] == ids[x] {
				y++
			}
			post[k-a] = append(post[k-a], posting{ids[x], float32(y - x)})
			x = y
		}
	}
	// The text a question reads of the nodes it reads.
	nodeCols := []string{"coll", "seq", "id", "doc", "content", "caption", "footnote", "summary", "tags", "image_text", "image_path", "image_mime", "context"}
	i = a
	_, err := w.copy(ctx, pgx.Identifier{"flowreader", "nodes"}, nodeCols, pgx.CopyFromFunc(func() ([]any, error) {
		if i >= b {
			return nil, nil
		}
		k := sel[i]
		i++
		nd := &g.Nodes[k]
		ip, im := "", ""
		if nd.Image != nil {
			ip, im = nd.Image.Path, nd.Image.MIME
		}
		return []any{w.coll, w.seqOf(k), nd.ID, nd.Doc, nd.Content, nd.Caption, nd.Footnote, nd.Summary, nonNil(nd.Tags), nd.ImageText, ip, im, nd.Context}, nil
	}))
	if err != nil {
		return wrap("import nodes", err)
	}

	// What scoring and routing read of every candidate: one row.
	if w.beforeCands != nil {
		w.beforeCands()
	}
	candCols := []string{"coll", "seq", "id", "doc", "page", "ord", "modality", "section", "keywords", "len", "sum_len", "refs", "names", "adj", "wts", "lists", "emb", "scale", "rank", "kwnorm", "last_page", "copies", "ckey"}
	rank := w.ranks(sel)
	kwDF := map[string]int32{}
	i = a
	row := make([]float32, 0, g.Dim)
	q := make([]int8, g.Dim)
	_, err = w.copy(ctx, pgx.Identifier{"flowreader", "cands"}, candCols, pgx.CopyFromFunc(func() ([]any, error) {
		if i >= b {
			return nil, nil
		}
		x := i
		i++
		k := sel[x]
		nd := &g.Nodes[k]
		nm, adj, wts := w.links(k)
		refs := scorehook.NodeRefKeys(nd)
		if refs == nil {
			refs = []string{}
		}
		row = g.AppendEmbedding(row[:0], k)
		emb, scale := floatBytes(row), float32(1)
		if g.Int8Embeddings() {
			s, err := int8Row(row, q)
			if err != nil {
				return nil, fmt.Errorf("node %d: %w", k, err)
			}
			emb, scale = int8Bytes(q), s
		}
		kn := normKeywords(nd.Keywords)
		var cp []int64
		if w.copies != nil {
			cp = w.copies(k)
		}
		// A keyword's frequency counts contents: a node holding a lower
		// node's content (its class's lowest seq is another's) adds none.
		if len(cp) > 0 && cp[0] != w.seqOf(k) {
			w.nonReps++
		} else {
			for _, k := range kn {
				kwDF[k]++
			}
		}
		w.st.add(lens[x], int32(scorehook.SummaryLen(nd)), row)
		return []any{w.coll, w.seqOf(k), nd.ID, nd.Doc, int32(nd.Page), int32(nd.Order), int16(nd.Modality), nd.Section, nonNil(nd.Keywords),
			lens[x], int32(scorehook.SummaryLen(nd)), refs, nm, adj, wts, appendLists(nil, nd.Keywords, refs, nm), emb, scale, rank[x], kn, int32(nd.LastPage),
			nonNil64(cp), int64(graphhook.CopyKey(nd))}, nil
	}))
	if err != nil {
		return wrap("import candidates", err)
	}
	if len(kwDF) > 0 {
		kws, dfs := make([]string, 0, len(kwDF)), make([]int32, 0, len(kwDF))
		for _, k := range slices.Sorted(maps.Keys(kwDF)) {
			kws, dfs = append(kws, k), append(dfs, kwDF[k])
		}
		if _, err := w.tx.Exec(ctx, `INSERT INTO flowreader.keywords AS k (coll, kw, df) SELECT $1, kw, df FROM unnest($2::text[], $3::int4[]) u(kw, df)
ON CONFLICT (coll, kw) DO UPDATE SET df = k.df + excluded.df`, w.coll, kws, dfs); err != nil {
			return wrap("import keywords", err)
		}
	}

	i = a
	_, err = w.copy(ctx, pgx.Identifier{"flowreader", "sketches"}, []string{"coll", "seq", "bits"}, pgx.CopyFromFunc(func() ([]any, error) {
		if i >= b {
			return nil, nil
		}
		k := sel[i]
		i++
		row = g.AppendEmbedding(row[:0], k)
		return []any{w.coll, w.seqOf(k), sketch(row)}, nil
	}))
	if err != nil {
		return wrap("import sketches", err)
	}

	if w.ann {
		i = 0
		_, err = w.copy(ctx, pgx.Identifier{"flowreader", "ann"}, []string{"coll", "seq", "v"}, pgx.CopyFromFunc(func() ([]any, error) {
			if i >= b {
				return nil, nil
			}
			k := sel[i]
			i++
			return []any{w.coll, w.seqOf(k), pgvector.NewHalfVector(g.AppendEmbedding(nil, k))}, nil
		}))
		if err != nil {
			return wrap("import halfvec embeddings", err)
		}
	}

	// The vocabulary: the collection's ids for the terms met here (new
	// terms numbered after the collection's, in order of first
	// appearance), and document frequencies.
	local := make([]int32, terms.Len())
	df := make([]int32, terms.Len())
	for _, ps := range post {
		for _, p := range ps {
			df[p.term]++
		}
	}
	if err := w.mergeTerms(ctx, terms, df, local); err != nil {
		return err
	}
	// Postings are written term by term (a counting sort on the term),
	// each term's by ascending node: a term's postings then share a few
	// heap pages, so that a question's BM25 reads a few pages a term
	// instead of one a posting.
	start := make([]int32, terms.Len()+1)
	for _, ps := range post {
		for _, p := range ps {
			start[p.term+1]++
		}
	}
	for t := 1; t < len(start); t++ {
		start[t] += start[t-1]
	}
	byTerm := make([]int32, start[len(start)-1]) // node positions x in sel
	tfs := make([]float32, len(byTerm))
	fill := slices.Clone(start[:len(start)-1])
	for x, ps := range post {
		for _, p := range ps {
			byTerm[fill[p.term]], tfs[fill[p.term]] = int32(x), p.tf
			fill[p.term]++
		}
	}
	post = nil
	t, j := 0, 0
	_, err = w.copy(ctx, pgx.Identifier{"flowreader", "postings"}, []string{"coll", "term", "seq", "tf", "len"}, pgx.CopyFromFunc(func() ([]any, error) {
		if j >= len(byTerm) {
			return nil, nil
		}
		for int32(j) >= start[t+1] {
			t++
		}
		x := byTerm[j]
		tf := tfs[j]
		j++
		return []any{w.coll, local[t], w.seqOf(sel[a+int(x)]), tf, lens[x]}, nil
	}))
	if err != nil {
		return wrap("import postings", err)
	}

	var refRows, titleRows [][]any
	for _, k := range sel {
		nd := &g.Nodes[k]
		seen := map[string]bool{}
		for _, r := range scorehook.NodeRefKeys(nd) {
			if !seen[r] {
				seen[r] = true
				refRows = append(refRows, []any{w.coll, r, w.seqOf(k)})
			}
		}
		if f, ok := mention.TitleFirstWord(nd.Section, mention.Options{}); ok {
			titleRows = append(titleRows, []any{w.coll, f, w.seqOf(k), nd.Section})
		}
	}
	if _, err := w.copy(ctx, pgx.Identifier{"flowreader", "refs"}, []string{"coll", "key", "seq"}, pgx.CopyFromRows(refRows)); err != nil {
		return wrap("import references", err)
	}
	if _, err := w.copy(ctx, pgx.Identifier{"flowreader", "titles"}, []string{"coll", "first", "seq", "title"}, pgx.CopyFromRows(titleRows)); err != nil {
		return wrap("import titles", err)
	}
	return nil
}

// mergeTerms gives the terms of t the collection's ids (in local) and adds
// df to their document frequencies, numbering new terms after the
// collection's in t's order.
func (w *writer) mergeTerms(ctx context.Context, t scorehook.Terms, df, local []int32) error {
	words := make([]string, t.Len())
	for k := range words {
		words[k] = t.Term(int32(k))
	}
	// One statement: upsert every term with its df increment, new ids in
	// the given order after next_term, and return the ids. An update's
	// terms (a few thousand) are also named by key (term = ANY), so that
	// the planner reads them by the index instead of hashing every term of
	// the collection; an import's (every term, into an empty collection)
	// are not, so as not to plan a million-element array.
	byKey := ""
	if w.at != nil {
		byKey = " AND t.term = ANY($2)"
	}
	rows, err := w.tx.Query(ctx, `
WITH c AS (SELECT next_term FROM flowreader.collections WHERE id = $1),
inp AS (SELECT term, df, ord FROM unnest($2::text[], $3::int4[]) WITH ORDINALITY u(term, df, ord)),
old AS (SELECT t.term, t.id FROM flowreader.terms t JOIN inp USING (term) WHERE t.coll = $1`+byKey+`),
fresh AS (SELECT inp.term, (SELECT next_term FROM c) + row_number() OVER (ORDER BY inp.ord) - 1 AS id
          FROM inp LEFT JOIN old USING (term) WHERE old.id IS NULL),
up AS (INSERT INTO flowreader.terms AS t (coll, term, id, df)
       SELECT $1, inp.term, coalesce(old.id, fresh.id::int4), inp.df FROM inp LEFT JOIN old USING (term) LEFT JOIN fresh USING (term)
       ON CONFLICT (coll, term) DO UPDATE SET df = t.df + excluded.df
       RETURNING t.term, t.id, t.df),
bump AS (UPDATE flowreader.collections SET next_term = next_term + (SELECT count(*) FROM fresh) WHERE id = $1)
SELECT inp.ord, up.id, up.df FROM inp JOIN up USING (term)`, w.coll, words, df)
	if err != nil {
		return wrap("import terms", err)
	}
	got := 0
	for rows.Next() {
		var ord int64
		var id, now int32
		if err := rows.Scan(&ord, &id, &now); err != nil {
			rows.Close()
			return wrap("import terms", err)
		}
		local[ord-1] = id
		w.dfs.move(now-df[ord-1], now)
		got++
	}
	if err := rows.Err(); err != nil {
		return wrap("import terms", err)
	}
	if got != len(words) {
		return fmt.Errorf("pgstore: import terms: %d of %d terms numbered", got, len(words))
	}
	return nil
}

// documents writes the documents of w.g's nodes but those in keep, and
// sets the titles and metadata of the kept ones. A document's title and
// metadata are docs' (matched by ID) when given, else its metadata is
// w.g.Metadata's when the graph carries metadata (a kept document's title
// stays as it is).
//
// Every document written, and every kept one in w.relinked, gets its
// nodes' links hashes from links (computed here when nil); hashes are
// docHashes(w.g) (computed here when nil).
func (w *writer) documents(ctx context.Context, docs []graph.Document, keep map[string]bool, hashes []docHash, links map[string][]int64) error {
	given := map[string]*graph.Document{}
	for k := range docs {
		given[docs[k].ID] = &docs[k]
	}
	if w.runs == nil {
		w.runs = docRuns(w.g)
	}
	if hashes == nil {
		hashes = docHashes(w.g, w.runs, nil)
	}
	if links == nil {
		links = w.linkHashes()
	}
	// The seqs of the documents written (a kept one's ranges stay).
	seqs := map[string][]int64{}
	for _, r := range w.runs {
		if !keep[r.doc] {
			for i := r.start; i < r.start+r.n; i++ {
				seqs[r.doc] = append(seqs[r.doc], w.seqOf(i))
			}
		}
	}
	var rows [][]any
	var keptIDs, keptTitles, keptMeta []string
	var keptHasTitle []bool
	for _, h := range hashes {
		title, md, hasTitle, known := "", map[string]string{}, false, false
		if d := given[h.id]; d != nil {
			title, hasTitle, known = d.Title, true, true
			if d.Metadata != nil {
				md = d.Metadata
			}
		} else if w.g.Metadata != nil {
			known = true
			if m := w.g.Metadata[h.id]; m != nil {
				md = m
			}
		}
		if keep[h.id] {
			if known {
				keptIDs, keptTitles, keptMeta = append(keptIDs, h.id), append(keptTitles, title), append(keptMeta, jsonText(md))
				keptHasTitle = append(keptHasTitle, hasTitle)
			}
			continue
		}
		rows = append(rows, []any{w.coll, h.id, title, jsonText(md), h.sum[:], int32(h.nodes), seqRanges(seqs[h.id]), links[h.id]})
	}
	if len(w.relinked) > 0 {
		// The kept documents' links, for those whose links changed, as
		// slices [lo, hi] (1-based) of one flat array (arrays of arrays
		// must be rectangular).
		var ids []string
		var los, his []int32
		var flat []int64
		for _, h := range hashes {
			if keep[h.id] && w.relinked[h.id] {
				ids, los = append(ids, h.id), append(los, int32(len(flat)+1))
				flat = append(flat, links[h.id]...)
				his = append(his, int32(len(flat)))
			}
		}
		if _, err := w.tx.Exec(ctx, `UPDATE flowreader.documents d SET links = ($5::int8[])[u.lo:u.hi] FROM unnest($2::text[], $3::int4[], $4::int4[]) u(id, lo, hi)
WHERE d.coll = $1 AND d.id = u.id AND d.links IS DISTINCT FROM ($5::int8[])[u.lo:u.hi]`, w.coll, ids, los, his, nonNil64(flat)); err != nil {
			return wrap("update documents", err)
		}
	}
	if len(keptIDs) > 0 {
		if _, err := w.tx.Exec(ctx, `UPDATE flowreader.documents d SET title = CASE WHEN u.has THEN u.title ELSE d.title END, metadata = u.md::jsonb
FROM unnest($2::text[], $3::text[], $4::text[], $5::bool[]) u(id, title, md, has)
WHERE d.coll = $1 AND d.id = u.id AND (d.metadata <> u.md::jsonb OR u.has AND d.title <> u.title)`, w.coll, keptIDs, keptTitles, keptMeta, keptHasTitle); err != nil {
			return wrap("update documents", err)
		}
	}
	_, err := w.copy(ctx, pgx.Identifier{"flowreader", "documents"}, []string{"coll", "id", "title", "metadata", "hash", "nodes", "ranges", "links"}, pgx.CopyFromRows(rows))
	return wrap("import documents", err)
}

// nonNil64 is xs, or an empty array for nil (NULL otherwise).
func nonNil64(xs []int64) []int64 {
	if xs == nil {
		return []int64{}
	}
	return xs
}

// seqRanges is seqs as inclusive ranges [lo, hi] of consecutive seqs,
// flattened: a document's nodes, which filters select by seq.
func seqRanges(seqs []int64) []int64 {
	s := slices.Sorted(slices.Values(seqs))
	out := []int64{}
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		out = append(out, s[i], s[j])
		i = j + 1
	}
	return out
}

// docHash is one document of a graph: its ID, node count and a hash of its
// nodes' content and embeddings.
type docHash struct {
	id    string
	nodes int
	sum   [32]byte
}

// docRun is a run of consecutive nodes of a graph of one document: n
// nodes from node start, after off nodes of the document in earlier runs.
// A graph's documents are runs of nodes (one a document, as Build and
// Update make them), so a pass over the runs costs the documents, not the
// nodes.
type docRun struct {
	doc           string
	start, n, off int
}

// docRuns returns g's maximal runs of nodes of one document, in order.
func docRuns(g *graph.Graph) []docRun {
	var out []docRun
	for i := range g.Nodes {
		if k := len(out) - 1; k >= 0 && out[k].doc == g.Nodes[i].Doc {
			out[k].n++
			continue
		}
		out = append(out, docRun{doc: g.Nodes[i].Doc, start: i, n: 1})
	}
	seen := map[string]int{}
	for k := range out {
		out[k].off = seen[out[k].doc]
		seen[out[k].doc] += out[k].n
	}
	return out
}

// docHashes returns the documents of g's nodes (its runs, docRuns) in
// order of first appearance, hashed when hash is nil or says so (the
// others' sums are zero). The documents are hashed in parallel, each by
// one worker in its nodes' order.
func docHashes(g *graph.Graph, runs []docRun, hash func(doc string) bool) []docHash {
	var out []docHash
	at := map[string]int{}
	var nodes [][]docRun
	for _, r := range runs {
		k, ok := at[r.doc]
		if !ok {
			k = len(out)
			at[r.doc] = k
			out = append(out, docHash{id: r.doc})
			nodes = append(nodes, nil)
		}
		out[k].nodes += r.n
		nodes[k] = append(nodes[k], r)
	}
	if hash != nil {
		var sel []int
		for k := range out {
			if hash(out[k].id) {
				sel = append(sel, k)
			}
		}
		if len(sel) < len(out) {
			// Hash only the selected documents: the others keep a zero
			// sum.
			sub := make([][]docRun, len(out))
			for _, k := range sel {
				sub[k] = nodes[k]
			}
			nodes = sub
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			row := make([]float32, 0, g.Dim)
			for {
				k := int(next.Add(1)) - 1
				if k >= len(out) {
					return
				}
				if nodes[k] == nil {
					continue
				}
				h := newDigest()
				for _, r := range nodes[k] {
					for i := r.start; i < r.start+r.n; i++ {
						row = hashNode(h, g, i, row)
					}
				}
				out[k].sum = h.sum()
			}
		}()
	}
	wg.Wait()
	return out
}

// hashNode adds node i of g to h: its content and embedding (as float32
// bits, little-endian, whatever the graph stores).
func hashNode(h *sha256Digest, g *graph.Graph, i int, row []float32) []float32 {
	nd := &g.Nodes[i]
	h.str(nd.ID).str(nd.Section).str(nd.Content).str(nd.Caption).str(nd.Footnote).str(nd.Summary).str(nd.ImageText).str(nd.Context)
	h.num(int64(nd.Page)).num(int64(nd.Order)).num(int64(nd.Modality))
	if nd.LastPage > nd.Page {
		// Only then: the hashes of single-page nodes stay those of
		// schema 1.
		h.num(int64(nd.LastPage))
	}
	h.num(int64(len(nd.Keywords)))
	for _, s := range nd.Keywords {
		h.str(s)
	}
	h.num(int64(len(nd.Tags)))
	for _, s := range nd.Tags {
		h.str(s)
	}
	if nd.Image != nil {
		h.str(nd.Image.Path).str(nd.Image.MIME)
	}
	row = g.AppendEmbedding(row[:0], i)
	for _, x := range row {
		h.b = binary.LittleEndian.AppendUint32(h.b, math.Float32bits(x))
	}
	h.flush()
	return row
}

// sha256Digest hashes length-prefixed fields.
type sha256Digest struct {
	h interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	}
	b []byte
}

func newDigest() *sha256Digest { return &sha256Digest{h: sha256.New()} }

func (d *sha256Digest) str(s string) *sha256Digest {
	d.b = binary.AppendUvarint(d.b, uint64(len(s)))
	d.b = append(d.b, s...)
	return d
}

func (d *sha256Digest) num(x int64) *sha256Digest {
	d.b = binary.AppendVarint(d.b, x)
	return d
}

func (d *sha256Digest) flush() {
	d.h.Write(d.b) //nolint:errcheck // hash writes do not fail
	d.b = d.b[:0]
}

func (d *sha256Digest) sum() [32]byte {
	d.flush()
	var out [32]byte
	copy(out[:], d.h.Sum(nil))
	return out
}

// collStats are a collection's statistics that do not depend on its
// vocabulary: the node count, BM25's total length (a sum of integers,
// exact in float64), the longest summary and the sum of the embeddings
// (their mean direction is MMR's pivot).
type collStats struct {
	n      int64
	total  float64
	maxSum int32
	emb    []float64
}

// add adds a node of BM25 length ln, summary length sum and embedding row
// (as graph.Graph.AppendEmbedding decodes it: the stored row decodes to it
// bit for bit, int8Row checks it).
func (st *collStats) add(ln float32, sum int32, row []float32) {
	if st.emb == nil {
		st.emb = make([]float64, len(row))
	}
	st.n++
	st.total += float64(ln)
	st.maxSum = max(st.maxSum, sum)
	for k, x := range row {
		st.emb[k] += float64(x)
	}
}

// writeStats stores a collection's statistics st and bumps its version,
// with the sum of the vocabulary's idf (rank_bm25's ε floor) computed from
// the terms' document frequencies in id order (score.NewIndex's order, in
// Go: its math.Log is the one the in-process index uses), and the entry
// nodes: every (n/entryCount)th of the collection's seqs in order. ranges
// are the collection's seqs as inclusive ranges [lo, hi], ascending and
// disjoint. An import (imported) sums the idf over every term; an update
// from the counts in dfs.
func writeStats(ctx context.Context, tx pgx.Tx, coll int32, st collStats, ranges [][2]int64, imported bool) error {
	n := st.n
	idfSum, vocab := 0.0, int64(0)
	var err error
	if imported {
		// An import: every term, in id order, as score.NewIndex sums
		// them, so that the sum is the in-process one bit for bit.
		rows, err := tx.Query(ctx, `SELECT df FROM flowreader.terms WHERE coll = $1 AND df > 0 ORDER BY id`, coll)
		if err != nil {
			return wrap("statistics", err)
		}
		for rows.Next() {
			var d int32
			if err := rows.Scan(&d); err != nil {
				rows.Close()
				return wrap("statistics", err)
			}
			idfSum += math.Log(float64(n)-float64(d)+0.5) - math.Log(float64(d)+0.5)
			vocab++
		}
		if err := rows.Err(); err != nil {
			return wrap("statistics", err)
		}
	} else {
		// An update: from the count of terms per document frequency,
		// a few thousand rows whatever the vocabulary (after an update
		// the ids are no longer the in-process order anyway, so the sum
		// equals a fresh one to rounding).
		rows, err := tx.Query(ctx, `SELECT df, terms FROM flowreader.dfs WHERE coll = $1 AND df > 0 ORDER BY df`, coll)
		if err != nil {
			return wrap("statistics", err)
		}
		for rows.Next() {
			var d int32
			var c int64
			if err := rows.Scan(&d, &c); err != nil {
				rows.Close()
				return wrap("statistics", err)
			}
			idfSum += float64(c) * (math.Log(float64(n)-float64(d)+0.5) - math.Log(float64(d)+0.5))
			vocab += c
		}
		if err := rows.Err(); err != nil {
			return wrap("statistics", err)
		}
	}
	held := int64(0)
	for _, r := range ranges {
		held += r[1] - r[0] + 1
	}
	if held != n || n == 0 {
		return fmt.Errorf("pgstore: statistics: the documents hold %d nodes, the collection %d", held, n)
	}
	// The r-th seq for r = 0, step, 2·step, …: a walk over the ranges,
	// not over the seqs.
	var entries []int64
	step := max(1, n/entryCount)
	k, before := 0, int64(0) // ranges[k] holds the seqs of ranks before..
	for r := int64(0); r < n; r += step {
		for r-before > ranges[k][1]-ranges[k][0] {
			before += ranges[k][1] - ranges[k][0] + 1
			k++
		}
		entries = append(entries, ranges[k][0]+r-before)
	}
	_, err = tx.Exec(ctx, `UPDATE flowreader.collections SET nodes = $2, total_len = $3, idf_sum = $4, vocab = $5, max_sum_len = $6,
emb_sum = $7, entries = $8, next_seq = greatest(next_seq, $9), version = version + 1, updated = now() WHERE id = $1`,
		coll, n, st.total, idfSum, vocab, st.maxSum, st.emb, entries, ranges[len(ranges)-1][1]+1)
	return wrap("statistics", err)
}

// seqPairs returns the inclusive ranges of flat [lo, hi, lo, hi, …]
// arrays (documents' ranges) as pairs, sorted.
func seqPairs(flat ...[]int64) [][2]int64 {
	var pairs [][2]int64
	for _, r := range flat {
		for k := 0; k+1 < len(r); k += 2 {
			pairs = append(pairs, [2]int64{r[k], r[k+1]})
		}
	}
	slices.SortFunc(pairs, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	return pairs
}

// addRow adds (sign +1) or takes away (−1) a stored embedding, decoded as
// graph.Graph.AppendEmbedding decodes it, to acc.
func addRow(acc []float64, emb []byte, scale float32, i8 bool, sign float64) {
	if i8 {
		for k, b := range emb {
			acc[k] += sign * float64(float32(int8(b))*scale)
		}
		return
	}
	for k := range acc {
		acc[k] += sign * float64(math.Float32frombits(binary.LittleEndian.Uint32(emb[4*k:])))
	}
}

// int8Row recovers the int8 row and scale of an embedding that an int8
// graph decoded (value = float32(q)·scale, scale = 1/‖q‖, the largest |q|
// = 127, as the quantiser makes them), checking that they give dec back
// bit for bit.
func int8Row(dec []float32, q []int8) (float32, error) {
	m := 0.0
	for _, x := range dec {
		m = max(m, math.Abs(float64(x)))
	}
	if m == 0 {
		clear(q)
		return 0, nil
	}
	f := 127 / m
	var ss int64
	for k, x := range dec {
		v := math.Round(float64(x) * f)
		if v < -127 || v > 127 {
			return 0, fmt.Errorf("%w: embedding is not an int8 row", ErrInput)
		}
		q[k] = int8(v)
		ss += int64(q[k]) * int64(q[k])
	}
	s := float32(1 / math.Sqrt(float64(ss)))
	for k, x := range dec {
		if float32(q[k])*s != x {
			return 0, fmt.Errorf("%w: embedding is not an int8 row (value %d)", ErrInput, k)
		}
	}
	return s, nil
}

func int8Bytes(q []int8) []byte {
	b := make([]byte, len(q))
	for k, x := range q {
		b[k] = byte(x)
	}
	return b
}

func floatBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for k, x := range v {
		binary.LittleEndian.PutUint32(b[4*k:], math.Float32bits(x))
	}
	return b
}

// sketch is the sign bits of an embedding, the first component in the
// first byte's high bit (PostgreSQL's bit order): the dense candidates'
// first pass ranks nodes by the Hamming distance of their sketch to the
// question's.
func sketch(v []float32) pgtype.Bits {
	b := make([]byte, (len(v)+7)/8)
	for k, x := range v {
		if x > 0 {
			b[k/8] |= 0x80 >> (k % 8)
		}
	}
	return pgtype.Bits{Bytes: b, Len: int32(len(v)), Valid: true}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// sortLinks sorts an adjacency by seq, its kinds alongside.
func sortLinks(nbrs []int64, kinds []int16) {
	if slices.IsSorted(nbrs) {
		return
	}
	idx := make([]int, len(nbrs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(nbrs[a], nbrs[b]) })
	n2, k2 := slices.Clone(nbrs), slices.Clone(kinds)
	for i, j := range idx {
		nbrs[i], kinds[i] = n2[j], k2[j]
	}
}

// jsonText is metadata as JSON text, which the jsonb column takes by COPY
// and by INSERT alike.
func jsonText(md map[string]string) string {
	if len(md) == 0 {
		return "{}"
	}
	b, err := json.Marshal(md)
	if err != nil {
		return "{}" // a map of strings always marshals
	}
	return string(b)
}

// encodeAdj encodes an adjacency (seqs ascending, edge kinds alongside) as
// the cands.adj bytes: the count, then per neighbour the gap from the
// previous seq (the first from 0) as a uvarint and the kind as one byte.
// A node's neighbours then take two or three bytes each, not the twelve of
// an int8[] element on the wire.
func encodeAdj(nbrs []int64, kinds []int16) []byte {
	return appendAdj(make([]byte, 0, 1+3*len(nbrs)), nbrs, kinds)
}

// appendAdj appends encodeAdj's bytes to b.
func appendAdj(b []byte, nbrs []int64, kinds []int16) []byte {
	b = binary.AppendUvarint(b, uint64(len(nbrs)))
	prev := int64(0)
	for i, v := range nbrs {
		b = binary.AppendUvarint(b, uint64(v-prev))
		b = append(b, byte(kinds[i]))
		prev = v
	}
	return b
}

// errAdj is a cands.adj value that encodeAdj did not make.
var errAdj = errors.New("pgstore: corrupt adjacency")

// decodeAdj decodes encodeAdj's bytes.
func decodeAdj(b []byte) (nbrs []int64, kinds []int16, err error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || k != uvarintLen(n) || n > uint64(len(b)) {
		return nil, nil, errAdj
	}
	b = b[k:]
	nbrs, kinds = make([]int64, 0, n), make([]int16, 0, n)
	prev := int64(0)
	for i := uint64(0); i < n; i++ {
		d, k := binary.Uvarint(b)
		if k <= 0 || k >= len(b) || k != uvarintLen(d) || d > math.MaxInt64-uint64(prev) {
			return nil, nil, errAdj
		}
		prev += int64(d)
		nbrs = append(nbrs, prev)
		kinds = append(kinds, int16(b[k]))
		b = b[k+1:]
	}
	if len(b) != 0 {
		return nil, nil, errAdj
	}
	return nbrs, kinds, nil
}

// uvarintLen is the length of x's minimal uvarint: decodeAdj takes no
// other, so that each adjacency has one encoding.
func uvarintLen(x uint64) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

// dfCounts are changes to a collection's count of terms per document
// frequency (flowreader.dfs): df → terms added (negative: taken away).
type dfCounts map[int32]int64

// move records a term whose document frequency went from old to now (0:
// not in the vocabulary).
func (c *dfCounts) move(old, now int32) {
	if old == now {
		return
	}
	if *c == nil {
		*c = dfCounts{}
	}
	if old > 0 {
		(*c)[old]--
	}
	if now > 0 {
		(*c)[now]++
	}
}

// write adds the changes to collection coll's counts.
func (c dfCounts) write(ctx context.Context, tx pgx.Tx, coll int32) error {
	var dfs []int32
	var ns []int64
	for _, d := range slices.Sorted(maps.Keys(c)) {
		if c[d] != 0 {
			dfs, ns = append(dfs, d), append(ns, c[d])
		}
	}
	if len(dfs) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO flowreader.dfs AS h (coll, df, terms) SELECT $1, df, n FROM unnest($2::int4[], $3::int8[]) u(df, n)
ON CONFLICT (coll, df) DO UPDATE SET terms = h.terms + excluded.terms`, coll, dfs, ns)
	if err != nil {
		return wrap("statistics", err)
	}
	_, err = tx.Exec(ctx, `DELETE FROM flowreader.dfs WHERE coll = $1 AND df = ANY($2) AND terms = 0`, coll, dfs)
	return wrap("statistics", err)
}
