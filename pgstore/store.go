package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/score"
)

var (
	// ErrExists is returned by Import for a collection name that is taken.
	ErrExists = errors.New("pgstore: collection exists")
	// ErrConflict is returned by Update when the collection changed since
	// the version the update was made from: another writer committed
	// first, and applying this one would silently undo its change.
	ErrConflict = errors.New("pgstore: collection changed since the update's base version")
	// ErrSchema is returned by Open for a database whose flowreader schema
	// is newer than this library reads.
	ErrSchema = errors.New("pgstore: unsupported schema version")
	// ErrInput is returned for an argument the store cannot take: an
	// invalid collection name, a graph without nodes, an embedding of
	// another dimension than the collection's.
	ErrInput = errors.New("pgstore: invalid input")
)

// Store is a flowreader database: many collections in one PostgreSQL
// database, in the schema "flowreader". It holds a connection pool and is
// safe for concurrent use; make one per process with Open.
type Store struct {
	pool *pgxpool.Pool
	// read and written count the bytes of every connection, for the
	// figures of bytes per question.
	read, written atomic.Int64
	// noCopy: the server cannot take COPY FROM STDIN (PGlite); writes go
	// by INSERT.
	noCopy bool
	// ann: pgvector's halfvec and HNSW are there; new collections get an
	// HNSW index for their dense candidates. iterative: its index scans
	// go on past a filter (pgvector 0.8's hnsw.iterative_scan); without
	// them a filtered question ranks the filter's sketches instead.
	ann, iterative bool
	// colls caches each collection's id, dimension and whether it has an
	// HNSW index (what the dense query's text needs); a fetch checks it
	// against the row it reads.
	colls sync.Map // name → collMeta
	// sketches holds the sign sketches of large collections in memory:
	// those of sketchMin nodes or more (sketchMinNodes; tests lower it).
	sketches  sketchCache
	sketchMin int64
	// keywords holds the keyword frequencies questions have read, per
	// collection at its newest version.
	keywords kwCache
	// exact ranks every node's exact cosine for the dense candidates (no
	// sketch or HNSW pass): tests compare the evidence with the in-process
	// index's.
	exact bool
	// trace, when set, is told as each stage of an update ends (tests
	// time the stages).
	trace func(stage string)
}

// stage tells s.trace that an update's stage ended.
func (s *Store) stage(name string) {
	if s.trace != nil {
		s.trace(name)
	}
}

// errNotFound is a collection the database does not hold: it wraps
// flowreader.ErrNoGraph (errors.Is), which a server maps to 404.
var errNotFound error = &kindError{"pgstore: no such collection", flowreader.ErrNoGraph}

// kindError is a sentinel that is also one of package flowreader's, for
// errors.Is, with a message of its own.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// collMeta is what Store.colls caches of a collection.
type collMeta struct {
	id    int32
	dim   int
	ann   bool
	nodes int64 // when cached: a size hint
}

// Open connects to the database at url (a PostgreSQL URL or key=value
// string, as pgx takes it; pool_max_conns and the other pool settings
// included), creates the flowreader schema or migrates it to this
// library's version, and returns the store. Opening many stores on one
// database at once is safe: the migration runs once, under a lock.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open: %w: %w", ErrInput, err)
	}
	s := &Store{sketchMin: sketchMinNodes}
	// pgvector's types, on every connection of a database that has them.
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		var has bool
		if err := c.QueryRow(ctx, `SELECT to_regtype('halfvec') IS NOT NULL`).Scan(&has); err != nil || !has {
			return err
		}
		return pgxvec.RegisterTypes(ctx, c)
	}
	dial := cfg.ConnConfig.DialFunc
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countConn{Conn: c, s: s}, nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, wrap("open", err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, wrap("open", err)
	}
	err = migrate(ctx, conn.Conn())
	if err == nil {
		err = s.features(ctx, conn.Conn())
	}
	conn.Release()
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.pool = pool
	return s, nil
}

// features finds what the server offers: COPY (not on PGlite), and
// pgvector (installed, or installed now when the server has it and the
// database is writable; without the privilege the sketches serve).
func (s *Store) features(ctx context.Context, c *pgx.Conn) error {
	var version string
	var installed, available, standby bool
	err := c.QueryRow(ctx, `SELECT version(), EXISTS (SELECT FROM pg_extension WHERE extname = 'vector'),
EXISTS (SELECT FROM pg_available_extensions WHERE name = 'vector'), pg_is_in_recovery()`).Scan(&version, &installed, &available, &standby)
	if err != nil {
		return wrap("open", err)
	}
	s.noCopy = strings.Contains(version, "PGlite")
	if !installed && available && !standby {
		_, err := c.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`)
		installed = err == nil
		if installed {
			// The one connection made so far (this one) met no vector
			// types when it connected; later ones get them in
			// AfterConnect. Registering here rather than resetting the
			// pool spares a reconnect, which PGlite's socket server
			// refused under load.
			if err := pgxvec.RegisterTypes(ctx, c); err != nil {
				return wrap("open", err)
			}
		}
	}
	if installed {
		var ext string
		if err := c.QueryRow(ctx, `SELECT to_regtype('halfvec') IS NOT NULL AND EXISTS (SELECT FROM pg_am WHERE amname = 'hnsw'),
(SELECT extversion FROM pg_extension WHERE extname = 'vector')`).Scan(&s.ann, &ext); err != nil {
			return wrap("open", err)
		}
		var major, minor int
		if _, err := fmt.Sscanf(ext, "%d.%d", &major, &minor); err == nil {
			s.iterative = major > 0 || minor >= 8
		}
	}
	return nil
}

// meta returns a collection's id, dimension and HNSW flag, from the cache
// or the database.
func (s *Store) meta(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, name string) (collMeta, error) {
	if m, ok := s.colls.Load(name); ok {
		return m.(collMeta), nil
	}
	var m collMeta
	err := q.QueryRow(ctx, `SELECT id, dim, ann, nodes FROM flowreader.collections WHERE name = $1`, name).Scan(&m.id, &m.dim, &m.ann, &m.nodes)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, fmt.Errorf("pgstore: %q: %w", name, errNotFound)
	}
	if err != nil {
		return m, wrap("collection", err)
	}
	s.colls.Store(name, m)
	return m, nil
}

// countConn counts a connection's bytes into its store's totals.
type countConn struct {
	net.Conn
	s *Store
}

func (c *countConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.s.read.Add(int64(n))
	return n, err
}

func (c *countConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.s.written.Add(int64(n))
	return n, err
}

// Close closes the store's connections, waiting for those in use.
func (s *Store) Close() { s.pool.Close() }

// wrap makes err a store error of operation op: a PostgreSQL error keeps
// its type (errors.As with *pgconn.PgError gives the SQLSTATE), and an
// error of a database that cannot be reached, or is shutting down or
// starting, also wraps flowreader.ErrUnavailable. nil stays nil.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if unavailable(err) {
		return fmt.Errorf("pgstore: %s: %w: %w", op, flowreader.ErrUnavailable, err)
	}
	return fmt.Errorf("pgstore: %s: %w", op, err)
}

// unavailable reports whether err means the database is out of reach for
// now rather than that the request is wrong.
func unavailable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", // shutdown, crash, starting
			pe.Code == "53300": // too many connections
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.As(err, &oe) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err) ||
		strings.Contains(err.Error(), "conn closed")
}

// validName checks a collection name: 1 to 200 bytes of printable text.
func validName(name string) error {
	if name == "" || len(name) > 200 || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%w: collection name %q (1 to 200 bytes, no control characters)", ErrInput, name)
	}
	return nil
}

// Collection describes one collection of the store.
type Collection struct {
	// Name names the collection; requests name it.
	Name string
	// Version counts the commits that made the collection: 1 once
	// imported, one more for each update. An update names the version it
	// was made from (Store.Update's base).
	Version int64
	// Nodes and Documents count what the collection holds.
	Nodes, Documents int64
	// Dim is the embedding dimension; Int8 reports int8 embeddings with a
	// scale per row (else float32).
	Dim  int
	Int8 bool
	// Embedder names the embedder that made the embeddings.
	Embedder string
}

// Collections lists the store's collections by name.
func (s *Store) Collections(ctx context.Context) ([]Collection, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.name, c.version, c.nodes, (SELECT count(*) FROM flowreader.documents d WHERE d.coll = c.id), c.dim, c.int8, c.embedder
FROM flowreader.collections c ORDER BY c.name`)
	if err != nil {
		return nil, wrap("collections", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Collection, error) {
		var c Collection
		err := r.Scan(&c.Name, &c.Version, &c.Nodes, &c.Documents, &c.Dim, &c.Int8, &c.Embedder)
		return c, err
	})
	return out, wrap("collections", err)
}

// Drop deletes a collection and everything in it, in one transaction.
func (s *Store) Drop(ctx context.Context, name string) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var id int32
		if err := tx.QueryRow(ctx, `SELECT id FROM flowreader.collections WHERE name = $1 FOR UPDATE`, name).Scan(&id); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("pgstore: drop %q: %w", name, errNotFound)
			}
			return wrap("drop", err)
		}
		s.colls.Delete(name)
		s.sketches.drop(name)
		var ann bool
		if err := tx.QueryRow(ctx, `SELECT ann FROM flowreader.collections WHERE id = $1`, id).Scan(&ann); err != nil {
			return wrap("drop", err)
		}
		if ann {
			if _, err := tx.Exec(ctx, fmt.Sprintf(`DROP INDEX IF EXISTS flowreader.flowreader_ann_%d; DELETE FROM flowreader.ann WHERE coll = %d`, id, id)); err != nil {
				return wrap("drop", err)
			}
		}
		for _, t := range []string{"nodes", "cands", "sketches", "terms", "dfs", "postings", "refs", "titles", "changes", "keywords", "documents", "collections"} {
			col := "coll"
			if t == "collections" {
				col = "id"
			}
			if _, err := tx.Exec(ctx, `DELETE FROM flowreader.`+t+` WHERE `+col+` = $1`, id); err != nil {
				return wrap("drop", err)
			}
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify('flowreader', $1)`, name)
		return wrap("drop", err)
	})
}

// Candidates implements flowreader.Store: the candidate set of a question
// over the collection, read in one REPEATABLE READ snapshot of the latest
// committed version, in two or three round trips (three when the
// replica's sketches rank a large collection's dense candidates, or when
// the lexical seeds' adjacency is not among the dense pass's rows), as the
// package doc describes. Under a filter the candidates are nodes of the documents it
// passes (their IDs and metadata as Import and Update stored them); the
// statistics stay the collection's.
func (s *Store) Candidates(ctx context.Context, collection string, q score.Query, m int, c score.Config, f flowreader.Filter) (*score.Candidates, error) {
	fe, err := s.fetch(ctx, collection, q, m, c, fetchOptions{exact: s.exact, filter: f})
	if err != nil {
		return nil, err
	}
	return fe.candidates()
}

// Nodes implements flowreader.Store: the nodes at the positions (seqs),
// with their text, in one round trip; a position the collection does not
// hold gives a zero Node. A node's row is written once and never changed,
// so this needs no snapshot shared with Candidates.
func (s *Store) Nodes(ctx context.Context, collection string, positions []int) ([]graph.Node, error) {
	seqs := make([]int64, len(positions))
	for i, p := range positions {
		seqs[i] = int64(p)
	}
	got := make(map[int64]graph.Node, len(positions))
	found := false
	b := &pgx.Batch{}
	b.Queue(`SELECT true FROM flowreader.collections WHERE name = $1`, collection).QueryRow(func(r pgx.Row) error {
		return r.Scan(&found)
	})
	b.Queue(`SELECT n.seq, n.id, n.doc, c.page, c.last_page, c.ord, c.modality, c.section, c.keywords,
	n.content, n.caption, n.footnote, n.summary, n.tags, n.image_text, n.image_path, n.image_mime, n.context
FROM flowreader.nodes n JOIN flowreader.cands c ON c.coll = n.coll AND c.seq = n.seq
WHERE n.coll = (SELECT id FROM flowreader.collections WHERE name = $1) AND n.seq = ANY($2)`, collection, seqs).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var (
				nd           graph.Node
				seq          int64
				page, last   int32
				ord          int32
				mod          int16
				ipath, imime string
			)
			if err := rows.Scan(&seq, &nd.ID, &nd.Doc, &page, &last, &ord, &mod, &nd.Section, &nd.Keywords,
				&nd.Content, &nd.Caption, &nd.Footnote, &nd.Summary, &nd.Tags, &nd.ImageText, &ipath, &imime, &nd.Context); err != nil {
				return err
			}
			nd.Page, nd.LastPage, nd.Order, nd.Modality = int(page), int(last), int(ord), graph.Modality(mod)
			if len(nd.Keywords) == 0 {
				nd.Keywords = nil
			}
			if len(nd.Tags) == 0 {
				nd.Tags = nil
			}
			if ipath != "" {
				nd.Image = &graph.ImageRef{Path: ipath, MIME: imime}
			}
			got[seq] = nd
		}
		return rows.Err()
	})
	err := s.pool.SendBatch(ctx, b).Close()
	if errors.Is(err, pgx.ErrNoRows) || err == nil && !found {
		return nil, fmt.Errorf("pgstore: nodes of %q: %w", collection, errNotFound)
	}
	if err != nil {
		return nil, wrap("nodes", err)
	}
	out := make([]graph.Node, len(seqs))
	for i, q := range seqs {
		out[i] = got[q]
	}
	return out, nil
}

var _ flowreader.Store = (*Store)(nil)
