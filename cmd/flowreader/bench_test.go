package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestBenchScale builds the command and runs it as a process at a small
// size: the six figures, one a line, in order, each a number in its range.
func TestBenchScale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "flowreader")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "bench", "scale", "--nodes", "600", "--dim", "16", "--seed", "3").Output()
	if err != nil {
		t.Fatalf("bench scale: %v", err)
	}
	names := []string{"build-seconds", "build-cpu-seconds", "copies-seconds", "copies-cpu-seconds", "peak-rss-bytes", "knn-recall", "query-ms-median", "bruteforce-query-ms-median", "evidence-overlap"}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(names) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(names), out)
	}
	re := regexp.MustCompile(`^([a-z-]+) ([0-9.]+)$`)
	for i, l := range lines {
		m := re.FindStringSubmatch(l)
		if m == nil || m[1] != names[i] {
			t.Fatalf("line %d %q, want %q X", i, l, names[i])
		}
		x, _ := strconv.ParseFloat(m[2], 64)
		switch m[1] {
		case "knn-recall", "evidence-overlap":
			// Exact kNN at this size, and the default scores every node.
			if x != 1 {
				t.Errorf("%s = %v, want 1", m[1], x)
			}
		case "peak-rss-bytes":
			if x < 1<<20 {
				t.Errorf("peak RSS %v bytes", x)
			}
		}
	}

	// With int8 embeddings: the same lines; kNN recall is against the
	// float32 rows, so it may fall below 1 (d = 16 quantises coarsely).
	out, err = exec.Command(bin, "bench", "scale", "--nodes", "600", "--dim", "16", "--seed", "3", "--int8").Output()
	if err != nil {
		t.Fatalf("bench scale --int8: %v", err)
	}
	lines = strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(names) {
		t.Fatalf("--int8: %d lines, want %d:\n%s", len(lines), len(names), out)
	}
	for i, l := range lines {
		m := re.FindStringSubmatch(l)
		if m == nil || m[1] != names[i] {
			t.Fatalf("--int8: line %d %q, want %q X", i, l, names[i])
		}
		x, _ := strconv.ParseFloat(m[2], 64)
		if m[1] == "knn-recall" && (x < 0.8 || x > 1) || m[1] == "evidence-overlap" && x != 1 {
			t.Errorf("--int8: %s = %v", m[1], x)
		}
	}

	// Bad use is a usage error (exit 2) with a message.
	for _, args := range [][]string{{"bench"}, {"bench", "scale", "--nodes", "1"}, {"bench", "other"}} {
		cmd := exec.Command(bin, args...)
		cmd.Stdout = os.Stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%v: %v, want exit 2", args, err)
		}
	}
}

// TestBenchStoreSharedBuffers: --shared-buffers takes a PostgreSQL size
// only (it becomes a line of the throwaway server's configuration), and
// only for the throwaway server.
func TestBenchStoreSharedBuffers(t *testing.T) {
	for _, s := range []string{"512MB", "6GB", "64kB", "1TB"} {
		if !validSize(s) {
			t.Errorf("validSize(%q) false", s)
		}
	}
	for _, s := range []string{"", "GB", "6 GB", "6gb", "6GB'\nfsync = on", "-1GB", "1.5GB", "6"} {
		if validSize(s) {
			t.Errorf("validSize(%q) true", s)
		}
		if s == "" { // unset: the bench would run
			continue
		}
		err := runBenchStore(t.Context(), []string{"--nodes", "400", "--shared-buffers", s}, io.Discard, io.Discard)
		if !errors.Is(err, errUsage) {
			t.Errorf("--shared-buffers %q: %v, want a usage error", s, err)
		}
	}
	err := runBenchStore(t.Context(), []string{"--nodes", "400", "--store", "postgres://127.0.0.1:1/x", "--shared-buffers", "1GB"}, io.Discard, io.Discard)
	if !errors.Is(err, errUsage) {
		t.Errorf("--store with --shared-buffers: %v, want a usage error", err)
	}
}
