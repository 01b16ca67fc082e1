//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A build that was killed while saving leaves a hidden temporary file as
// large as the graph; the next build into the same folder removes it (its
// process is gone), and leaves alone one whose process still runs.
func TestBuildRemovesStaleTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "g.frg")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, fmt.Sprintf(".g.frg.tmp-%d-0123456789abcdef", dead.Process.Pid))
	live := filepath.Join(dir, fmt.Sprintf(".g.frg.tmp-%d-fedcba9876543210", os.Getpid()))
	other := filepath.Join(dir, ".other.frg.tmp-1-00")
	for _, f := range []string{stale, live, other} {
		if err := os.WriteFile(f, []byte("half a graph"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, se, code := cli(t, nil, "build", "--quiet", "-o", out, quickstartDocs); code != 0 {
		t.Fatalf("build: %s", se)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
	for _, f := range []string{live, other} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(f), err)
		}
	}
}
