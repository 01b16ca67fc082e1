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

	"github.com/flowreader/flowreader/graph"
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

	// bm25 is each candidate's BM25, normalised by the whole collection's
	// range, as score.Scores.BM25 holds it; nil when no query term occurs.
	bm25                []float64
	dense, lexical, ref []int64 // the seeds, best first
	refCount            int     // nodes whose references meet the question's
	cosMean             float64 // mean max(cos, 0) over the entry nodes
	bmLo, bmHi, bmSum   float64 // the whole collection's raw BM25 range and sum
	maxSumLen           int32
	named               []int64  // nodes whose titles the question names
	tfs                 []candTF // the candidates' query-term frequencies

	trips int // round trips to the database
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
	entryEmb         []byte
	entryScale       []float32
}

// fetch reads the candidate subgraph of question q (embedding q.Embedding,
// not necessarily unit) with m candidates of each kind, in one
// repeatable-read snapshot and two round trips: the first reads the
// collection's statistics, the dense candidates (sketch pass and exact
// re-rank), the BM25 candidates and the whole-collection BM25 range (in
// SQL), the reference and title matches; the second expands the seeds to
// their neighbours in SQL and reads the candidates' rows.
func (s *Store) fetch(ctx context.Context, name string, q score.Query, m int, c score.Config, opt fetchOptions) (*fetched, error) {
	if m < 1 {
		return nil, fmt.Errorf("%w: %d candidates", ErrInput, m)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, wrap("fetch", err)
	}
	defer conn.Release()
	qu := unitVec(q.Embedding)
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
	if useCache {
		if set = s.sketches.get(name); set != nil && set.id != meta.id {
			set = nil
		}
	}
	f := &fetched{}
	var st collState

	// Round trip 1.
	b := &pgx.Batch{}
	b.Queue(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`)
	b.Queue(`SELECT id, version, nodes, dim, int8, total_len, idf_sum, vocab, max_sum_len, entries FROM flowreader.collections WHERE name = $1`, name).
		QueryRow(func(r pgx.Row) error {
			return r.Scan(&st.id, &st.version, &st.n, &st.dim, &st.int8, &st.totalLen, &st.idfSum, &st.vocab, &st.maxSumLen, &st.entries)
		})
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
	type denseRow struct {
		seq   int64
		emb   []byte
		scale float32
	}
	var drows []denseRow
	// nbrs holds the adjacency of every node that may be a seed, read with
	// it: the expansion is then made here, the database reads each
	// candidate's row once.
	nbrs := map[int64][]int64{}
	scanDense := func(rows pgx.Rows) error {
		for rows.Next() {
			var d denseRow
			var adj []byte
			if err := rows.Scan(&d.seq, &d.emb, &d.scale, &adj); err != nil {
				return err
			}
			drows = append(drows, d)
			nb, _, err := decodeAdj(adj)
			if err != nil {
				return err
			}
			nbrs[d.seq] = nb
		}
		return rows.Err()
	}
	// What the sketch cache reads: every sketch (no cached set), or the
	// changes since the cached version and the added nodes' sketches.
	var (
		full       bool
		fullSeqs   []int64
		fullBits   []uint64
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
	)
	switch {
	case meta.ann:
		// pgvector's HNSW: the collection's partial index is used only when
		// the query names its collection and dimension as its predicate
		// and expression do, so they are written into the text (integers
		// of the collection row, not input). It returns at most ef_search
		// rows.
		k = min(k, annMaxK)
		b.Queue(fmt.Sprintf(`SET LOCAL hnsw.ef_search = %d`, k))
		b.Queue(fmt.Sprintf(`SELECT v.seq, v.emb, v.scale, v.adj FROM (
	SELECT a.seq FROM flowreader.ann a WHERE a.coll = %d ORDER BY a.v::halfvec(%d) <#> $1 LIMIT %d) d
JOIN flowreader.cands v ON v.coll = %d AND v.seq = d.seq`, meta.id, meta.dim, k, meta.id), pgvector.NewHalfVector(qu)).Query(scanDense)
	case useCache && set == nil:
		full = true
		b.Queue(`SELECT seq, bits FROM flowreader.sketches WHERE coll = $1 ORDER BY seq`, meta.id).Query(scanSketch(&fullSeqs, &fullBits))
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
	default:
		b.Queue(`SELECT v.seq, v.emb, v.scale, v.adj FROM (
	SELECT sk.seq FROM flowreader.sketches sk WHERE sk.coll = (SELECT id FROM flowreader.collections WHERE name = $1)
	ORDER BY bit_count(sk.bits # $2), sk.seq LIMIT $3) d
JOIN flowreader.cands v ON v.coll = (SELECT id FROM flowreader.collections WHERE name = $1) AND v.seq = d.seq`,
			name, sketch(qu), int64(k)).Query(scanDense)
	}
	var lexRows []struct {
		seq int64
		w   float64
	}
	var touched int64
	var sqlLo, sqlHi float64
	dfs := make([]int32, len(kw))
	if c.BM25Weight >= 0 && len(kw) > 0 { // zero is the default weight, negative none
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
		// BM25 Okapi of every node holding a query term, summed over the
		// terms in the question's order as the in-process index adds them;
		// idf with rank_bm25's ε floor from the collection's idf sum.
		b.Queue(lexicalSQL, name, kw, int64(m), scorehook.K1, scorehook.B, scorehook.Epsilon).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var seq pgtype.Int8
				var w pgtype.Float8
				var adj []byte
				if err := rows.Scan(&seq, &w, &touched, &sqlLo, &sqlHi, &f.bmSum, &adj); err != nil {
					return err
				}
				if seq.Valid {
					nb, _, err := decodeAdj(adj)
					if err != nil {
						return err
					}
					nbrs[seq.Int64] = nb
					lexRows = append(lexRows, struct {
						seq int64
						w   float64
					}{seq.Int64, w.Float64})
				}
			}
			return rows.Err()
		})
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
	if len(qwords) > 0 {
		b.Queue(`SELECT seq, title FROM flowreader.titles WHERE coll = (SELECT id FROM flowreader.collections WHERE name = $1) AND first = ANY($2) ORDER BY seq`, name, qwords).
			Query(func(rows pgx.Rows) error {
				for rows.Next() {
					var seq int64
					var t string
					if err := rows.Scan(&seq, &t); err != nil {
						return err
					}
					titleSeqs, titles = append(titleSeqs, seq), append(titles, t)
				}
				return rows.Err()
			})
	}
	f.trips++
	t0 := time.Now()
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		rollback(conn)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("pgstore: fetch %q: %w", name, ErrNotFound)
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
		opt.retried = true
		return s.fetch(ctx, name, q, m, c, opt)
	}
	if st.dim != len(q.Embedding) {
		rollback(conn)
		return nil, fmt.Errorf("%w: question embedding has %d values, collection %q dimension %d", ErrInput, len(q.Embedding), name, st.dim)
	}
	f.version, f.n, f.dim, f.int8, f.maxSumLen = st.version, st.n, st.dim, st.int8, st.maxSumLen
	f.stages[0] = time.Since(t0)
	t0 = time.Now()
	if useCache {
		// The sketches at the snapshot's version: loaded whole, the cached
		// ones, or the cached ones with the logged changes applied (a gap
		// in the log, which only a concurrent prune could make, reloads).
		var cur *sketchSet
		switch {
		case full:
			cur = &sketchSet{id: st.id, version: st.version, words: words, seqs: fullSeqs, bits: fullBits}
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
				var seqs []int64
				var bs []uint64
				err = scanSketch(&seqs, &bs)(rows)
				rows.Close()
				cur = &sketchSet{id: st.id, version: st.version, words: words, seqs: seqs, bits: bs}
			}
			if err != nil {
				rollback(conn)
				return nil, wrap("fetch sketches", err)
			}
			f.trips++
		}
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
		// The nearest sketches, then their embeddings for the exact
		// re-rank: one more round trip.
		qs := sketchWords(nil, sketch(qu), words)
		near := cur.nearest(qs, k)
		rows, err := conn.Query(ctx, `SELECT seq, emb, scale, adj FROM flowreader.cands WHERE coll = $1 AND seq = ANY($2)`, st.id, near)
		if err == nil {
			err = scanDense(rows)
			rows.Close()
		}
		if err != nil {
			rollback(conn)
			return nil, wrap("fetch dense candidates", err)
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

	// Lexical: the SQL ranking; the range is taken exactly below, from the
	// candidates, where it can be.
	for _, r := range lexRows {
		f.lexical = append(f.lexical, r.seq)
	}
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
	f.bmLo, f.bmHi = sqlLo, sqlHi
	if touched > 0 && touched < st.n {
		f.bmLo = min(f.bmLo, 0)
	}

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
						if len(f.ref) < m {
							f.ref = append(f.ref, v)
						}
					}
				}
			}
		}
	}
	if len(titles) > 0 {
		for _, i := range mention.NewTitleIndex(titles, mention.Options{}).Named(q.Text) {
			f.named = append(f.named, titleSeqs[i])
		}
	}

	// Seeds interleaved by rank, then one hop from each, best seeds first,
	// up to 8·m nodes: ScoreCandidates' subgraph.
	limit := candidateSpread * m
	var seeds, picks []int64
	in := map[int64]bool{}
	add := func(v int64) {
		if !in[v] && len(picks) < limit {
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
	if err := f.readCandidates(ctx, conn.Conn(), st.id, picks, kw, opt.text); err != nil {
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
			f.scoreBM25(st, idf)
		}
	}
	return f, nil
}

// lexicalSQL ranks a collection's nodes by BM25 over the query terms ($2,
// in order) and returns the m best (ties by lower seq) with the count of
// nodes holding a term and the least, greatest and summed score (one row
// with NULL seq when fewer). $4, $5, $6 are k1, b and ε.
const lexicalSQL = `
WITH c AS (SELECT id, nodes, total_len, idf_sum, vocab FROM flowreader.collections WHERE name = $1),
qt AS (SELECT t.id, u.ord,
	CASE WHEN ln(c.nodes - t.df + 0.5::float8) - ln(t.df + 0.5::float8) < 0 THEN $6::float8 * c.idf_sum / c.vocab
	     ELSE ln(c.nodes - t.df + 0.5::float8) - ln(t.df + 0.5::float8) END AS idf
	FROM c CROSS JOIN unnest($2::text[]) WITH ORDINALITY u(term, ord) JOIN flowreader.terms t ON t.coll = c.id AND t.term = u.term),
k AS (SELECT $4::float8 * (1 - $5::float8) AS c0, $4::float8 * $5::float8 / (c.total_len / c.nodes) AS c1 FROM c),
s AS (SELECT p.seq, min(qt.ord) AS first,
	sum(qt.idf * p.tf::float8 * ($4::float8 + 1) / (p.tf::float8 + k.c0 + k.c1 * p.len::float8) ORDER BY qt.ord) AS w
	FROM c, k, qt JOIN flowreader.postings p ON p.term = qt.id WHERE p.coll = c.id GROUP BY p.seq),
a AS (SELECT count(*) AS n, coalesce(min(w), 0) AS lo, coalesce(max(w), 0) AS hi, coalesce(sum(w ORDER BY first, seq), 0) AS total FROM s),
top AS (SELECT seq, w FROM s ORDER BY w DESC, seq LIMIT $3)
SELECT top.seq, top.w, a.n, a.lo, a.hi, a.total, cd.adj FROM a LEFT JOIN top ON true
LEFT JOIN flowreader.cands cd ON cd.coll = (SELECT id FROM c) AND cd.seq = top.seq
ORDER BY top.w DESC, top.seq`

// readCandidates runs round trip 2 for the candidates picks (ascending):
// their rows, their frequencies of the query terms kw and, with text,
// their reading text; and ends the snapshot.
func (f *fetched) readCandidates(ctx context.Context, conn *pgx.Conn, coll int32, picks []int64, kw []string, text bool) error {
	b := &pgx.Batch{}
	var nbs [][]int64
	var kds [][]int16
	b.Queue(`SELECT seq, id, doc, page, ord, modality, section, keywords, len, sum_len, refs, names, adj, emb, scale
FROM flowreader.cands WHERE coll = $1 AND seq = ANY($2) ORDER BY seq`, coll, picks).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var (
				nd                graph.Node
				seq               int64
				page, ord, sumLen int32
				mod               int16
				ln, sc            float32
				refs              []string
				names             []int64
				adj, emb          []byte
			)
			if err := rows.Scan(&seq, &nd.ID, &nd.Doc, &page, &ord, &mod, &nd.Section, &nd.Keywords, &ln, &sumLen, &refs, &names, &adj, &emb, &sc); err != nil {
				return err
			}
			nb, kd, err := decodeAdj(adj)
			if err != nil {
				return err
			}
			nd.Page, nd.Order, nd.Modality = int(page), int(ord), graph.Modality(mod)
			if len(nd.Keywords) == 0 {
				nd.Keywords = nil
			}
			f.seqs = append(f.seqs, seq)
			f.nodes = append(f.nodes, nd)
			f.len = append(f.len, ln)
			f.sum = append(f.sum, sumLen)
			f.refs = append(f.refs, refs)
			f.names = append(f.names, names)
			f.emb = append(f.emb, emb...)
			f.scale = append(f.scale, sc)
			nbs, kds = append(nbs, nb), append(kds, kd)
		}
		return rows.Err()
	})
	type tfRow struct {
		seq int64
		ord int64
		tf  float32
	}
	var tfs []tfRow
	if len(kw) > 0 {
		b.Queue(`SELECT po.seq, u.ord, po.tf FROM unnest($2::text[]) WITH ORDINALITY u(term, ord)
JOIN flowreader.terms t ON t.coll = $1 AND t.term = u.term
JOIN flowreader.postings po ON po.coll = $1 AND po.term = t.id AND po.seq = ANY($3)`, coll, kw, picks).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var r tfRow
				if err := rows.Scan(&r.seq, &r.ord, &r.tf); err != nil {
					return err
				}
				tfs = append(tfs, r)
			}
			return rows.Err()
		})
	}
	type textRow struct {
		summary, content, caption, footnote, imageText, context, ip, im string
		tags                                                            []string
	}
	texts := map[int64]textRow{}
	if text {
		b.Queue(`SELECT seq, summary, content, caption, footnote, image_text, context, tags, image_path, image_mime
FROM flowreader.nodes WHERE coll = $1 AND seq = ANY($2)`, coll, picks).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var seq int64
				var r textRow
				if err := rows.Scan(&seq, &r.summary, &r.content, &r.caption, &r.footnote, &r.imageText, &r.context, &r.tags, &r.ip, &r.im); err != nil {
					return err
				}
				texts[seq] = r
			}
			return rows.Err()
		})
	}
	b.Queue(`COMMIT`)
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return wrap("fetch candidates", err)
	}
	local := make(map[int64]int32, len(f.seqs))
	for i, s := range f.seqs {
		local[s] = int32(i)
	}
	f.tfs = make([]candTF, len(f.seqs))
	slices.SortFunc(tfs, func(a, b tfRow) int { return cmp.Compare(a.ord, b.ord) })
	for _, r := range tfs {
		i := local[r.seq]
		f.tfs[i].ord = append(f.tfs[i].ord, r.ord)
		f.tfs[i].tf = append(f.tfs[i].tf, r.tf)
	}
	if text {
		for i, s := range f.seqs {
			r := texts[s]
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
	// Edges in candidate indexes, each once (U < V), sorted; the weight is
	// max(cos, 0) of the two embeddings, as graph.New computes it.
	rb := rowBytes(f.dim, f.int8)
	for i := range f.seqs {
		for j, v := range nbs[i] {
			u, ok := local[v]
			if !ok || u <= int32(i) {
				continue
			}
			w := cosRows(f.emb[i*rb:(i+1)*rb], f.scale[i], f.emb[int(u)*rb:(int(u)+1)*rb], f.scale[u], f.int8)
			f.edges = append(f.edges, graph.Edge{U: int32(i), V: u, Kind: graph.EdgeKind(kds[i][j]), Weight: float32(math.Max(w, 0))})
		}
	}
	sort.Slice(f.edges, func(a, b int) bool {
		if f.edges[a].U != f.edges[b].U {
			return f.edges[a].U < f.edges[b].U
		}
		return f.edges[a].V < f.edges[b].V
	})
	return nil
}

// cosRows is graph.Graph.Cos of two stored rows: the exact int8 dot
// product times both scales, or vec.Dot of float32 rows.
func cosRows(a []byte, sa float32, b []byte, sb float32, i8 bool) float64 {
	if i8 {
		return float64(vec.DotInt8(bytesInt8(a), bytesInt8(b))) * float64(sa) * float64(sb)
	}
	return vec.Dot(floatsOf(a), floatsOf(b))
}

func floatsOf(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for k := range v {
		v[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
	}
	return v
}

// scoreBM25 computes the candidates' BM25 from their term frequencies and
// the collection's statistics exactly as score's candidate index does
// (terms added in the question's order), then normalises it by the whole
// collection's range. The greatest raw score is a candidate's (the best
// BM25 node is a seed), so it is taken from the candidates, bit for bit.
func (f *fetched) scoreBM25(st collState, idf []float64) {
	k1, b := scorehook.K1, scorehook.B
	c0 := k1 * (1 - b)
	c1 := 0.0
	if st.n > 0 {
		if avg := st.totalLen / float64(st.n); avg > 0 {
			c1 = k1 * b / avg
		}
	}
	// Accumulate term by term, as the in-process index does.
	for t := range idf {
		for i, x := range f.tfs {
			for j, o := range x.ord {
				if int(o-1) != t {
					continue
				}
				tf := float64(x.tf[j])
				f.bm25[i] += idf[t] * tf * (k1 + 1) / (tf + c0 + c1*float64(f.len[i]))
			}
		}
	}
	hi := math.Inf(-1)
	for _, x := range f.bm25 {
		hi = max(hi, x)
	}
	if len(f.lexical) > 0 {
		f.bmHi = hi
	}
	lo := f.bmLo
	if f.bmHi > lo {
		span := f.bmHi - lo
		for i, x := range f.bm25 {
			if x != 0 || lo != 0 {
				f.bm25[i] = (x - lo) / span
			}
		}
	} else {
		clear(f.bm25)
	}
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

// unitVec is score's unit: q scaled to unit length in float64, or zero.
func unitVec(q []float32) []float32 {
	u := make([]float32, len(q))
	s := 0.0
	for _, x := range q {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return u
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range q {
		u[i] = float32(float64(x) * inv)
	}
	return u
}

// candTF holds a candidate's frequencies of the query terms, by the
// terms' 1-based positions in the question's keywords.
type candTF struct {
	ord []int64
	tf  []float32
}
