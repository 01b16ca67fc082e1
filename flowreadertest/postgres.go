package flowreadertest

import (
	"testing"

	"github.com/flowreader/flowreader/internal/pgtest"
)

// PostgreSQL starts a throwaway PostgreSQL server for the test and returns
// its connection URL (superuser postgres, database postgres, on a free
// loopback port). The server runs from Debian's postgresql-15 binaries
// (or $FLOWREADER_PG_BIN) in a new temporary folder, as the postgres user
// when the test runs as root (the server refuses root), without fsync;
// the test's cleanup stops it and removes the folder. Without the binaries
// the test is skipped with a message saying how to install them, unless CI
// is set in the environment, where it fails.
func PostgreSQL(t testing.TB) string {
	t.Helper()
	return pgtest.Start(t).URL()
}
