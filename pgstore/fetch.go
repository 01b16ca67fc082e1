package pgstore

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	pgvector "github.com/pgvector/pgvector-go"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/graphhook"
	"github.com/flowreader/flowreader/internal/mention"
	"github.com/flowreader/flowreader/internal/scorehook"
	"github.com/flowreader/flowreader/internal/vec"
	"github.com/flowreader/flowreader/score"
)

// The candidate subgraph's bounds, as score.Index.ScoreCandidates has
// them.
const (
	// candidateSpread bounds the subgraph at candidateSpread·m nodes.
	candidateSpread = 8
	// denseOversample is how many sketch neighbours per dense candidate
	// the first pass keeps for the exact re-rank (at least denseFloor).
	denseOversample = 4
	denseFloor      = 1024
	// annMaxK is the most rows pgvector's HNSW scan returns
	// (hnsw.ef_search's bound).
	annMaxK = 1000
)

// fetched is what one question reads of a collection, in one snapshot:
// the candidate subgraph (the m nodes nearest the question, the m best by
// BM25 and the nodes whose references meet the question's, then their
// neighbours, best seeds first, up to 8·m) with what scoring and routing
// read of each node, and the whole collection's statistics that score the
// candidates as the in-process index scores them.
type fetched struct {
	version int64
	n       int64 // the collection's nodes
	dim     int
	int8    bool

	seqs  []int64      // the candidates, ascending
	nodes []graph.Node // their payloads (without the reading text unless asked)
	emb   []byte       // their embeddings: dim int8s or dim little-endian float32s each
	scale []float32
	edges []graph.Edge // between candidates, in candidate indexes, sorted by (U, V)
	len   []float32    // BM25 document length
	sum   []int32      // answerability's summary length
	refs  [][]string   // reference keys
	names [][]int64    // the nodes each names by title (seqs)
	// copies is each candidate's content class (seqs, its own among
	// them; nil without a copy), nil when the collection keeps none.
	copies    [][]int64
	hasCopies bool  // the collection keeps content classes
	contents  int64 // the collection's contents (collections.contents)

	// bm25 is each candidate's BM25, normalised by the whole collection's
	// range, as score.Scores.BM25 holds it; nil when no query term occurs.
	bm25                []float64
	dense, lexical, ref []int64 // the seeds, best first
	refCount            int     // nodes whose references meet the question's
	cosMean             float64 // mean max(cos, 0) over the entry nodes
	bmLo, bmHi, bmSum   float64 // the whole collection's raw BM25 range and sum
	maxSumLen           int32
	named               []int64    // nodes whose titles the question names
	rank                []int32    // each candidate's position in its document's reading order
	kwnorm              [][]string // each candidate's normalised keywords
	kwdf                map[string]int32
	meanDir             []float32 // the collection's mean embedding direction (classic's MMR), or nil
	bmRaw               []float64 // the candidates' raw BM25, nil when no query term is in the vocabulary
	lex                 lexScores // every node holding a query term, with its raw BM25
	ranges              []int64   // the filter's nodes: inclusive seq ranges, flattened, sorted (nil: no filter)

	trips int // round trips to the database
	// kwTrips is 1 when the trips include one for keyword frequencies the
	// replica did not hold.
	kwTrips int
	// stages is the wall time of the first round trip, the dense pass
	// after it (sketches and re-rank fetch), the replica's work on the
	// seeds, and the second round trip.
	stages [4]time.Duration
}

// change is one version's row of the changes log.
type change struct {
	version        int64
	added, removed []int64
}

// contiguous reports whether cs are the changes of every version after
// from up to to.
func contiguous(cs []change, from, to int64) bool {
	if int64(len(cs)) != to-from {
		return false
	}
	for i, c := range cs {
		if c.version != from+int64(i)+1 {
			return false
		}
	}
	return true
}

// fetchOptions tunes a fetch.
type fetchOptions struct {
	// exact re-ranks every node (no sketch or HNSW pass): the dense
	// candidates are then exactly the m nearest.
	exact bool
	// retried is set on the fetch made again after the collection cache
	// was found stale.
	retried bool
	// text fetches the reading text of every candidate (content, caption,
	// footnote, image text, context, tags), for comparing with the
	// in-process subgraph; a question reads it only for what it reads.
	text bool
	// kwInSnapshot reads the keyword frequencies the replica lacks in the
	// question's snapshot (set on a question asked again after an update
	// came between its snapshot and those frequencies).
	kwInSnapshot bool
	// filter restricts the candidates to the documents it passes.
	filter flowreader.Filter
}

// filtered reports whether f passes fewer than every document.
func filtered(f flowreader.Filter) bool { return len(f.IDs) > 0 || len(f.Metadata) > 0 }

// passSQL is the nodes of the documents a filter passes, for the
// collection named by parameter $name, the filter's IDs in $ids and its
// metadata (JSON) in $meta: a join of the matching documents (the
// metadata through its GIN index) to their nodes (by nodes_doc).
func passSQL(name, ids, meta int) string {
	return fmt.Sprintf(`SELECT n.seq FROM flowreader.documents d JOIN flowreader.nodes n ON n.coll = d.coll AND n.doc = d.id
WHERE d.coll = (SELECT id FROM flowreader.collections WHERE name = $%d) AND (cardinality($%d::text[]) = 0 OR d.id = ANY($%d::text[])) AND d.metadata @> $%d::jsonb`, name, ids, ids, meta)
}

// filterArgs are a filter's IDs and metadata as passSQL's parameters.
func filterArgs(f flowreader.Filter) ([]string, string) {
	ids := f.IDs
	if ids == nil {
		ids = []string{}
	}
	return ids, jsonText(f.Metadata)
}

// inRanges reports whether seq lies in one of the sorted, flattened,
// inclusive ranges r.
func inRanges(r []int64, seq int64) bool {
	i := sort.Search(len(r)/2, func(i int) bool { return r[2*i+1] >= seq })
	return i < len(r)/2 && r[2*i] <= seq
}

// collState is the collection row a question reads.
type collState struct {
	id               int32
	version, n       int64
	dim              int
	int8             bool
	totalLen, idfSum float64
	vocab            int64
	maxSumLen        int32
	entries          []int64
	copies           bool  // the collection keeps content classes
	contents         int64 // its nodes less those holding a lower node's content
	entryEmb         []byte
	entryScale       []float32
}

// fetch reads the candidate subgraph of question q (embedding q.Embedding,
// not necessarily unit) with m candidates of each kind, in one
// repeatable-read snapshot: round trip 1 reads the collection's
// statistics, the dense first pass (with the exact re-rank's rows unless
// the replica's sketches rank it), every posting of the question's terms,
// the reference and title matches; the replica ranks BM25 from the
// postings (rankBM25). Then the adjacency of the lexical seeds not in hand
// is read: with the re-rank rows on the sketch path (whose round trip it
// is anyway), in one more round trip on the others (none when every node
// is re-ranked). The last round trip reads the candidates' rows after the
// replica expanded the seeds: 2 round trips with every node re-ranked, 3
// on the sketch path, 2 or 3 on the others (plus one while the replica's
// keyword cache lacks some of the candidates' keywords).
func (s *Store) fetch(ctx context.Context, name string, q score.Query, m int, c score.Config, opt fetchOptions) (*fetched, error) {
	if m < 1 {
		return nil, fmt.Errorf("%w: %d candidates", ErrInput, m)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, wrap("fetch", err)
	}
	defer conn.Release()
	qu := vec.Unit(q.Embedding)
	kw := scorehook.Keywords(q.Text, q.Keywords)
	var refKeys [][]string
	var flatKeys []string
	if c.RefBoost >= 0 { // zero is the default boost, negative none
		refKeys = scorehook.QueryRefKeys(q.Text)
		for _, ks := range refKeys {
			flatKeys = append(flatKeys, ks...)
		}
	}
	qwords := mention.Words(q.Text)
	k := max(denseOversample*m, denseFloor)
	if opt.exact {
		k = math.MaxInt32
	}
	var meta collMeta
	if !opt.exact {
		if meta, err = s.meta(ctx, conn, name); err != nil {
			return nil, err
		}
	}
	// The dense first pass: exact (every node), pgvector's HNSW, the
	// replica's sketches, or the database's scan of them.
	useCache := !opt.exact && !meta.ann && meta.nodes >= s.sketchMin
	var set *sketchSet
	unlock := func() {}
	defer func() { unlock() }()
	if useCache {
		if set = s.sketches.get(name); set != nil && set.id != meta.id {
			set = nil
		}
		if set == nil {
			// One question at a time loads a whole set; those waiting
			// then find it loaded.
			u, err := s.sketches.lockLoad(ctx)
			if err != nil {
				return nil, wrap("fetch", err)
			}
			unlock = u
			if set = s.sketches.get(name); set != nil && set.id != meta.id {
				set = nil
			}
			if set != nil {
				unlock()
			}
		}
	}
	f := &fetched{}
	var st collState
	isFiltered := filtered(opt.filter)
	fids, fmeta := filterArgs(opt.filter)

	// Round trip 1.
	b := &pgx.Batch{}
	b.Queue(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`)
	// The rows are read by runs of consecutive seqs (byRuns), one index
	// descent a run instead of one a row; JIT is off for the snapshot's
	// statements (their costs are estimated per range, and a compile
	// would cost more than any of them).
	b.Queue(`SET LOCAL jit = off`)
	b.Queue(`SELECT id, version, nodes, dim, int8, total_len, idf_sum, vocab, max_sum_len, entries, copies, contents FROM flowreader.collections WHERE name = $1`, name).
		QueryRow(func(r pgx.Row) error {
			return r.Scan(&st.id, &st.version, &st.n, &st.dim, &st.int8, &st.totalLen, &st.idfSum, &st.vocab, &st.maxSumLen, &st.entries, &st.copies, &st.contents)
		})
	if isFiltered {
		f.ranges = []int64{}
		b.Queue(`SELECT d.ranges FROM flowreader.documents d WHERE d.coll = (SELECT id FROM flowreader.collections WHERE name = $1)
AND (cardinality($2::text[]) = 0 OR d.id = ANY($2::text[])) AND d.metadata @> $3::jsonb`, name, fids, fmeta).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var r []int64
				if err := rows.Scan(&r); err != nil {
					return err
				}
				f.ranges = append(f.ranges, r...)
			}
			return rows.Err()
		})
	}
	if c.Sources > 0 {
		// Classic's MMR pivots on the collection's mean direction.
		b.Queue(`SELECT emb_sum FROM flowreader.collections WHERE name = $1`, name).QueryRow(func(r pgx.Row) error {
			var sum []float64
			if err := r.Scan(&sum); err != nil {
				return err
			}
			f.meanDir = meanDirection(sum)
			return nil
		})
	}
	// The entry nodes' embeddings, unless the cached ones are of the
	// snapshot's version.
	cachedVersion := int64(-1)
	if set != nil {
		cachedVersion = set.version
	}
	gotEntries := false
	b.Queue(`SELECT v.emb, v.scale FROM flowreader.collections c CROSS JOIN LATERAL unnest(c.entries) WITH ORDINALITY e(seq, ord)
JOIN flowreader.cands v ON v.coll = c.id AND v.seq = e.seq WHERE c.name = $1 AND c.version <> $2 ORDER BY e.ord`, name, cachedVersion).
		Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var e []byte
				var sc float32
				if err := rows.Scan(&e, &sc); err != nil {
					return err
				}
				gotEntries = true
				st.entryEmb = append(st.entryEmb, e...)
				st.entryScale = append(st.entryScale, sc)
			}
			return rows.Err()
		})
	var drows []denseRow
	// nbrs holds the adjacency of every node that may be a seed, read with
	// it: the expansion is then made here, the database reads each
	// candidate's row once.
	nbrs := map[int64][]int64{}
	scanDense := func(rows pgx.Rows) error {
		for rows.Next() {
			var d denseRow
			var adj pgtype.DriverBytes // decoded below, before Next
			if err := rows.Scan(&d.seq, &d.emb, &d.scale, &adj); err != nil {
				return err
			}
			nb, kd, err := decodeAdj(adj)
			if err != nil {
				return err
			}
			d.nb, d.kd = nb, kd
			drows = append(drows, d)
			nbrs[d.seq] = nb
		}
		return rows.Err()
	}
	// scanAdj reads the adjacency of lexical seeds (seq, adj) after round
	// trip 1, which ranks them. Only the adjacency: their rows are read
	// in round trip 2 with their neighbours (a seed's document's nodes),
	// in the same runs of seqs; read apart, each would cost one more index
	// descent there.
	scanAdj := func(rows pgx.Rows) error {
		for rows.Next() {
			var seq int64
			var adj pgtype.DriverBytes // decoded below, before Next
			if err := rows.Scan(&seq, &adj); err != nil {
				return err
			}
			nb, _, err := decodeAdj(adj)
			if err != nil {
				return err
			}
			nbrs[seq] = nb
		}
		return rows.Err()
	}
	// What the sketch cache reads: every sketch (no cached set), or the
	// changes since the cached version and the added nodes' sketches.
	var (
		full       bool
		fullSet    *sketchSet // the whole set, sized by the snapshot's node count
		changes    []change
		addedSeqs  []int64
		addedBits  []uint64
		words      = (len(q.Embedding) + 63) / 64
		scanSketch = func(seqs *[]int64, bs *[]uint64) func(pgx.Rows) error {
			return func(rows pgx.Rows) error {
				for rows.Next() {
					var seq int64
					var b pgtype.Bits
					if err := rows.Scan(&seq, &b); err != nil {
						return err
					}
					*seqs = append(*seqs, seq)
					*bs = sketchWords(*bs, b, words)
				}
				return rows.Err()
			}
		}
		// scanSet reads every sketch into a set made for the snapshot's
		// node count (the collection row is read before, in the same
		// snapshot), so that it is not grown, and copied, by appends.
		scanSet = func(dst **sketchSet) func(pgx.Rows) error {
			return func(rows pgx.Rows) error {
				*dst = newSketchSet(words, int(min(max(st.n, 0), math.MaxInt32)))
				return scanSketch(&(*dst).seqs, &(*dst).bits)(rows)
			}
		}
	)
	switch {
	case meta.ann && (!isFiltered || s.iterative):
		// pgvector's HNSW: the collection's partial index is used only when
		// the query names its collection and dimension as its predicate
		// and expression do, so they are written into the text (integers
		// of the collection row, not input). It returns at most ef_search
		// rows; under a filter, pgvector's iterative scan goes on until
		// that many pass (or its scan bound).
		k = min(k, annMaxK)
		b.Queue(fmt.Sprintf(`SET LOCAL hnsw.ef_search = %d`, k))
		if !isFiltered {
			b.Queue(fmt.Sprintf(`SELECT v.seq, v.emb, v.scale, v.adj FROM (
	SELECT a.seq FROM flowreader.ann a WHERE a.coll = %d ORDER BY a.v::halfvec(%d) <#> $1 LIMIT %d) d
JOIN flowreader.cands v ON v.coll = %d AND v.seq = d.seq`, meta.id, meta.dim, k, meta.id), pgvector.NewHalfVector(qu)).Query(scanDense)
			break
		}
		b.Queue(`SET LOCAL hnsw.iterative_scan = strict_order`)
		b.Queue(fmt.Sprintf(`SELECT v.seq, v.emb, v.scale, v.adj FROM (
	SELECT a.seq FROM flowreader.ann a WHERE a.coll = %d AND a.seq IN (%s) ORDER BY a.v::halfvec(%d) <#> $1 LIMIT %d) d
JOIN flowreader.cands v ON v.coll = %d AND v.seq = d.seq`, meta.id, passSQL(2, 3, 4), meta.dim, k, meta.id),
			pgvector.NewHalfVector(qu), name, fids, fmeta).Query(scanDense)
	case useCache && set == nil:
		full = true
		b.Queue(`SELECT seq, bits FROM flowreader.sketches WHERE coll = $1 ORDER BY seq`, meta.id).Query(scanSet(&fullSet))
	case useCache:
		b.Queue(`SELECT version, added, removed FROM flowreader.changes WHERE coll = $1 AND version > $2 ORDER BY version`, meta.id, set.version).
			Query(func(rows pgx.Rows) error {
				for rows.Next() {
					var c change
					if err := rows.Scan(&c.version, &c.added, &c.removed); err != nil {
						return err
					}
					changes = append(changes, c)
				}
				return rows.Err()
			})
		b.Queue(`SELECT s.seq, s.bits FROM flowreader.sketches s WHERE s.coll = $1
AND s.seq IN (SELECT unnest(added) FROM flowreader.changes WHERE coll = $1 AND version > $2) ORDER BY s.seq`, meta.id, set.version).
			Query(scanSketch(&addedSeqs, &addedBits))
	case isFiltered:
		b.Queue(`SELECT v.seq, v.emb, v.scale, v.adj FROM (
	SELECT sk.seq FROM flowreader.sketches sk WHERE sk.coll = (SELECT id FROM flowreader.collections WHERE name = $1)
	AND sk.seq IN (`+passSQL(1, 4, 5)+`)
	ORDER BY bit_count(sk.bits # $2), sk.seq LIMIT $3) d
JOIN flowreader.cands v ON v.coll = (SELECT id FROM flowreader.collections WHERE name = $1) AND v.seq = d.seq`,
			name, sketch(qu), int64(k), fids, fmeta).Query(scanDense)
	default:
		b.Queue(`SELECT v.seq, v.emb, v.scale, v.adj FROM (
	SELECT sk.seq FROM flowreader.sketches sk WHERE sk.coll = (SELECT id FROM flowreader.collections WHERE name = $1)
	ORDER BY bit_count(sk.bits # $2), sk.seq LIMIT $3) d
JOIN flowreader.cands v ON v.coll = (SELECT id FROM flowreader.collections WHERE name = $1) AND v.seq = d.seq`,
			name, sketch(qu), int64(k)).Query(scanDense)
	}
	dfs := make([]int32, len(kw))
	var post *termPostings
	if len(kw) > 0 { // the BM25 seeds are candidates whatever BM25's weight, as in process
		b.Queue(`SELECT u.ord, coalesce(t.df, 0) FROM unnest($2::text[]) WITH ORDINALITY u(term, ord)
LEFT JOIN flowreader.terms t ON t.coll = (SELECT id FROM flowreader.collections WHERE name = $1) AND t.term = u.term`, name, kw).
			Query(func(rows pgx.Rows) error {
				for rows.Next() {
					var ord int64
					var df int32
					if err := rows.Scan(&ord, &df); err != nil {
						return err
					}
					dfs[ord-1] = df
				}
				return rows.Err()
			})
		// Every posting of the question's terms, a term at a time in the
		// question's order: the replica ranks the nodes by BM25 from them
		// (rankBM25) and scores its candidates with them.
		post = newTermPostings(len(kw))
		for t, term := range kw {
			b.Queue(postingsSQL, name, term).Query(post.scan(t))
		}
	}
	type refRow struct {
		key string
		seq int64
	}
	var rrows []refRow
	if len(flatKeys) > 0 {
		b.Queue(`SELECT r.key, r.seq, cd.adj FROM flowreader.refs r JOIN flowreader.cands cd ON cd.coll = r.coll AND cd.seq = r.seq
WHERE r.coll = (SELECT id FROM flowreader.collections WHERE name = $1) AND r.key = ANY($2) ORDER BY r.key, r.seq`, name, flatKeys).
			Query(func(rows pgx.Rows) error {
				for rows.Next() {
					var r refRow
					var adj []byte
					if err := rows.Scan(&r.key, &r.seq, &adj); err != nil {
						return err
					}
					rrows = append(rrows, r)
					nb, _, err := decodeAdj(adj)
					if err != nil {
						return err
					}
					nbrs[r.seq] = nb
				}
				return rows.Err()
			})
	}
	var titleSeqs []int64
	var titles []string
	var titleClass []int64 // each title row's content class: its lowest copy's seq, or its own
	if len(qwords) > 0 {
		// A title shared by more than a few contents names nothing in
		// particular (mention.Options.MaxTitleCopies): copies of one
		// passage count once, as in-process (the rows' classes).
		b.Queue(`SELECT t.seq, t.title, coalesce(c.copies[1], t.seq) FROM flowreader.titles t
JOIN flowreader.cands c ON c.coll = t.coll AND c.seq = t.seq
WHERE t.coll = (SELECT id FROM flowreader.collections WHERE name = $1) AND t.first = ANY($2) ORDER BY t.seq`, name, qwords).
			Query(func(rows pgx.Rows) error {
				for rows.Next() {
					var seq, class int64
					var t string
					if err := rows.Scan(&seq, &t, &class); err != nil {
						return err
					}
					titleSeqs, titles, titleClass = append(titleSeqs, seq), append(titles, t), append(titleClass, class)
				}
				return rows.Err()
			})
	}
	// While the database runs round trip 1, the cached sketches are
	// ranked (about 10 ms at 1M, as long as the statements): their version
	// is nearly always the snapshot's, and when it is not the ranking is
	// made again below. Under a filter the allowed nodes come with the
	// round trip.
	// The ranking reads set.words words of the question's sketch, and the
	// question's dimension is checked only after the round trip: a
	// question of another dimension must not reach it here (with fewer
	// words it would panic in its goroutine, ending the process, where
	// the check below refuses it with ErrInput).
	qs := sketchWords(nil, sketch(qu), words)
	var early chan []int64
	if useCache && set != nil && !isFiltered && len(qs) == set.words {
		early = make(chan []int64, 1)
		go func(set *sketchSet) { early <- set.nearest(qs, k, nil) }(set)
	}
	f.trips++
	t0 := time.Now()
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		rollback(conn)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("pgstore: fetch %q: %w", name, errNotFound)
		}
		return nil, wrap("fetch", err)
	}
	if !opt.exact && meta.id != st.id {
		// The collection was dropped and made again since it was cached.
		rollback(conn)
		s.colls.Delete(name)
		if opt.retried {
			return nil, fmt.Errorf("pgstore: fetch %q: the collection changed twice during one question", name)
		}
		conn.Release()
		unlock()
		opt.retried = true
		return s.fetch(ctx, name, q, m, c, opt)
	}
	if st.dim != len(q.Embedding) {
		rollback(conn)
		return nil, fmt.Errorf("%w: question embedding has %d values, collection %q dimension %d", ErrInput, len(q.Embedding), name, st.dim)
	}
	f.version, f.n, f.dim, f.int8, f.maxSumLen = st.version, st.n, st.dim, st.int8, st.maxSumLen
	// allowed reports whether a node is one of the filter's.
	allowed := func(int64) bool { return true }
	if isFiltered {
		pairs := make([][2]int64, len(f.ranges)/2)
		for i := range pairs {
			pairs[i] = [2]int64{f.ranges[2*i], f.ranges[2*i+1]}
		}
		slices.SortFunc(pairs, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
		for i, p := range pairs {
			f.ranges[2*i], f.ranges[2*i+1] = p[0], p[1]
		}
		allowed = func(seq int64) bool { return inRanges(f.ranges, seq) }
	}
	f.stages[0] = time.Since(t0)
	t0 = time.Now()

	// Lexical: every node holding a query term ranked by BM25 from the
	// postings read (rankBM25, score's arithmetic and order), the
	// statistics the collection's, the m best among the filter's nodes.
	idf := make([]float64, len(kw))
	found := false
	for t, d := range dfs {
		if d == 0 {
			continue
		}
		found = true
		idf[t] = math.Log(float64(st.n)-float64(d)+0.5) - math.Log(float64(d)+0.5)
		if idf[t] < 0 {
			idf[t] = scorehook.Epsilon * st.idfSum / float64(st.vocab)
		}
	}
	if found {
		c0, c1 := bm25Consts(st.n, st.totalLen)
		f.lex = rankBM25(post, idf, c0, c1)
		f.bmLo, f.bmHi, f.bmSum = f.lex.stats(len(kw))
		var allow func(int64) bool
		if isFiltered {
			allow = allowed
		}
		f.lexical = f.lex.top(m, allow)
	}
	if post != nil {
		// The scores hold what is needed of the postings (the batch's
		// callbacks still point at them).
		*post = termPostings{}
	}
	if touched := int64(len(f.lex.seq)); touched > 0 && touched < st.n {
		f.bmLo = min(f.bmLo, 0) // some node holds no query term
	}
	// lexMissing are the lexical seeds whose adjacency is neither in
	// hand nor to be read with the rows near (ascending): read in the
	// sketch path's re-rank round trip, or in one more.
	lexMissing := func(near []int64) []int64 {
		var out []int64
		for _, v := range f.lexical {
			_, ok := nbrs[v]
			if _, in := slices.BinarySearch(near, v); !ok && !in {
				out = append(out, v)
			}
		}
		slices.Sort(out)
		return out
	}
	if useCache {
		// The sketches at the snapshot's version: loaded whole, the cached
		// ones, or the cached ones with the logged changes applied (a gap
		// in the log, which only a concurrent prune could make, reloads).
		var cur *sketchSet
		switch {
		case full:
			if cur = fullSet; cur == nil { // no rows read: not expected of a batch that succeeded
				cur = newSketchSet(words, 0)
			}
			cur.id, cur.version = st.id, st.version
		case set.version == st.version:
			cur = set
		case contiguous(changes, set.version, st.version):
			removed := map[int64]bool{}
			for _, c := range changes {
				for _, v := range c.removed {
					removed[v] = true
				}
			}
			cur = set.withChanges(st.version, removed, addedSeqs, addedBits)
		default:
			rows, err := conn.Query(ctx, `SELECT seq, bits FROM flowreader.sketches WHERE coll = $1 ORDER BY seq`, st.id)
			if err == nil {
				err = scanSet(&cur)(rows)
				rows.Close()
				cur.id, cur.version = st.id, st.version
			}
			if err != nil {
				rollback(conn)
				return nil, wrap("fetch sketches", err)
			}
			f.trips++
		}
		cached := cur == set // the sketches ranked during round trip 1
		if gotEntries || cur.entries == nil {
			if cur == set { // a cached set is not modified: copy it
				c := *set
				cur = &c
			}
			cur.entries, cur.escale = st.entryEmb, st.entryScale
		} else {
			st.entryEmb, st.entryScale = cur.entries, cur.escale
		}
		if cur != set {
			s.sketches.put(name, cur)
		}
		unlock()
		// The nearest sketches, then their embeddings for the exact
		// re-rank: one more round trip.
		var near []int64
		if early != nil && cached {
			near = <-early
		} else {
			var allow func(int64) bool
			if isFiltered {
				allow = allowed
			}
			near = cur.nearest(qs, k, allow)
		}
		slices.Sort(near) // the rows' order is not used: they are ranked below
		// The lexical seeds whose adjacency is not in hand are read in
		// the same round trip.
		lo, hi := seqRuns(near)
		rb := &pgx.Batch{}
		rb.Queue(byRuns(`flowreader.cands`, `seq, emb, scale, adj`), st.id, lo, hi).Query(scanDense)
		if extra := lexMissing(near); len(extra) > 0 {
			lo, hi := seqRuns(extra)
			rb.Queue(byRuns(`flowreader.cands`, `seq, adj`), st.id, lo, hi).Query(scanAdj)
		}
		if err := conn.SendBatch(ctx, rb).Close(); err != nil {
			rollback(conn)
			return nil, wrap("fetch dense candidates", err)
		}
		f.trips++
	} else if extra := lexMissing(nil); len(extra) > 0 {
		// The lexical seeds the dense pass did not read (every row is in
		// hand when it re-ranks every node): one more round trip.
		lo, hi := seqRuns(extra)
		rows, err := conn.Query(ctx, byRuns(`flowreader.cands`, `seq, adj`), st.id, lo, hi)
		if err == nil {
			err = scanAdj(rows)
			rows.Close()
		}
		if err != nil {
			rollback(conn)
			return nil, wrap("fetch lexical seeds", err)
		}
		f.trips++
	}

	f.stages[1] = time.Since(t0)
	t0 = time.Now()
	// Dense: the exact cosine of each sketch candidate (graph.Graph.Dot's
	// arithmetic), the m best, ties by lower seq.
	type cand struct {
		seq int64
		s   float64
	}
	dc := make([]cand, len(drows))
	for i, d := range drows {
		dc[i] = cand{d.seq, dot(qu, d.emb, d.scale, st.int8)}
	}
	better := func(a, b cand) int {
		switch {
		case a.s > b.s || a.s == b.s && a.seq < b.seq:
			return -1
		case b.s > a.s || a.s == b.s && b.seq < a.seq:
			return 1
		}
		return 0
	}
	slices.SortFunc(dc, better)
	for _, d := range dc[:min(m, len(dc))] {
		f.dense = append(f.dense, d.seq)
	}
	sum, cnt := 0.0, 0
	rb := rowBytes(st.dim, st.int8)
	for i, sc := range st.entryScale {
		sum += max(dot(qu, st.entryEmb[i*rb:(i+1)*rb], sc, st.int8), 0)
		cnt++
	}
	f.cosMean = sum / float64(max(cnt, 1))

	// References, as ScoreCandidates walks them.
	if len(refKeys) > 0 {
		byKey := map[string][]int64{}
		for _, r := range rrows {
			byKey[r.key] = append(byKey[r.key], r.seq)
		}
		seen := map[int64]bool{}
		for _, ks := range refKeys {
			for _, key := range ks {
				for _, v := range byKey[key] {
					if !seen[v] {
						seen[v] = true
						f.refCount++
						if len(f.ref) < m && allowed(v) {
							f.ref = append(f.ref, v)
						}
					}
				}
			}
		}
	}
	if len(titles) > 0 {
		for _, i := range mention.NewTitleIndex(titles, mention.Options{Class: titleClasses(titleClass)}).Named(q.Text) {
			f.named = append(f.named, titleSeqs[i])
		}
	}

	// Seeds interleaved by rank, then one hop from each, best seeds first,
	// up to 8·m nodes: ScoreCandidates' subgraph.
	limit := candidateSpread * m
	var seeds, picks []int64
	in := map[int64]bool{}
	add := func(v int64) {
		if !in[v] && len(picks) < limit && allowed(v) {
			in[v] = true
			picks = append(picks, v)
		}
	}
	for t := 0; t < m; t++ {
		for _, l := range [][]int64{f.dense, f.lexical, f.ref} {
			if t < len(l) {
				if !in[l[t]] {
					seeds = append(seeds, l[t])
				}
				add(l[t])
			}
		}
	}
	for _, v := range seeds {
		for _, u := range nbrs[v] {
			add(u)
		}
		if len(picks) >= limit {
			break
		}
	}
	slices.Sort(picks)

	// Round trip 2: the candidates' rows, then the end of the snapshot.
	f.stages[2] = time.Since(t0)
	t0 = time.Now()
	// The rows the dense pass read are candidates too (about a quarter of
	// them at 2,048): their embeddings and adjacency are not read again.
	known := make(map[int64]*denseRow, len(drows))
	for i := range drows {
		known[drows[i].seq] = &drows[i]
	}
	f.hasCopies, f.contents = st.copies, st.contents
	if err := f.readCandidates(ctx, conn.Conn(), s, name, st.id, picks, known, opt.text, opt.kwInSnapshot); err != nil {
		if errors.Is(err, errMoved) && !opt.kwInSnapshot {
			// Asked again, reading the keyword frequencies in the
			// snapshot: one more round trip, but no other update can
			// come between (a standby replaying updates back to back).
			conn.Release()
			unlock()
			opt.kwInSnapshot = true
			return s.fetch(ctx, name, q, m, c, opt)
		}
		rollback(conn)
		return nil, err
	}
	f.trips++
	f.stages[3] = time.Since(t0)

	// BM25 of the candidates with the whole collection's statistics, as
	// score's candidate index computes it.
	if c.BM25Weight >= 0 {
		f.bm25 = make([]float64, len(f.seqs))
		if found {
			f.scoreBM25()
		}
	}
	return f, nil
}

// denseRow is a row the dense pass read for its exact re-rank: the
// embedding and the adjacency (neighbour seqs ascending, edge kinds).
type denseRow struct {
	seq   int64
	emb   []byte
	scale float32
	nb    []int64
	kd    []int16
}

// readCandidates runs round trip 2 for the candidates picks (ascending):
// their rows (without the embedding and adjacency of those in known, read
// by the dense pass in this snapshot) and, with text,
// their reading text, and ends the snapshot; then, when the store's
// keyword cache does not hold them all, one more for the collection's
// frequencies of their normalised keywords.
func (f *fetched) readCandidates(ctx context.Context, conn *pgx.Conn, s *Store, name string, coll int32, picks []int64, known map[int64]*denseRow, text bool, kwInSnapshot bool) error {
	b := &pgx.Batch{}
	// Every column is filled by the pick's position, so the rows may come
	// in any order, and sized for every pick up front: grown by append,
	// the embeddings alone (1.5 MB at 2,048 × 768 int8) would allocate
	// about five times their size a question, and a replica's peak heap
	// follows what its questions in flight hold.
	n := len(picks)
	rb := rowBytes(f.dim, f.int8)
	nbs, kds := make([][]int64, n), make([][]int16, n)
	// wts[i] are candidate i's stored weights of its edges to the
	// neighbours after it (from nbs[i][wfirst[i]] on).
	// (About 16 weights a row on the synthetic collection: grown by
	// append from empty, the buffer was copied a dozen times.)
	wbuf := make([]byte, 0, 64*n)
	woff, wfirst := make([]int, n), make([]int, n)
	f.rank, f.kwnorm, f.nodes = make([]int32, n), make([][]string, n), make([]graph.Node, n)
	f.len, f.sum, f.refs, f.names, f.scale = make([]float32, n), make([]int32, n), make([][]string, n), make([][]int64, n), make([]float32, n)
	if f.hasCopies {
		f.copies = make([][]int64, n)
	}
	f.emb = make([]byte, n*rb)
	got := make([]bool, n)
	var unknown, inHand []int64
	for _, v := range picks {
		if known[v] != nil {
			inHand = append(inHand, v)
		} else {
			unknown = append(unknown, v)
		}
	}
	// slot is a row's position among the picks.
	slot := func(seq int64) (int, error) {
		i, ok := slices.BinarySearch(picks, seq)
		if !ok || got[i] {
			return 0, fmt.Errorf("pgstore: candidate row %d not asked for, or twice", seq)
		}
		got[i] = true
		return i, nil
	}
	scanRows := func(full bool) func(pgx.Rows) error {
		return func(rows pgx.Rows) error {
			for rows.Next() {
				var (
					nd                graph.Node
					seq               int64
					page, ord, sumLen int32
					lastPage          int32
					mod               int16
					ln, sc            float32
					adj, emb, wb, ls  pgtype.DriverBytes // the driver's, until Next: decoded or copied below
					rank              int32
					cp                []int64
				)
				dst := []any{&seq, &nd.ID, &nd.Doc, &page, &ord, &mod, &nd.Section, &ls, &ln, &sumLen, &rank, &lastPage, &wb, &cp}
				if full {
					dst = append(dst, &adj, &emb, &sc)
				}
				if err := rows.Scan(dst...); err != nil {
					return err
				}
				i, err := slot(seq)
				if err != nil {
					return err
				}
				var refs []string
				var names []int64
				if nd.Keywords, refs, names, err = decodeLists(ls); err != nil {
					return fmt.Errorf("candidate row %d: %w", seq, err)
				}
				if full {
					if len(emb) != rb {
						return fmt.Errorf("pgstore: candidate row %d: %d embedding bytes, want %d", seq, len(emb), rb)
					}
					if nbs[i], kds[i], err = decodeAdj(adj); err != nil {
						return err
					}
					copy(f.emb[i*rb:], emb)
					f.scale[i] = sc
				} else {
					d := known[seq]
					if len(d.emb) != rb {
						return fmt.Errorf("pgstore: candidate row %d: %d embedding bytes, want %d", seq, len(d.emb), rb)
					}
					nbs[i], kds[i] = d.nb, d.kd
					copy(f.emb[i*rb:], d.emb)
					f.scale[i] = d.scale
				}
				if wfirst[i], err = weightsFrom(seq, nbs[i], wb); err != nil {
					return fmt.Errorf("candidate row %d: %w", seq, err)
				}
				woff[i], wbuf = len(wbuf), append(wbuf, wb...)
				f.rank[i] = rank
				// The stored kwnorm is this normalisation of the keywords
				// (the writer's): computed here, it need not be sent.
				f.kwnorm[i] = normKeywords(nd.Keywords)
				nd.Page, nd.Order, nd.Modality, nd.LastPage = int(page), int(ord), graph.Modality(mod), int(lastPage)
				if len(nd.Keywords) == 0 {
					nd.Keywords = nil
				}
				f.nodes[i] = nd
				f.len[i], f.sum[i], f.refs[i], f.names[i] = ln, sumLen, refs, names
				if f.copies != nil && len(cp) > 0 {
					f.copies[i] = cp
				}
			}
			return rows.Err()
		}
	}
	const cols = `seq, id, doc, page, ord, modality, section, lists, len, sum_len, rank, last_page, wts, copies`
	if len(unknown) > 0 {
		lo, hi := seqRuns(unknown)
		b.Queue(byRuns(`flowreader.cands`, cols+`, adj, emb, scale`), coll, lo, hi).Query(scanRows(true))
	}
	if len(inHand) > 0 {
		lo, hi := seqRuns(inHand)
		b.Queue(byRuns(`flowreader.cands`, cols), coll, lo, hi).Query(scanRows(false))
	}
	var classOf map[int64][]int64 // a class by its lowest seq
	if f.copies != nil {
		// A class's lowest member's row holds the whole class, another
		// member's its lowest seq and its own (rowCopies): the classes of
		// the others, each once, from the same snapshot.
		classOf = map[int64][]int64{}
		b.Queue(`SELECT r.seq, r.copies FROM flowreader.cands r WHERE r.coll = $1 AND r.seq IN (
	SELECT c.copies[1] FROM flowreader.cands c WHERE c.coll = $1 AND c.seq = ANY($2) AND c.copies <> '{}' AND c.copies[1] <> c.seq)`, coll, picks).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var lo int64
				var cp []int64
				if err := rows.Scan(&lo, &cp); err != nil {
					return err
				}
				classOf[lo] = cp
			}
			return rows.Err()
		})
	}
	type textRow struct {
		summary, content, caption, footnote, imageText, context, ip, im string
		tags                                                            []string
	}
	var texts []textRow
	if text {
		texts = make([]textRow, n)
		lo, hi := seqRuns(picks)
		b.Queue(byRuns(`flowreader.nodes`, `seq, summary, content, caption, footnote, image_text, context, tags, image_path, image_mime`), coll, lo, hi).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var seq int64
				var r textRow
				if err := rows.Scan(&seq, &r.summary, &r.content, &r.caption, &r.footnote, &r.imageText, &r.context, &r.tags, &r.ip, &r.im); err != nil {
					return err
				}
				if i, ok := slices.BinarySearch(picks, seq); ok {
					texts[i] = r
				}
			}
			return rows.Err()
		})
	}
	if !kwInSnapshot {
		b.Queue(`COMMIT`)
	}
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return wrap("fetch candidates", err)
	}
	for i, cp := range f.copies {
		if len(cp) == 0 || cp[0] == picks[i] {
			continue
		}
		f.copies[i] = nil // not expected: the class's row does not name it
		if c := classOf[cp[0]]; len(c) > 1 {
			if _, in := slices.BinarySearch(c, picks[i]); in {
				f.copies[i] = c
			}
		}
	}
	if text {
		for i := range f.nodes {
			r := texts[i]
			nd := &f.nodes[i]
			nd.Summary, nd.Content, nd.Caption, nd.Footnote, nd.ImageText, nd.Context = r.summary, r.content, r.caption, r.footnote, r.imageText, r.context
			if len(r.tags) > 0 {
				nd.Tags = r.tags
			}
			if r.ip != "" {
				nd.Image = &graph.ImageRef{Path: r.ip, MIME: r.im}
			}
		}
	}
	// Picks the snapshot does not hold (not expected: they were read from
	// it) are left out.
	f.seqs = picks
	if k := compactGot(got); k < n {
		f.seqs = compactBy(picks, got)
		f.nodes, f.rank, f.kwnorm = compactBy(f.nodes, got), compactBy(f.rank, got), compactBy(f.kwnorm, got)
		f.len, f.sum, f.refs, f.names, f.scale = compactBy(f.len, got), compactBy(f.sum, got), compactBy(f.refs, got), compactBy(f.names, got), compactBy(f.scale, got)
		if f.copies != nil {
			f.copies = compactBy(f.copies, got)
		}
		nbs, kds, woff, wfirst = compactBy(nbs, got), compactBy(kds, got), compactBy(woff, got), compactBy(wfirst, got)
		emb := f.emb[:0]
		for i, ok := range got {
			if ok {
				emb = append(emb, f.emb[i*rb:(i+1)*rb]...)
			}
		}
		f.emb = emb
	}
	local := make(map[int64]int32, len(f.seqs))
	for i, s := range f.seqs {
		local[s] = int32(i)
	}
	// Edges in candidate indexes, each once (U < V), sorted (rows in seq
	// order, neighbours ascending), with the weights stored by their lower
	// end (the graph's, so the subgraph computes no cosine).
	ne := 0 // at most: the edges to neighbours after each row
	for i := range f.seqs {
		ne += len(nbs[i]) - wfirst[i]
	}
	f.edges = make([]graph.Edge, 0, ne)
	for i := range f.seqs {
		for j := wfirst[i]; j < len(nbs[i]); j++ {
			u, ok := local[nbs[i][j]]
			if !ok {
				continue
			}
			w := math.Float32frombits(binary.LittleEndian.Uint32(wbuf[woff[i]+4*(j-wfirst[i]):]))
			f.edges = append(f.edges, graph.Edge{U: int32(i), V: u, Kind: graph.EdgeKind(kds[i][j]), Weight: w})
		}
	}
	// The frequencies of the keywords two or more candidates hold (the
	// bridge term of the traversal cost's edge score, v3 Eq. 2, is a
	// keyword both ends of a pair hold: no other frequency can price an
	// arc of the subgraph): those the
	// replica holds for the snapshot's version, and the others read after
	// the snapshot by a statement that reads the collection's version with
	// them: when it is no longer the snapshot's (an update committed in
	// between), the question is asked again (errMoved), reading them in
	// its snapshot.
	shared := sharedKeywords(f.kwnorm)
	f.kwdf = make(map[string]int32, len(shared))
	missing := s.keywords.lookup(name, coll, f.version, [][]string{shared}, f.kwdf)
	if len(missing) == 0 {
		if kwInSnapshot {
			_, err := conn.Exec(ctx, `COMMIT`)
			return wrap("fetch", err)
		}
		return nil
	}
	f.trips++
	f.kwTrips = 1
	rows, err := conn.Query(ctx, `SELECT c.version, k.kw, k.df FROM flowreader.collections c
LEFT JOIN flowreader.keywords k ON k.coll = c.id AND k.kw = ANY($2) WHERE c.id = $1`, coll, missing)
	if err != nil {
		return wrap("fetch keyword frequencies", err)
	}
	moved := true
	for rows.Next() {
		var v int64
		var kw pgtype.Text
		var df pgtype.Int4
		if err := rows.Scan(&v, &kw, &df); err != nil {
			rows.Close()
			return wrap("fetch keyword frequencies", err)
		}
		moved = v != f.version
		if kw.Valid {
			f.kwdf[kw.String] = df.Int32
		}
	}
	if err := rows.Err(); err != nil {
		return wrap("fetch keyword frequencies", err)
	}
	if moved {
		return errMoved
	}
	if kwInSnapshot {
		if _, err := conn.Exec(ctx, `COMMIT`); err != nil {
			return wrap("fetch", err)
		}
	}
	s.keywords.add(name, coll, f.version, f.kwdf, missing)
	return nil
}

// sharedKeywords returns the keywords (each node's list normalised and
// without repeats) that two or more nodes hold, each once, in their first
// occurrence's order.
func sharedKeywords(kwnorm [][]string) []string {
	seen := make(map[string]bool, 4*len(kwnorm)) // keyword → held by two or more
	var out []string
	for _, ks := range kwnorm {
		for _, k := range ks {
			more, ok := seen[k]
			switch {
			case !ok:
				seen[k] = false
			case !more:
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// seqRuns returns the runs of consecutive seqs of seqs (ascending,
// distinct) as their first and last seqs.
func seqRuns(seqs []int64) (lo, hi []int64) {
	for i, v := range seqs {
		if i > 0 && v == seqs[i-1]+1 {
			hi[len(hi)-1] = v
			continue
		}
		lo, hi = append(lo, v), append(hi, v)
	}
	return lo, hi
}

// byRuns selects columns cols of table's rows of collection $1 whose seqs
// lie in the runs from $2[i] to $3[i] (seqRuns): an index range scan a run,
// where seq = ANY descends the index once a row (a candidate set is
// mostly runs: a seed's neighbours are its document's nodes). The
// subquery is kept apart from the join (OFFSET 0, so that it is not pulled
// up into it) and evaluated a run at a time, by the primary key: pulled
// up, the planner may join the runs to a scan of every row of the table
// (it did, by a generic plan, with a join on seq BETWEEN lo AND hi).
func byRuns(table, cols string) string {
	return `SELECT x.* FROM unnest($2::int8[], $3::int8[]) r(lo, hi)
CROSS JOIN LATERAL (SELECT ` + cols + ` FROM ` + table + ` WHERE coll = $1 AND seq >= r.lo AND seq <= r.hi OFFSET 0) x`
}

// errMoved is a question's collection updated between its snapshot and
// the keyword frequencies read after it.
var errMoved = errors.New("pgstore: the collection was updated during the question")

// compactGot is how many of got are set.
func compactGot(got []bool) int {
	k := 0
	for _, ok := range got {
		if ok {
			k++
		}
	}
	return k
}

// compactBy keeps the elements of xs whose got is set, in order.
func compactBy[T any](xs []T, got []bool) []T {
	out := xs[:0]
	for i, ok := range got {
		if ok {
			out = append(out, xs[i])
		}
	}
	return out
}

func floatsOf(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for k := range v {
		v[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
	}
	return v
}

// scoreBM25 sets the candidates' raw BM25 (bmRaw): each one's score in
// the ranking of round trip 1 (rankBM25, score's index's arithmetic and
// order, so bit for bit its value; 0 for a node holding no query term),
// whose greatest is the range's top; then bm25, the scores normalised by
// the collection's range.
func (f *fetched) scoreBM25() {
	f.bmRaw = make([]float64, len(f.seqs))
	for i, v := range f.seqs {
		f.bmRaw[i] = f.lex.score(v)
	}
	lo := f.bmLo
	if f.bmHi > lo {
		span := f.bmHi - lo
		for i, x := range f.bmRaw {
			if x != 0 || lo != 0 {
				f.bm25[i] = (x - lo) / span
			} else {
				f.bm25[i] = x
			}
		}
	}
}

// meanDirection is the unit mean direction of a collection whose
// embeddings sum to sum, as score's index computes it for MMR's pivot
// (nil when the sum is zero: every cosine with it is 0).
func meanDirection(sum []float64) []float32 {
	norm := 0.0
	for _, x := range sum {
		norm += x * x
	}
	if norm == 0 {
		return nil
	}
	mu := make([]float32, len(sum))
	for k, x := range sum {
		mu[k] = float32(x / math.Sqrt(norm))
	}
	return mu
}

// candidates is the fetched candidate set as score.Candidates: the
// subgraph over the stored rows as they are (so that its cosines and edge
// weights are the in-process graph's bit for bit), and the statistics.
func (f *fetched) candidates() (*score.Candidates, error) {
	n := len(f.seqs)
	var f32 []float32
	var q8 []int8
	// The rows are the graph's as they are, not copies: f is dropped once
	// its candidates are made (Store.Candidates), and a copy would double
	// what each question in flight holds.
	if f.int8 {
		q8 = bytesInt8(f.emb)
	} else {
		f32 = floatsOf(f.emb)
	}
	gr, err := graphhook.FromRows(f.nodes, f.dim, f32, q8, f.scale, f.edges, true)
	if err != nil {
		return nil, fmt.Errorf("pgstore: the stored candidates make no graph: %w", err)
	}
	g := gr.(*graph.Graph)
	local := func(seq int64) (int, bool) { return slices.BinarySearch(f.seqs, seq) }
	cs := &score.Candidates{Graph: g, Nodes: make([]int, n), Size: int(f.n), Version: f.version,
		BM25Min: f.bmLo, BM25Max: f.bmHi, BM25Sum: f.bmSum, CosMean: f.cosMean, RefKeys: f.refs, RefMatches: f.refCount,
		SummaryLen: make([]float64, n), Names: make([][]int, n), Rank: f.rank, KeywordDF: f.kwdf}
	if f.bmRaw != nil {
		cs.BM25 = f.bmRaw
	}
	for i, v := range f.seqs {
		cs.Nodes[i] = int(v)
		if f.maxSumLen > 0 {
			cs.SummaryLen[i] = float64(f.sum[i]) / float64(f.maxSumLen)
		}
		for _, u := range f.names[i] {
			if j, ok := local(u); ok {
				cs.Names[i] = append(cs.Names[i], j)
			}
		}
	}
	for _, v := range f.named {
		if j, ok := local(v); ok {
			cs.Named = append(cs.Named, j)
		}
	}
	if f.contents > 0 && f.contents <= f.n {
		cs.Contents = int(f.contents)
	}
	if f.copies != nil {
		// The members of a class share one slice (a boilerplate class
		// may be large, and many of them candidates).
		cs.Copies = make([][]int, n)
		conv := map[int64][]int{}
		for i, cp := range f.copies {
			if len(cp) > 1 {
				c, ok := conv[cp[0]]
				if !ok {
					c = make([]int, len(cp))
					for k, v := range cp {
						c[k] = int(v)
					}
					conv[cp[0]] = c
				}
				cs.Copies[i] = c
			}
		}
	}
	slices.Sort(cs.Named)
	cs.Named = slices.Compact(cs.Named)
	if f.meanDir != nil {
		cs.MeanCos = make([]float64, n)
		for i := range cs.MeanCos {
			cs.MeanCos[i] = g.Dot(i, f.meanDir)
		}
	}
	return cs, nil
}

// rollback ends a fetch's snapshot after a failure, or closes the
// connection when that fails too (it may be in a broken state).
func rollback(c *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), rollbackTimeout)
	defer cancel()
	if _, err := c.Exec(ctx, `ROLLBACK`); err != nil {
		c.Conn().Close(ctx) //nolint:errcheck // the pool drops it either way
	}
}

// dot is graph.Graph.Dot for a stored row: q · row, int8 rows read
// without decoding (times the scale), float32 rows summed as vec.Dot sums.
func dot(q []float32, emb []byte, scale float32, i8 bool) float64 {
	if i8 {
		return vec.DotFloatInt8(q, bytesInt8(emb)) * float64(scale)
	}
	v := make([]float32, len(q))
	for k := range v {
		v[k] = math.Float32frombits(binary.LittleEndian.Uint32(emb[4*k:]))
	}
	return vec.Dot(q, v)
}

// rollbackTimeout bounds the rollback of a failed fetch.
const rollbackTimeout = 5 * time.Second

// bytesInt8 views stored bytes as the int8 row they encode.
func bytesInt8(b []byte) []int8 {
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

func rowBytes(dim int, i8 bool) int {
	if i8 {
		return dim
	}
	return 4 * dim
}

// titleClasses numbers the title rows' content classes (each row's
// lowest copy's seq) as mention.Options.Class wants them, or nil when no
// two rows share one (every row its own content).
func titleClasses(class []int64) []int32 {
	id := make(map[int64]int32, len(class))
	out := make([]int32, len(class))
	shared := false
	for i, c := range class {
		k, ok := id[c]
		if !ok {
			k = int32(len(id))
			id[c] = k
		} else {
			shared = true
		}
		out[i] = k
	}
	if !shared {
		return nil
	}
	return out
}
