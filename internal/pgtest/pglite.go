package pgtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The PGlite packages the pgvector tests run on: PostgreSQL compiled to
// WebAssembly with pgvector, served over the wire protocol. pgvector is
// not packaged for Debian 12; PGlite is a test double for its SQL, not a
// place to measure speed.
var pglitePackages = []string{
	"@electric-sql/pglite@0.5.14",
	"@electric-sql/pglite-socket@0.2.17",
	"@electric-sql/pglite-pgvector@0.0.15",
}

// StartPGlite starts an in-memory PGlite server with the vector extension
// (pglite-server from npm, installed on first use into the user's cache
// folder) on a free loopback port, and stops it at the test's cleanup. Its
// URL asks pgx for one connection in exec mode: PGlite serves every
// connection from one backend, and prepared statements of one connection
// would meet another's. It skips the test when node or npm is missing
// (fails under CI).
func StartPGlite(t TB) string {
	t.Helper()
	bin, err := pgliteServer()
	if err != nil {
		unavailable(t, err)
		return ""
	}
	var url string
	for try := 0; try < 5; try++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		if url, err = runPGlite(t, bin, port); err == nil {
			return url
		}
		t.Logf("pgtest: PGlite on port %d: %v", port, err)
	}
	t.Fatalf("pgtest: PGlite did not start")
	return ""
}

// pgliteServer returns the pglite-server script, installing the packages
// when they are not in the cache.
func pgliteServer() (string, error) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("node not found (install Debian's nodejs and npm): %w", err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "flowreader", "pglite-0.5.14-socket-0.2.17-pgvector-0.0.15")
	bin := filepath.Join(dir, "node_modules", ".bin", "pglite-server")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("npm not found (install Debian's npm): %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args := append([]string{"install", "--no-audit", "--no-fund", "--prefix", dir}, pglitePackages...)
	out, err := exec.CommandContext(ctx, "npm", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("npm install %s: %w: %s", strings.Join(pglitePackages, " "), err, tail(string(out), 2000))
	}
	return bin, nil
}

// runPGlite starts the server on port and waits until it listens.
func runPGlite(t TB, bin string, port int) (string, error) {
	cmd := exec.Command(bin, "--db=memory://", "--port="+strconv.Itoa(port), "--host=127.0.0.1",
		"-e", "@electric-sql/pglite-pgvector:vector")
	dieWithParent(cmd, syscall.SIGKILL)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return "", err
	}
	stop := func() {
		cmd.Process.Kill() //nolint:errcheck // it may have exited
		cmd.Wait()         //nolint:errcheck // killed
	}
	ready := make(chan error, 1)
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if log.Len() < 8000 {
				log.WriteString(line + "\n")
			}
			if strings.Contains(line, "listening on") {
				ready <- nil
				io.Copy(io.Discard, out) //nolint:errcheck // drain until exit
				return
			}
		}
		ready <- fmt.Errorf("pglite-server exited before listening: %s", log.String())
	}()
	select {
	case err := <-ready:
		if err != nil {
			stop()
			return "", err
		}
	case <-time.After(3 * time.Minute):
		stop()
		return "", fmt.Errorf("pglite-server did not listen within 3 minutes")
	}
	t.Cleanup(stop)
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&default_query_exec_mode=exec&pool_max_conns=1", port), nil
}
