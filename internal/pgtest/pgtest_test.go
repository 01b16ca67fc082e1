package pgtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flowreader/flowreader/internal/pgtest"
)

func TestPrimaryAndStandby(t *testing.T) {
	s := pgtest.Start(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatal(err, s.Log())
	}
	defer c.Close(ctx)
	var v int
	if err := c.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v < 150000 {
		t.Fatalf("server version %d, want 15 or later", v)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE t (x int); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}

	sb := s.Standby(t)
	cs, err := pgx.Connect(ctx, sb.URL())
	if err != nil {
		t.Fatal(err, sb.Log())
	}
	defer cs.Close(ctx)
	var rec bool
	if err := cs.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&rec); err != nil || !rec {
		t.Fatalf("standby in recovery = %v, %v", rec, err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	// The standby replays the insert: wait for it, bounded.
	deadline := time.Now().Add(60 * time.Second)
	for {
		var n int
		if err := cs.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("standby has %d rows after 60 s, want 2", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := cs.Exec(ctx, "INSERT INTO t VALUES (3)"); err == nil {
		t.Fatal("standby accepted a write")
	}

	// Restart: what was committed stays, on the same port.
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	c2, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	var n int
	if err := c2.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 2 {
		t.Fatalf("after restart: %d rows, %v", n, err)
	}
}
