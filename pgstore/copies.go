package pgstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/graphhook"
)

// Content classes in a collection (graph.Graph.Copies): Import finds them
// over the whole graph and stores them (cands.copies: the whole class in
// its lowest member's row, the lowest seq in the others', see rowCopies).
// An update finds them again over the region it
// touches, not over the collection (the whole graph's detection takes
// 12.6 s of CPU at 1M nodes, the update goal is 2 s): the nodes it adds
// and the kept nodes an update relinks, their neighbours in the new graph,
// the kept nodes that are exact copies of an added one (by cands.ckey,
// indexed), the members of every stored class among them (so that a class
// is recomputed whole or not at all) and, for every class of at most
// maxDocCopies members, the whole of its members' documents (a document
// that is a copy of another as a whole is aligned node by node, which
// needs both documents). Within that region the detection is the whole
// graph's; what the region leaves out is two kept nodes that the update
// newly joins by an edge without relinking either (not reported by a
// Diff from graph.Builder.Update, which relinks them) and alignments
// through more than maxRegionRounds documents in a chain.

// maxDocCopies mirrors graph's bound on the exact-copy groups that count
// toward whole-document copies: a document is completed in the region
// only through a class of at most this many members.
const maxDocCopies = 8

// maxRegionRounds bounds how often the region grows by stored classes and
// whole documents.
const maxRegionRounds = 4

// seqIndex maps a kept node's seq to its index in an update's graph: the
// kept runs' seq segments, by their first seq.
type seqIndex struct {
	lo, hi []int64
	at     []int // the graph index of lo
}

func newSeqIndex(m *seqMap) *seqIndex {
	type seg struct {
		lo, hi int64
		at     int
	}
	var segs []seg
	for k, r := range m.runs {
		if m.base[k] >= 0 {
			continue
		}
		rs := m.old[r.doc].ranges
		skip, i, left := int64(r.off), r.start, int64(r.n)
		for j := 0; j+1 < len(rs) && left > 0; j += 2 {
			l := rs[j+1] - rs[j] + 1
			if skip >= l {
				skip -= l
				continue
			}
			lo := rs[j] + skip
			cnt := min(l-skip, left)
			segs = append(segs, seg{lo, lo + cnt - 1, i})
			i += int(cnt)
			left -= cnt
			skip = 0
		}
	}
	slices.SortFunc(segs, func(a, b seg) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	x := &seqIndex{}
	for _, s := range segs {
		x.lo, x.hi, x.at = append(x.lo, s.lo), append(x.hi, s.hi), append(x.at, s.at)
	}
	return x
}

// index returns the graph index of the kept node seq.
func (x *seqIndex) index(seq int64) (int, bool) {
	k := sort.Search(len(x.lo), func(k int) bool { return x.lo[k] > seq }) - 1
	if k < 0 || seq > x.hi[k] {
		return 0, false
	}
	return x.at[k] + int(seq-x.lo[k]), true
}

// copyUpdate is what an update changes of the content classes.
type copyUpdate struct {
	// class maps a node of the region (graph index) to its new class
	// (graph indexes, ascending; nil when it has none).
	class map[int][]int32
	// stored is the stored class (seqs) of every kept node of the region
	// that has one.
	stored map[int64][]int64
	// goneNonRep are the removed nodes that held a lower node's content
	// (counted in neither collections.contents nor keywords.df).
	goneNonRep map[int64]bool
	// asSeqs caches the region's classes as seqs, by their lowest node.
	asSeqs map[int32][]int64
}

// regionCopies finds the content classes of the region an update touches
// (see the comment at the top of this file): fresh are the nodes it adds,
// relinked the kept nodes whose edges it changed, gone the seqs it
// removes (their stored classes not yet deleted).
func regionCopies(ctx context.Context, tx pgx.Tx, coll int32, g *graph.Graph, m *seqMap, idx *seqIndex, fresh []int, relinked []int32, gone []int64) (*copyUpdate, error) {
	in := map[int]bool{}
	add := func(i int) bool {
		if in[i] {
			return false
		}
		in[i] = true
		return true
	}
	for _, i := range fresh {
		add(i)
	}
	for _, i := range relinked {
		add(int(i))
	}
	u := &copyUpdate{stored: map[int64][]int64{}, goneNonRep: map[int64]bool{}}
	// The kept members of the removed nodes' classes.
	if len(gone) > 0 {
		cls, err := readClasses(ctx, tx, coll, gone)
		if err != nil {
			return nil, err
		}
		done := map[int64]bool{} // classes by their lowest seq
		for seq, cp := range cls {
			if cp[0] != seq {
				u.goneNonRep[seq] = true
			}
			if done[cp[0]] {
				continue
			}
			done[cp[0]] = true
			for _, s := range cp {
				if i, ok := idx.index(s); ok {
					add(i)
				}
			}
		}
	}
	// Their neighbours: the detection's candidate pairs are edges.
	for _, i := range slices.Collect(maps.Keys(in)) {
		nb, _ := g.Neighbors(i)
		for _, u := range nb {
			add(int(u))
		}
	}
	// The kept exact copies of the added nodes, anywhere.
	var keys []int64
	for _, i := range fresh {
		if k := graphhook.CopyKey(&g.Nodes[i]); k != 0 {
			keys = append(keys, int64(k))
		}
	}
	if len(keys) > 0 {
		rows, err := tx.Query(ctx, `SELECT seq FROM flowreader.cands WHERE coll = $1 AND ckey = ANY($2)`, coll, keys)
		if err != nil {
			return nil, wrap("update: content classes", err)
		}
		for rows.Next() {
			var s int64
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return nil, wrap("update: content classes", err)
			}
			if i, ok := idx.index(s); ok {
				add(i)
			}
		}
		if err := rows.Err(); err != nil {
			return nil, wrap("update: content classes", err)
		}
	}
	read := map[int]bool{} // kept nodes whose stored class was read
	whole := map[string]bool{}
	var runsOf map[string][]docRun // made on the first document completed
	for _, i := range fresh {
		whole[g.Nodes[i].Doc] = true
	}
	var classes [][]int32
	for round := 0; ; round++ {
		// The stored classes of the kept nodes, whole.
		var ask []int64
		for i := range in {
			if !read[i] && !m.fresh(i) {
				read[i] = true
				ask = append(ask, m.seq(i))
			}
		}
		if len(ask) > 0 {
			cls, err := readClasses(ctx, tx, coll, ask)
			if err != nil {
				return nil, err
			}
			for s, cp := range cls {
				// Every kept member's stored class is this one: recorded
				// for each (a member read in by the last round is never
				// asked, and write must know what it held), once a class.
				if _, ok := u.stored[s]; ok {
					continue
				}
				u.stored[s] = cp
				for _, c := range cp {
					if i, ok := idx.index(c); ok {
						add(i)
						read[i] = true
						u.stored[c] = cp
					}
				}
			}
		}
		nodes := make([]int32, 0, len(in))
		for i := range in {
			nodes = append(nodes, int32(i))
		}
		slices.Sort(nodes)
		classes = graphhook.CopiesAmong(g, nodes)
		if round+1 >= maxRegionRounds {
			break
		}
		// Whole documents for the classes that can align documents.
		grew := false
		complete := func(d string) {
			if whole[d] {
				return
			}
			whole[d] = true
			if runsOf == nil {
				runsOf = map[string][]docRun{}
				for _, r := range m.runs {
					runsOf[r.doc] = append(runsOf[r.doc], r)
				}
			}
			for _, r := range runsOf[d] {
				for i := r.start; i < r.start+r.n; i++ {
					if add(i) {
						grew = true
					}
				}
			}
		}
		for _, c := range classes {
			if len(c) > maxDocCopies {
				continue
			}
			for _, v := range c {
				complete(g.Nodes[v].Doc)
			}
		}
		for _, cp := range u.stored {
			if len(cp) > maxDocCopies {
				continue
			}
			for _, s := range cp {
				if i, ok := idx.index(s); ok {
					complete(g.Nodes[i].Doc)
				}
			}
		}
		if !grew && len(ask) == 0 {
			break
		}
	}
	u.class = make(map[int][]int32, len(in))
	for i := range in {
		u.class[i] = nil
	}
	for _, c := range classes {
		for _, v := range c {
			u.class[int(v)] = c
		}
	}
	return u, nil
}

// A class is stored in space linear in its members (a footer repeated on
// every page is one class of as many members): its lowest member's row
// (cands.copies) holds the whole class, every other member's row its
// class's lowest seq and its own seq; a node without a copy holds none.

// rowCopies is what node seq's row stores of its class (seqs, ascending,
// seq among them; nil for none).
func rowCopies(class []int64, seq int64) []int64 {
	if len(class) == 0 || class[0] == seq {
		return class
	}
	return []int64{class[0], seq}
}

// readClasses returns the stored class (seqs, ascending) of each of seqs
// that has one: the lowest seq from its row, the class from its lowest
// member's row, each class read once (a boilerplate class's members all
// share one slice, of the class's size, not one a member).
func readClasses(ctx context.Context, tx pgx.Tx, coll int32, seqs []int64) (map[int64][]int64, error) {
	rows, err := tx.Query(ctx, `SELECT seq, copies[1] FROM flowreader.cands WHERE coll = $1 AND seq = ANY($2) AND copies <> '{}'`, coll, seqs)
	if err != nil {
		return nil, wrap("update: content classes", err)
	}
	lowest := map[int64]int64{}
	var los []int64
	seen := map[int64]bool{}
	for rows.Next() {
		var s, lo int64
		if err := rows.Scan(&s, &lo); err != nil {
			rows.Close()
			return nil, wrap("update: content classes", err)
		}
		lowest[s] = lo
		if !seen[lo] {
			seen[lo] = true
			los = append(los, lo)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("update: content classes", err)
	}
	out := map[int64][]int64{}
	if len(los) == 0 {
		return out, nil
	}
	rows, err = tx.Query(ctx, `SELECT seq, copies FROM flowreader.cands WHERE coll = $1 AND seq = ANY($2) AND copies[1] = seq`, coll, los)
	if err != nil {
		return nil, wrap("update: content classes", err)
	}
	class := map[int64][]int64{}
	for rows.Next() {
		var lo int64
		var cp []int64
		if err := rows.Scan(&lo, &cp); err != nil {
			rows.Close()
			return nil, wrap("update: content classes", err)
		}
		class[lo] = cp
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("update: content classes", err)
	}
	for s, lo := range lowest {
		cp := class[lo]
		if _, ok := slices.BinarySearch(cp, s); !ok || len(cp) < 2 {
			return nil, wrap("update: content classes", fmt.Errorf("node %d's stored class %v (lowest %d) lacks it", s, cp, lo))
		}
		out[s] = cp
	}
	return out, nil
}

// seqs is seqsOf(m, c) for a class of the region, converted once.
func (u *copyUpdate) seqs(m *seqMap, c []int32) []int64 {
	if u.asSeqs == nil {
		u.asSeqs = map[int32][]int64{}
	}
	if x, ok := u.asSeqs[c[0]]; ok {
		return x
	}
	x := seqsOf(m, c)
	u.asSeqs[c[0]] = x
	return x
}

// seqsOf is class c (graph indexes) as seqs, ascending.
func seqsOf(m *seqMap, c []int32) []int64 {
	out := make([]int64, len(c))
	for k, v := range c {
		out[k] = m.seq(int(v))
	}
	slices.Sort(out)
	return out
}

// write stores the new classes of the region's kept nodes whose class
// changed (the added nodes' are written with their rows), one statement a
// class, and brings the keywords' frequencies to the kept nodes that now
// hold, or no longer hold, a lower node's content. It returns the change
// to the collection's count of contents those kept nodes make.
func (u *copyUpdate) write(ctx context.Context, tx pgx.Tx, coll int32, m *seqMap) (int64, error) {
	b := &pgx.Batch{}
	var cleared, rep, nonRep []int64
	done := map[int64]bool{}
	// A class's members share its slices: each class is converted and
	// compared once, not once a member (a boilerplate class is large).
	type pair struct {
		c int32 // the new class's lowest node, -1 for none
		o int64 // the stored class's lowest seq, -1 for none
	}
	equal := map[pair]bool{}
	for i, c := range u.class {
		if m.fresh(i) {
			continue
		}
		s := m.seq(i)
		var want []int64
		k := pair{-1, -1}
		if c != nil {
			want = u.seqs(m, c)
			k.c = c[0]
		}
		old := u.stored[s]
		if old != nil {
			k.o = old[0]
		}
		eq, ok := equal[k]
		if !ok {
			eq = slices.Equal(want, old)
			equal[k] = eq
		}
		if eq {
			continue
		}
		wasRep, isRep := len(old) == 0 || old[0] == s, len(want) == 0 || want[0] == s
		switch {
		case isRep && !wasRep:
			rep = append(rep, s)
		case wasRep && !isRep:
			nonRep = append(nonRep, s)
		}
		if want == nil {
			cleared = append(cleared, s)
			continue
		}
		if done[want[0]] {
			continue
		}
		done[want[0]] = true
		// Every kept member of the class takes it, as rowCopies stores
		// it (the added ones have it from their rows).
		b.Queue(`UPDATE flowreader.cands SET copies = CASE WHEN seq = $2 THEN $3 ELSE ARRAY[$2, seq] END
WHERE coll = $1 AND seq = ANY($3) AND copies <> CASE WHEN seq = $2 THEN $3 ELSE ARRAY[$2, seq] END`, coll, want[0], want)
	}
	if len(cleared) > 0 {
		slices.Sort(cleared)
		b.Queue(`UPDATE flowreader.cands SET copies = '{}' WHERE coll = $1 AND seq = ANY($2)`, coll, cleared)
	}
	if len(rep)+len(nonRep) > 0 {
		// A node that now represents its content counts its keywords;
		// one that no longer does, not.
		b.Queue(`INSERT INTO flowreader.keywords AS k (coll, kw, df)
SELECT $1, kw, count(*) FROM flowreader.cands c CROSS JOIN LATERAL unnest(c.kwnorm) kw WHERE c.coll = $1 AND c.seq = ANY($2) GROUP BY kw
ON CONFLICT (coll, kw) DO UPDATE SET df = k.df + excluded.df`, coll, nonNil64(rep))
		b.Queue(`UPDATE flowreader.keywords k SET df = k.df - x.c FROM (
	SELECT kw, count(*) AS c FROM flowreader.cands c CROSS JOIN LATERAL unnest(c.kwnorm) kw WHERE c.coll = $1 AND c.seq = ANY($2) GROUP BY kw) x
WHERE k.coll = $1 AND k.kw = x.kw`, coll, nonNil64(nonRep))
		b.Queue(`DELETE FROM flowreader.keywords k WHERE k.coll = $1 AND k.df <= 0 AND k.kw IN (
	SELECT kw FROM flowreader.cands c CROSS JOIN LATERAL unnest(c.kwnorm) kw WHERE c.coll = $1 AND c.seq = ANY($2))`, coll, nonNil64(nonRep))
	}
	if b.Len() == 0 {
		return 0, nil
	}
	return int64(len(rep) - len(nonRep)), wrap("update: content classes", tx.SendBatch(ctx, b).Close())
}

// storedClasses reads every stored class of the collection (seq → its
// class's lowest seq), by the partial index of the nodes that have one:
// what the title mentions' counts need (mention.Options.Class), which are
// over the whole collection.
func storedClasses(ctx context.Context, tx pgx.Tx, coll int32) (map[int64]int64, error) {
	rows, err := tx.Query(ctx, `SELECT seq, copies[1] FROM flowreader.cands WHERE coll = $1 AND copies <> '{}'`, coll)
	if err != nil {
		return nil, wrap("update: content classes", err)
	}
	out := map[int64]int64{}
	for rows.Next() {
		var s, c int64
		if err := rows.Scan(&s, &c); err != nil {
			rows.Close()
			return nil, wrap("update: content classes", err)
		}
		out[s] = c
	}
	return out, wrap("update: content classes", rows.Err())
}

// classVector is each node of g's content class as mention.Options.Class
// wants it (its class's lowest node), or nil when no node has a copy: the
// stored ones (old: seq → lowest seq) of the kept nodes, then the region's
// new classes over them. It visits the nodes that have a class, not the
// collection.
func classVector(g *graph.Graph, idx *seqIndex, u *copyUpdate, old map[int64]int64) []int32 {
	var out []int32
	set := func(i int, c int32) {
		if out == nil {
			out = make([]int32, len(g.Nodes))
			for k := range out {
				out[k] = int32(k)
			}
		}
		out[i] = c
	}
	for s, lo := range old {
		i, ok := idx.index(s)
		if !ok {
			continue // removed
		}
		if j, ok := idx.index(lo); ok {
			set(i, int32(j))
		}
	}
	for i, c := range u.class {
		switch {
		case c != nil:
			set(i, c[0])
		case out != nil:
			out[i] = int32(i)
		}
	}
	return out
}

// titledGraph reports whether some node of g has a title (a Section),
// the only case in which title mentions are counted.
func titledGraph(g *graph.Graph) bool {
	for i := range g.Nodes {
		if g.Nodes[i].Section != "" {
			return true
		}
	}
	return false
}
