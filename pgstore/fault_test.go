package pgstore

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/internal/lab/synth"
	"github.com/flowreader/flowreader/internal/pgtest"
	"github.com/flowreader/flowreader/score"
)

// TestRestart: a store whose database stops answers ErrUnavailable, and
// answers again once the database is back, with no new Store.
func TestRestart(t *testing.T) {
	t.Parallel()
	s, srv := openTest(t)
	ctx := context.Background()
	da := versionDocs(false)
	p, ga := buildDocs(t, da)
	if err := s.Import(ctx, "c", ga); err != nil {
		t.Fatal(err)
	}
	vs, err := p.Embedder().Embed(ctx, []string{"lighthouse"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	q := score.Query{Text: "lighthouse", Embedding: vs[0]}
	if _, err := s.fetch(ctx, "c", q, 8, score.Config{}, fetchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		_, err := s.fetch(ctx, "c", q, 8, score.Config{}, fetchOptions{})
		if !errors.Is(err, flowreader.ErrUnavailable) {
			t.Fatalf("fetch %d with the database stopped: %v, want flowreader.ErrUnavailable", i, err)
		}
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	// The pool may hold connections of the old server: each is dropped on
	// its first failure (ErrUnavailable), so a bounded number of tries
	// reaches a new one.
	var last error
	for i := 0; i < 50; i++ {
		if _, last = s.fetch(ctx, "c", q, 8, score.Config{}, fetchOptions{}); last == nil {
			return
		}
		if !errors.Is(last, flowreader.ErrUnavailable) {
			t.Fatalf("after the restart: %v", last)
		}
	}
	t.Fatalf("no answer after the restart: %v", last)
}

// TestWriterKilled: a writer killed with SIGKILL in the middle of an
// update leaves the previous version whole, and the next writer is not
// blocked by it.
func TestWriterKilled(t *testing.T) {
	if url := os.Getenv("FLOWREADER_PGSTORE_WRITER"); url != "" {
		killedWriter(t, url)
		return
	}
	s, srv := openTest(t)
	ctx := context.Background()
	small := synth.Topics(t, 500, 16)
	if err := s.Import(ctx, "c", small); err != nil {
		t.Fatal(err)
	}
	v := version(t, s, "c")

	cmd := exec.Command(os.Args[0], "-test.run=^TestWriterKilled$", "-test.v")
	cmd.Env = append(os.Environ(), "FLOWREADER_PGSTORE_WRITER="+srv.URL())
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the writer is writing: its transaction holds the
	// collection's row lock and copies rows.
	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var n int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'killed-writer'
AND xact_start IS NOT NULL AND query ILIKE 'copy%postings%'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill() //nolint:errcheck
			cmd.Wait()         //nolint:errcheck
			t.Fatalf("the writer did not start writing in 3 minutes:\n%s", out)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	werr := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("the writer was not killed (%v):\n%s", werr, out)
	}
	if got := version(t, s, "c"); got != v {
		t.Fatalf("version %d after the killed update, want %d", got, v)
	}
	sameTopics(t, s, "c", len(small.Nodes))
	// The server notices the dead client and ends its transaction; the
	// next writer then takes the lock.
	uctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if _, err := s.Update(uctx, "c", v, synth.Topics(t, 600, 16), nil); err != nil {
		t.Fatal(err)
	}
	sameTopics(t, s, "c", 600)
}

// killedWriter is the writer TestWriterKilled kills: a long update.
func killedWriter(t *testing.T, url string) {
	ctx := context.Background()
	s, err := Open(ctx, url+"&application_name=killed-writer")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.Collections(ctx)
	if err != nil || len(cs) != 1 {
		t.Fatal(cs, err)
	}
	big := synth.Topics(t, 30000, 16)
	_, err = s.Update(ctx, "c", cs[0].Version, big, nil)
	t.Fatalf("the update ended before it was killed: %v", err)
}

// sameTopics checks that the collection is whole: n nodes, each with its
// vector, sketch and postings.
func sameTopics(t *testing.T, s *Store, name string, n int) {
	t.Helper()
	ctx := context.Background()
	var nodes, rows, vecs, sks, docs int64
	err := s.pool.QueryRow(ctx, `SELECT c.nodes,
(SELECT count(*) FROM flowreader.nodes WHERE coll = c.id), (SELECT count(*) FROM flowreader.cands WHERE coll = c.id),
(SELECT count(*) FROM flowreader.sketches WHERE coll = c.id), (SELECT coalesce(sum(nodes), 0) FROM flowreader.documents WHERE coll = c.id)
FROM flowreader.collections c WHERE name = $1`, name).Scan(&nodes, &rows, &vecs, &sks, &docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []int64{nodes, rows, vecs, sks, docs} {
		if x != int64(n) {
			t.Fatalf("collection %q: nodes %d, rows %d, vectors %d, sketches %d, document nodes %d; want %d", name, nodes, rows, vecs, sks, docs, n)
		}
	}
}

// TestStandby: a store on a streaming standby answers while the primary
// takes updates, each question from one version, and sees the updates.
func TestStandby(t *testing.T) {
	t.Parallel()
	s, srv := openTest(t)
	ctx := context.Background()
	da, db := versionDocs(false), versionDocs(true)
	p, ga := buildDocs(t, da)
	_, gb := buildDocs(t, db)
	if err := s.Import(ctx, "c", ga); err != nil {
		t.Fatal(err)
	}
	sb := srv.Standby(t)
	r, err := Open(ctx, sb.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	question := "lighthouse keeper lamp"
	vs, err := p.Embedder().Embed(ctx, []string{question}, 1)
	if err != nil {
		t.Fatal(err)
	}
	q := score.Query{Text: question, Embedding: vs[0]}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	versions := map[int64]bool{}
	for k := 0; k < 2; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				f, err := r.fetch(ctx, "c", q, 64, score.Config{}, fetchOptions{exact: true, text: true})
				if err != nil {
					t.Error(err)
					return
				}
				alpha, beta := 0, 0
				for _, nd := range f.nodes {
					alpha += strings.Count(nd.Content, "alpha edition")
					beta += strings.Count(nd.Content, "beta edition")
				}
				if !(alpha == 3 && beta == 0 && f.n == int64(len(ga.Nodes)) || alpha == 0 && beta == 5 && f.n == int64(len(gb.Nodes))) {
					t.Errorf("standby: a mixed version: %d alpha and %d beta passages, %d nodes", alpha, beta, f.n)
					return
				}
				mu.Lock()
				versions[f.version] = true
				mu.Unlock()
			}
		}()
	}
	v := version(t, s, "c")
	for i := 0; i < 6; i++ {
		g := gb
		if i%2 == 1 {
			g = ga
		}
		if v, err = s.Update(ctx, "c", v, g, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The last version reaches the standby.
	deadline := time.Now().Add(time.Minute)
	for {
		mu.Lock()
		ok := versions[v]
		mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby did not answer from version %d within a minute", v)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(done)
	wg.Wait()
	t.Logf("standby answered from %d versions", len(versions))
}

var _ = pgtest.Start
