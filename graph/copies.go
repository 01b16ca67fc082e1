package graph

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The thresholds of near-duplicate detection (see the package doc, Copies).
const (
	// copyCandidateCos is the least edge weight (cosine) at which two
	// nodes are compared as possible copies: a loose prefilter, well below
	// the cosine of two texts that share copyJaccard of their words under
	// any embedder we measured.
	copyCandidateCos = 0.5
	// copyJaccard is the least Jaccard similarity of the word sets of two
	// nodes of different documents that makes them near copies.
	copyJaccard = 0.8
	// copyDocShare is the share of the smaller document's nodes that must
	// have an exact or near copy in the other document for the two to be
	// copies of one document as a whole.
	copyDocShare = 0.5
	// copyAlignJaccard is the least Jaccard similarity at which the nodes
	// of two documents that are copies as a whole are paired (each the
	// other's most similar node).
	copyAlignJaccard = 0.5
	// copyAlignWindow is how far from a node's relative position in the
	// other document (in nodes) its alignment looks, besides its edges.
	copyAlignWindow = 2
	// maxDocCopies bounds the groups of exact copies that count toward
	// whole-document copies: a document has a few copies, while a node
	// repeated in more documents is boilerplate.
	maxDocCopies = 8
	// copyMinWords is the fewest distinct words a node needs to be a near
	// copy: shorter texts ("News Encoder", "Price mode") are copies only
	// when exact.
	copyMinWords = 4
)

// copyIndex holds a graph's content classes: the nodes of class c are
// members[start[c]:start[c+1]], ascending; class[i] is node i's class, or
// -1 when node i has no copy. A graph without copies has class == nil.
type copyIndex struct {
	class   []int32
	start   []int32
	members []int32
}

// Copies returns the nodes holding node i's content, node i among them, in
// ascending order, or nil when no other node holds it. The slice aliases
// the graph's storage: do not modify it.
//
// Two nodes hold the same content when they are
//   - exact copies: the same modality, image and text, or the same words in
//     the same order once case and punctuation are folded;
//   - near copies: in different documents, joined by an edge (cosine at
//     least 0.5, a loose prefilter), under the same heading (Section, words
//     folded), with at least 4 distinct words each, the numbers of one all
//     among the other's (a copy may add a dated line, it may not change a
//     figure), and at least 80 % of their words shared (Jaccard), either as
//     they are or with the first or last line of the longer one left out (a
//     footer or a header added to a short passage);
//   - aligned nodes of two documents that are copies as a whole (half the
//     smaller one's nodes have an exact or near copy in the other): every
//     node is paired with its most similar node of the other document,
//     among its edges and the nodes within 2 of its relative position,
//     when that pairing is mutual, under one heading, with the numbers
//     agreeing as above and at least half their words shared, a word with
//     a typo (two letters swapped, one added or dropped, in a word of 5
//     letters or more) counted as shared and a first or last line of the
//     longer one left out if that is closer; a node of fewer than 4 words
//     (a table's title, a short row) only when all its words are shared
//     that way, so that a short row with another cell stays apart.
//
// Pairs join most similar first into content classes, except that no class
// holds two different contents of one document (the rows of a table are
// alike, not copies): a pair that would break this is left apart. Nodes
// with images are copies only when exact. The classes are computed from the
// nodes and edges on the first call (a graph without edges finds exact
// copies only) and kept.
func (g *Graph) Copies(i int) []int32 {
	x := g.copyIndex()
	if x.class == nil || x.class[i] < 0 {
		return nil
	}
	c := x.class[i]
	return x.members[x.start[c]:x.start[c+1]]
}

func (g *Graph) copyIndex() *copyIndex {
	if x := g.copies.Load(); x != nil {
		return x
	}
	x := findCopies(g)
	g.copies.CompareAndSwap(nil, x)
	return g.copies.Load()
}

// hasContent reports whether n holds anything exact copies can share.
func hasContent(n *Node) bool {
	return strings.TrimSpace(n.Content) != "" || strings.TrimSpace(n.Caption) != ""
}

func imagePath(n *Node) string {
	if n.Image != nil {
		return n.Image.Path
	}
	return ""
}

// sameKey reports whether a and b are exact copies: the same modality,
// image, caption and text.
func sameKey(a, b *Node) bool {
	return a.Modality == b.Modality && a.Content == b.Content && a.Caption == b.Caption && imagePath(a) == imagePath(b)
}

// keyHash hashes what sameKey compares.
func keyHash(seed maphash.Seed, n *Node) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteByte(byte(n.Modality))
	h.WriteString(imagePath(n))
	h.WriteByte(0)
	h.WriteString(n.Caption)
	h.WriteByte(0)
	h.WriteString(n.Content)
	return h.Sum64()
}

// words is a node's comparable text: its folded word sequence's hash, its
// set of words (hashes, ascending, unique), its numbers (hashes of the
// words with a digit, ascending, with repeats) and its heading's words.
// The slices alias a wordTable.
type words struct {
	seq     uint64
	set     []uint32
	numbers []uint32
	section []uint32 // the heading's words (hashes, ascending, unique)
}

// wordTable holds the words of a slice of nodes, each computed on first
// use, in chunks of one flat array: a node's set, numbers and heading words
// are consecutive runs of a chunk. Chunks instead of three slices per node
// keep the detection's memory free of pointers and its allocations few and
// large: under a memory limit the collector runs all the time, and what a
// phase pays for it grows with what it allocates (a million nodes, with
// per-node slices, paid more in collection than in comparison).
type wordTable struct {
	nodes  []Node
	span   []wordSpan
	chunks [][]uint32
	buf    []byte   // the word being folded
	tmp    []uint32 // the node being computed: its set
	num    []uint32 // and its numbers
}

// wordArenaChunk is the size of a chunk of a wordTable, in words (a node
// with more gets a chunk of its own).
const wordArenaChunk = 1 << 16

// wordSpan locates a node's words: set, numbers and heading words of the
// given lengths from off in a chunk; set < 0 until computed.
type wordSpan struct {
	seq                       uint64
	chunk, off, set, num, sec int32
}

func newWordTable(nodes []Node) *wordTable {
	t := &wordTable{nodes: nodes, span: make([]wordSpan, len(nodes))}
	for i := range t.span {
		t.span[i].set = -1
	}
	return t
}

// FNV-1a (64 bits) of a node's folded word sequence.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// of returns node v's words (see words), computing them on first use. The
// caption, when it differs from the text, is read before it, as a line of
// its own.
func (t *wordTable) of(v int32) words {
	s := &t.span[v]
	if s.set < 0 {
		t.compute(v)
	}
	a := t.chunks[s.chunk][s.off:]
	n1 := int(s.set)
	n2 := n1 + int(s.num)
	n3 := n2 + int(s.sec)
	return words{seq: s.seq, set: a[:n1:n1], numbers: a[n1:n2:n2], section: a[n2:n3:n3]}
}

func (t *wordTable) compute(v int32) {
	n := &t.nodes[v]
	seq := uint64(fnvOffset64)
	set, num := t.tmp[:0], t.num[:0]
	add := func(h uint32, word []byte, digit bool) {
		set = append(set, h)
		if digit {
			num = append(num, h)
		}
		for _, c := range word {
			seq = (seq ^ uint64(c)) * fnvPrime64
		}
		seq = (seq ^ ' ') * fnvPrime64
	}
	if n.Caption != "" && n.Caption != n.Content {
		foldWords(n.Caption, &t.buf, add)
	}
	foldWords(n.Content, &t.buf, add)
	slices.Sort(set)
	set = slices.Compact(set)
	slices.Sort(num)
	ns, nn := len(set), len(num)
	foldWords(n.Section, &t.buf, func(h uint32, _ []byte, _ bool) { set = append(set, h) })
	sec := set[ns:]
	slices.Sort(sec)
	sec = slices.Compact(sec)
	size := ns + nn + len(sec)
	c := len(t.chunks) - 1
	if c < 0 || cap(t.chunks[c])-len(t.chunks[c]) < size {
		t.chunks = append(t.chunks, make([]uint32, 0, max(wordArenaChunk, size)))
		c++
	}
	ch := t.chunks[c]
	off := len(ch)
	ch = append(ch, set[:ns]...)
	ch = append(ch, num...)
	ch = append(ch, sec...)
	t.chunks[c] = ch
	t.tmp, t.num = set[:0], num[:0]
	t.span[v] = wordSpan{seq: seq, chunk: int32(c), off: int32(off), set: int32(ns), num: int32(nn), sec: int32(len(sec))}
}

// foldWords calls fn with each word of text (a maximal run of letters and
// digits, lower-cased): its FNV-1a hash, its bytes (valid until fn
// returns) and whether it holds a digit. buf is scratch space, kept
// between calls.
func foldWords(text string, buf *[]byte, fn func(h uint32, word []byte, digit bool)) {
	word := (*buf)[:0]
	digit := false
	end := func() {
		if len(word) == 0 {
			return
		}
		h := uint32(2166136261)
		for _, c := range word {
			h = (h ^ uint32(c)) * 16777619
		}
		fn(h, word, digit)
		word, digit = word[:0], false
	}
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf { // ASCII: what unicode's tables say, without them
			switch {
			case 'a' <= c && c <= 'z':
				word = append(word, c)
			case 'A' <= c && c <= 'Z':
				word = append(word, c+'a'-'A')
			case '0' <= c && c <= '9':
				word = append(word, c)
				digit = true
			default:
				end()
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			end()
			continue
		}
		word = utf8.AppendRune(word, unicode.ToLower(r))
		digit = digit || unicode.IsDigit(r)
	}
	end()
	*buf = word
}

// nearCopies reports whether nodes u and v (of different documents) are
// near copies: under the same heading, the numbers of one all among the
// other's, at least copyMinWords words each, and resemblance (Jaccard of
// the word sets) at least copyJaccard, either as they are or with the
// first or the last line of the longer one left out: a line added to a
// short passage (a site's footer, a date) lowers the resemblance of the
// whole but not of the rest. It returns the resemblance, by which pairs
// are ranked.
func (f *copyFinder) nearCopies(u, v int32) (float64, bool) {
	a, b := f.wordsOf(u), f.wordsOf(v)
	if len(a.set) < copyMinWords || len(b.set) < copyMinWords || !slices.Equal(a.section, b.section) || !sameNumbers(&a, &b) {
		return 0, false
	}
	j := jaccard(a.set, b.set)
	if j >= copyJaccard {
		return j, true
	}
	long, short := v, a
	if len(a.set) > len(b.set) {
		long, short = u, b
	}
	text := f.g.Nodes[long].Content
	first, last := strings.IndexByte(text, '\n'), strings.LastIndexByte(text, '\n')
	if first < 0 {
		return j, false
	}
	for _, rest := range [2]string{text[first+1:], text[:last]} {
		set := f.scratch[:0]
		foldWords(rest, &f.wt.buf, func(h uint32, _ []byte, _ bool) { set = append(set, h) })
		slices.Sort(set)
		f.scratch = set
		if jr := jaccard(short.set, slices.Compact(set)); jr >= copyJaccard {
			return jr, true
		}
	}
	return j, false
}

// intersect is |a∩b| of two ascending sets.
func intersect(a, b []uint32) int {
	i, j, in := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			in++
			i++
			j++
		}
	}
	return in
}

// jaccard is |a∩b| / |a∪b| of two ascending sets (0 when both are empty).
func jaccard(a, b []uint32) float64 {
	in := intersect(a, b)
	u := len(a) + len(b) - in
	if u == 0 {
		return 0
	}
	return float64(in) / float64(u)
}

// subMultiset reports whether ascending a is contained in ascending b,
// repeats counted.
func subMultiset(a, b []uint32) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
		j++
	}
	return true
}

// sameNumbers reports whether the numbers of one text are all among the
// other's, repeats counted: a copy may add a dated line, it may not change
// a figure.
func sameNumbers(a, b *words) bool {
	return subMultiset(a.numbers, b.numbers) || subMultiset(b.numbers, a.numbers)
}

// copyFinder is the state of findCopies.
type copyFinder struct {
	g       *Graph
	wt      *wordTable
	scratch []uint32 // nearCopies' word set of a text less a line
	near    []bool   // nodes that may be near copies (text only, no image)
	doc     []int32  // document of each node (dense ids)
	docs    [][]int32
	// parent is the union-find forest over nodes, size the size of each
	// root's tree; exact is each node's group of exact copies (its root
	// after the exact pass), and held maps a root whose class spans more
	// than one exact group to the exact group it holds in each document.
	parent, size, exact []int32
	held                map[int32]map[int32]int32
}

func (f *copyFinder) wordsOf(v int32) words { return f.wt.of(v) }

func (f *copyFinder) find(v int32) int32 {
	for f.parent[v] != v {
		f.parent[v] = f.parent[f.parent[v]]
		v = f.parent[v]
	}
	return v
}

// union joins the classes of u and v.
func (f *copyFinder) union(u, v int32) {
	a, b := f.find(u), f.find(v)
	if a == b {
		return
	}
	if f.size[a] < f.size[b] {
		a, b = b, a
	}
	f.parent[b] = a
	f.size[a] += f.size[b]
}

// docsOf is what root r's class holds per document: the exact group of
// its nodes there (one, since classes never hold two different contents of
// one document).
func (f *copyFinder) docsOf(r int32) map[int32]int32 {
	if m := f.held[r]; m != nil {
		return m
	}
	return map[int32]int32{f.doc[r]: f.exact[r]}
}

// unionNear joins the classes of near copies u and v unless that would put
// two different contents of one document in one class: a document's
// similar nodes (the rows of a table) are not copies of each other, and a
// near copy in another document must not make them so.
func (f *copyFinder) unionNear(u, v int32) bool {
	a, b := f.find(u), f.find(v)
	if a == b {
		return true
	}
	ma, mb := f.docsOf(a), f.docsOf(b)
	if len(ma) < len(mb) {
		ma, mb = mb, ma
	}
	for d, e := range mb {
		if x, ok := ma[d]; ok && x != e {
			return false
		}
	}
	for d, e := range mb {
		ma[d] = e
	}
	delete(f.held, a)
	delete(f.held, b)
	f.union(a, b)
	f.held[f.find(a)] = ma
	return true
}

// nearPair is a candidate pair of near copies and its similarity.
type nearPair struct {
	u, v int32
	j    float64
}

// findCopies computes the content classes of g (see Copies): exact copies
// first, then near copies and aligned nodes of whole-document copies, most
// similar first, as long as no class holds two different contents of one
// document.
func findCopies(g *Graph) *copyIndex { return findCopiesWith(g, newWordTable(g.Nodes)) }

// findCopiesWith is findCopies with the words of g's nodes in wt (some
// perhaps computed already).
func findCopiesWith(g *Graph, wt *wordTable) *copyIndex {
	n := len(g.Nodes)
	f := &copyFinder{g: g, wt: wt, near: make([]bool, n), doc: make([]int32, n),
		parent: make([]int32, n), size: make([]int32, n), held: map[int32]map[int32]int32{}}
	docID := map[string]int32{}
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		f.parent[i], f.size[i] = int32(i), 1
		d, ok := docID[nd.Doc]
		if !ok {
			d = int32(len(f.docs))
			docID[nd.Doc] = d
			f.docs = append(f.docs, nil)
		}
		f.doc[i] = d
		f.docs[d] = append(f.docs[d], int32(i))
		f.near[i] = nd.Image == nil
	}
	joined := false
	// Exact copies: equal keys, grouped by hash then compared.
	seed := maphash.MakeSeed()
	type keyed struct {
		h uint64
		v int32
	}
	ks := make([]keyed, 0, n)
	for i := range g.Nodes {
		if hasContent(&g.Nodes[i]) {
			ks = append(ks, keyed{keyHash(seed, &g.Nodes[i]), int32(i)})
		}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.v, b.v)
	})
	// Groups of exact copies (two nodes or more); a few copies of one
	// document's node say the documents may be copies as a whole, a
	// paragraph repeated in many documents (a site's footer) does not.
	var groups [][]int32
	var reps []int32 // one node per distinct key of a hash
	var held [][]int32
	for a := 0; a < len(ks); {
		b := a + 1
		for b < len(ks) && ks[b].h == ks[a].h {
			b++
		}
		if b-a == 1 {
			a = b
			continue
		}
		reps, held = reps[:0], held[:0]
		for i := a; i < b; i++ {
			v := ks[i].v
			found := false
			for r, u := range reps {
				if sameKey(&g.Nodes[u], &g.Nodes[v]) {
					f.union(u, v)
					joined = true
					held[r] = append(held[r], v)
					found = true
					break
				}
			}
			if !found {
				reps = append(reps, v)
				held = append(held, []int32{v})
			}
		}
		for _, grp := range held {
			if len(grp) > 1 {
				groups = append(groups, grp)
			}
		}
		a = b
	}
	ks = nil
	// Near copies over the edges: the folded word sequences of two nodes
	// are equal (an exact copy up to case and punctuation, in any two
	// documents), or two nodes of different documents are similar enough.
	var exactWords, near []nearPair
	for _, e := range g.Edges {
		u, v := e.U, e.V
		if !f.near[u] || !f.near[v] || e.Weight < copyCandidateCos || f.find(u) == f.find(v) {
			continue
		}
		wu, wv := f.wordsOf(u), f.wordsOf(v)
		if len(wu.set) == 0 || len(wv.set) == 0 {
			continue
		}
		if wu.seq == wv.seq && slices.Equal(wu.set, wv.set) {
			exactWords = append(exactWords, nearPair{u, v, 1})
			continue
		}
		if f.doc[u] == f.doc[v] {
			continue
		}
		if j, ok := f.nearCopies(u, v); ok {
			near = append(near, nearPair{u, v, j})
		}
	}
	for _, p := range exactWords {
		f.union(p.u, p.v)
		joined = true
	}
	f.exact = make([]int32, n)
	for i := range f.exact {
		r := f.find(int32(i))
		f.exact[i] = r
		if f.size[r] > 1 {
			m := f.held[r]
			if m == nil {
				m = map[int32]int32{}
				f.held[r] = m
			}
			m[f.doc[i]] = r
		}
	}
	for _, p := range exactWords {
		if len(groups) < 1<<30 { // each word-exact pair is a group of two
			groups = append(groups, []int32{p.u, p.v})
		}
	}
	// Per pair of documents, the nodes of each with a copy in the other.
	type docPair struct{ a, b int32 }
	have := map[docPair]map[int32]bool{}
	mark := func(u, v int32) {
		du, dv := f.doc[u], f.doc[v]
		if du == dv {
			return
		}
		k := docPair{min(du, dv), max(du, dv)}
		m := have[k]
		if m == nil {
			m = map[int32]bool{}
			have[k] = m
		}
		m[u], m[v] = true, true
	}
	for _, grp := range groups {
		if len(grp) < 2 || len(grp) > maxDocCopies {
			continue
		}
		for i := range grp {
			for j := range i {
				mark(grp[j], grp[i])
			}
		}
	}
	for _, p := range near {
		mark(p.u, p.v)
	}
	// Documents that are copies as a whole: align their nodes.
	keys := make([]docPair, 0, len(have))
	for k := range have {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y docPair) int {
		if c := cmp.Compare(x.a, y.a); c != 0 {
			return c
		}
		return cmp.Compare(x.b, y.b)
	})
	for _, k := range keys {
		m := have[k]
		small := k.a
		if len(f.docs[k.b]) < len(f.docs[small]) {
			small = k.b
		}
		covered := 0
		for v := range m {
			if f.doc[v] == small {
				covered++
			}
		}
		if float64(covered) < copyDocShare*float64(len(f.docs[small])) {
			continue
		}
		near = append(near, f.align(k.a, k.b)...)
	}
	// Most similar first, so that a class takes a document's nearest node.
	slices.SortFunc(near, func(x, y nearPair) int {
		if c := cmp.Compare(y.j, x.j); c != 0 {
			return c
		}
		if c := cmp.Compare(min(x.u, x.v), min(y.u, y.v)); c != 0 {
			return c
		}
		return cmp.Compare(max(x.u, x.v), max(y.u, y.v))
	})
	for _, p := range near {
		if f.unionNear(p.u, p.v) {
			joined = true
		}
	}
	if !joined {
		return &copyIndex{}
	}
	// Classes in the order of their lowest node; members ascending.
	x := &copyIndex{class: make([]int32, n), start: []int32{0}}
	count := make([]int32, n) // per root
	id := make([]int32, n)    // per root: its class, or -1
	for i := range x.class {
		count[f.find(int32(i))]++
		id[i] = -1
	}
	for i := range x.class {
		r := f.find(int32(i))
		if count[r] < 2 {
			x.class[i] = -1
			continue
		}
		if id[r] < 0 {
			id[r] = int32(len(x.start) - 1)
			x.start = append(x.start, x.start[len(x.start)-1]+count[r])
		}
		x.class[i] = id[r]
	}
	x.members = make([]int32, x.start[len(x.start)-1])
	next := append([]int32(nil), x.start[:len(x.start)-1]...)
	for i, c := range x.class {
		if c >= 0 {
			x.members[next[c]] = int32(i)
			next[c]++
		}
	}
	return x
}

// align pairs the nodes of documents a and b, copies of one document as a
// whole: each node's candidates in the other document are its edges' other
// ends and the nodes within copyAlignWindow of its relative position; a
// node is paired with its most similar candidate (alignSim, ties to the
// lower index) when that one's most similar candidate is the node, they
// are under one heading and their numbers agree.
func (f *copyFinder) align(a, b int32) []nearPair {
	best := func(v int32, other int32) (int32, float64) {
		wv := f.wordsOf(v)
		bestU, bestJ := int32(-1), -1.0
		try := func(u int32) {
			if f.doc[u] != other || !f.near[u] {
				return
			}
			wu := f.wordsOf(u)
			if len(wu.set) == 0 || !slices.Equal(wv.section, wu.section) || !sameNumbers(&wv, &wu) {
				return
			}
			j, ok := alignSim(&f.g.Nodes[v], &f.g.Nodes[u], &wv, &wu, &f.wt.buf)
			if ok && (j > bestJ || (j == bestJ && u < bestU)) {
				bestU, bestJ = u, j
			}
		}
		nb, _ := f.g.Neighbors(int(v))
		for _, u := range nb {
			try(u)
		}
		mine, theirs := f.docs[f.doc[v]], f.docs[other]
		pos, _ := slices.BinarySearch(mine, v)
		at := pos * len(theirs) / max(len(mine), 1)
		for k := max(at-copyAlignWindow, 0); k <= min(at+copyAlignWindow, len(theirs)-1); k++ {
			try(theirs[k])
		}
		return bestU, bestJ
	}
	var out []nearPair
	for _, v := range f.docs[a] {
		if !f.near[v] || len(f.wordsOf(v).set) == 0 {
			continue
		}
		u, j := best(v, b)
		if u < 0 {
			continue
		}
		if back, _ := best(u, a); back == v {
			out = append(out, nearPair{v, u, j})
		}
	}
	return out
}

// alignSim is the similarity of nodes x and y (words wx and wy) of two
// documents that are copies as a whole, and whether it is enough to pair
// them: the Jaccard similarity of their word sets, a word of one that is a
// typo of a word of the other (typoOf) counted as shared, either as they
// are or with the first or last line of the longer one's text left out (a
// line added to a copy). Nodes of copyMinWords words or more each pair at
// copyAlignJaccard; a shorter node (a table's title, a short row) pairs
// only when nothing is left over: the same words, up to typos, order and
// repeats, and an added line. A short row whose cell says something else
// ("Won" for "Lost", "Smyth" for "Smith", "2002" for "2001") is another
// content, even in a copy of its table.
func alignSim(x, y *Node, wx, wy *words, buf *[]byte) (float64, bool) {
	long, short := y, x
	ls, ss := wy.set, wx.set
	if len(wx.set) > len(wy.set) {
		long, short, ls, ss = x, y, wx.set, wy.set
	}
	need := copyAlignJaccard
	if min(len(wx.set), len(wy.set)) < copyMinWords {
		need = 1
	}
	stext := nodeText(short)
	j := typoJaccard(ss, stext, ls, nodeText(long), need, buf)
	text := long.Content
	if first, last := strings.IndexByte(text, '\n'), strings.LastIndexByte(text, '\n'); first >= 0 && j < 1 {
		for _, rest := range [2]string{text[first+1:], text[:last]} {
			var set []uint32
			foldWords(rest, buf, func(h uint32, _ []byte, _ bool) { set = append(set, h) })
			slices.Sort(set)
			j = max(j, typoJaccard(ss, stext, slices.Compact(set), rest, need, buf))
		}
	}
	return j, j >= need
}

// nodeText is the text a node's words are folded from: its caption, when
// it differs from the text, as a line before it.
func nodeText(n *Node) string {
	if n.Caption != "" && n.Caption != n.Content {
		return n.Caption + "\n" + n.Content
	}
	return n.Content
}

// typoJaccard is |a∩b| / |a∪b| of two ascending word sets (of texts at and
// bt), with each word of a not in b that is a typo (typoOf) of a word of b
// not in a counted as shared, each word matched once. Typos are looked
// for only when matching them could bring the similarity to need.
func typoJaccard(a []uint32, at string, b []uint32, bt string, need float64, buf *[]byte) float64 {
	in := intersect(a, b)
	un := len(a) + len(b) - in
	if un == 0 {
		return 0
	}
	most := min(len(a), len(b)) - in // typo pairs at most
	if most == 0 || float64(in+most)/float64(un-most) < need {
		return float64(in) / float64(un)
	}
	onlyA, onlyB := wordsNotIn(at, b, buf), wordsNotIn(bt, a, buf)
	m := 0
	used := make([]bool, len(onlyB))
	for _, x := range onlyA {
		for k, y := range onlyB {
			if !used[k] && typoOf(x, y) {
				used[k] = true
				m++
				break
			}
		}
	}
	return float64(in+m) / float64(un-m)
}

// wordsNotIn returns the distinct folded words of text whose hashes are not
// in the ascending set, in order of appearance.
func wordsNotIn(text string, set []uint32, buf *[]byte) []string {
	var out []string
	var seen []uint32
	foldWords(text, buf, func(h uint32, word []byte, _ bool) {
		if _, ok := slices.BinarySearch(set, h); ok || slices.Contains(seen, h) {
			return
		}
		seen = append(seen, h)
		out = append(out, string(word))
	})
	return out
}

// typoMinLetters is the fewest letters the longer of two words needs for
// one to be a typo of the other: "sing" and "sign" are both words.
const typoMinLetters = 5

// typoOf reports whether folded words x and y, without digits, differ by
// one typo: two adjacent letters swapped, or one letter added or dropped,
// the longer of at least typoMinLetters letters. A letter replaced by
// another is not a typo here: it makes another name as often as not
// ("Smith", "Smyth"); a digit changed is another figure.
func typoOf(x, y string) bool {
	if hasDigit(x) || hasDigit(y) {
		return false
	}
	a, b := []rune(x), []rune(y)
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a) < typoMinLetters || len(a)-len(b) > 1 {
		return false
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && slices.Equal(a[i+2:], b[i+2:])
	}
	return slices.Equal(a[i+1:], b[i:])
}

// restrict returns the classes of the subgraph on nodes (ascending): each
// class's members among nodes, renumbered, where two or more remain.
func (x *copyIndex) restrict(nodes []int32) *copyIndex {
	if x.class == nil {
		return &copyIndex{}
	}
	local := map[int32][]int32{}
	var order []int32
	for i, v := range nodes {
		c := x.class[v]
		if c < 0 {
			continue
		}
		if local[c] == nil {
			order = append(order, c)
		}
		local[c] = append(local[c], int32(i))
	}
	s := &copyIndex{class: make([]int32, len(nodes)), start: []int32{0}}
	for i := range s.class {
		s.class[i] = -1
	}
	for _, c := range order {
		ms := local[c]
		if len(ms) < 2 {
			continue
		}
		id := int32(len(s.start) - 1)
		for _, i := range ms {
			s.class[i] = id
		}
		s.members = append(s.members, ms...)
		s.start = append(s.start, int32(len(s.members)))
	}
	if len(s.members) == 0 {
		return &copyIndex{}
	}
	return s
}

// titleGroupAll is the largest group of nodes under one heading whose
// pairs titleClasses compares all; a larger group compares each node with
// titleGroupWindow neighbours in two min-hash orders.
const (
	titleGroupAll    = 32
	titleGroupWindow = 4
)

// titleClasses returns the content classes of nodes without a graph's
// edges (each node's lowest copy, or nil when no two nodes hold one
// content), for MentionLinks' counts: Copies' rules over candidate pairs
// taken within each heading, since near copies share their heading and
// exact copies are found by key anyway. A heading's nodes are all
// compared when they are few; otherwise each is compared with its
// titleGroupWindow neighbours in two orders by min-hash of the word set
// (two sets of Jaccard j share a min-hash with probability j), so the
// cost stays linear in the nodes.
func titleClasses(nodes []Node) []int32 {
	wt := newWordTable(nodes)
	// The nodes under each heading (its words as the key), in order.
	gid := map[string]int{}
	var groups [][]int32
	var key []byte
	for i := range nodes {
		w := wt.of(int32(i))
		if len(w.set) < copyMinWords || nodes[i].Image != nil {
			continue
		}
		key = key[:0]
		for _, h := range w.section {
			key = binary.LittleEndian.AppendUint32(key, h)
		}
		k, ok := gid[string(key)]
		if !ok {
			k = len(groups)
			gid[string(key)] = k
			groups = append(groups, nil)
		}
		groups[k] = append(groups[k], int32(i))
	}
	var cand []Edge
	pair := func(u, v int32) {
		if nodes[u].Doc != nodes[v].Doc {
			cand = append(cand, Edge{U: u, V: v, Weight: 1, Kind: EdgeKNN})
		}
	}
	minHash := func(set []uint32, salt uint32) uint32 {
		m := ^uint32(0)
		for _, h := range set {
			m = min(m, (h^salt)*2654435761)
		}
		return m
	}
	var mh []uint32 // per node, its min-hash under the current salt
	for _, g := range groups {
		if len(g) <= titleGroupAll {
			for a := range g {
				for b := range a {
					pair(g[b], g[a])
				}
			}
			continue
		}
		for _, salt := range []uint32{0x9e3779b9, 0x85ebca6b} {
			if mh == nil {
				mh = make([]uint32, len(nodes))
			}
			for _, v := range g {
				mh[v] = minHash(wt.of(v).set, salt)
			}
			slices.SortStableFunc(g, func(a, b int32) int { return cmp.Compare(mh[a], mh[b]) })
			for a := range g {
				for b := a + 1; b < min(a+1+titleGroupWindow, len(g)); b++ {
					pair(g[a], g[b])
				}
			}
		}
	}
	tmp, err := assembleOwned(nodes, rows{}, cand)
	if err != nil {
		return nil
	}
	for i := range tmp.Edges { // no embeddings: every candidate is compared
		tmp.Edges[i].Weight = 1
	}
	x := findCopiesWith(tmp, wt)
	if x.class == nil {
		return nil
	}
	class := make([]int32, len(nodes))
	for i := range class {
		class[i] = int32(i)
		if c := x.class[i]; c >= 0 {
			class[i] = x.members[x.start[c]]
		}
	}
	return class
}

// copyKey hashes what exact copies share (the modality, image, caption and
// text that sameKey compares) with FNV-1a, 64 bits, the same in every
// process: two exact copies have one key; 0 for a node with no content to
// share. A store keeps it per node, so that an update finds the exact
// copies of the nodes it adds anywhere in the collection by an index.
func copyKey(n *Node) uint64 {
	if !hasContent(n) {
		return 0
	}
	h := uint64(fnvOffset64)
	add := func(s string) {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * fnvPrime64
		}
		h = (h ^ 0) * fnvPrime64
	}
	h = (h ^ uint64(n.Modality)) * fnvPrime64
	add(imagePath(n))
	add(n.Caption)
	add(n.Content)
	if h == 0 {
		h = 1
	}
	return h
}

// copiesAmong returns the content classes Copies finds in the graph
// induced by nodes (indexes of g, strictly ascending): the nodes, the
// edges among them, and nothing else of g (neither g's classes nor its
// other nodes). Each class is ascending, in g's indexes, in the order of
// their lowest node. A store's update finds the classes of the region a
// change touches this way, without the whole graph's detection.
func copiesAmong(g *Graph, nodes []int32) [][]int32 {
	s := &Graph{}
	g.induce(s, nodes)
	x := findCopies(s)
	var out [][]int32
	for c := 0; c+1 < len(x.start); c++ {
		ms := x.members[x.start[c]:x.start[c+1]]
		cl := make([]int32, len(ms))
		for k, m := range ms {
			cl[k] = nodes[m]
		}
		out = append(out, cl)
	}
	return out
}

// setCopies makes classes g's content classes in place of those Copies
// would find (each class two or more distinct nodes of g, ascending; no
// node in two): a candidate subgraph read from a store carries the
// collection's classes, since its nodes' text (read lazily) cannot show
// them. Classes are renumbered in the order of their lowest node.
func setCopies(g *Graph, classes [][]int32) error {
	n := int32(len(g.Nodes))
	x := &copyIndex{class: make([]int32, n), start: []int32{0}}
	for i := range x.class {
		x.class[i] = -1
	}
	cs := slices.Clone(classes)
	slices.SortFunc(cs, func(a, b []int32) int {
		if len(a) == 0 || len(b) == 0 {
			return cmp.Compare(len(a), len(b))
		}
		return cmp.Compare(a[0], b[0])
	})
	for _, c := range cs {
		if len(c) < 2 || !slices.IsSorted(c) {
			return fmt.Errorf("graph: content class %v: not two or more nodes ascending", c)
		}
		id := int32(len(x.start) - 1)
		for k, v := range c {
			if v < 0 || v >= n || (k > 0 && c[k-1] == v) || x.class[v] >= 0 {
				return fmt.Errorf("graph: content class %v: node %d out of range, repeated or in another class", c, v)
			}
			x.class[v] = id
		}
		x.members = append(x.members, c...)
		x.start = append(x.start, int32(len(x.members)))
	}
	if len(x.members) == 0 {
		x = &copyIndex{}
	}
	g.copies.Store(x)
	return nil
}

// classVector returns each node's content class as its lowest copy (the
// node itself when it has none), or nil when g has no copies: the form
// mention.Options.Class counts contents by.
func classVector(g *Graph) []int32 {
	x := g.copyIndex()
	if len(x.members) == 0 {
		return nil
	}
	out := make([]int32, len(g.Nodes))
	for i := range out {
		out[i] = int32(i)
		if c := x.class[i]; c >= 0 {
			out[i] = x.members[x.start[c]]
		}
	}
	return out
}
