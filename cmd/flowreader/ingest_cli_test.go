//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var mixedDocs = filepath.Join("..", "..", "graph", "ingest", "testdata", "mixed")

// build prints the report: files read with their reader, skipped ones
// with the reason, warnings (lost content marked), files of other types;
// --strict fails on skipped files and lost content, not on missing images,
// guessed encodings or files of other types.
func TestBuildReportAndStrict(t *testing.T) {
	out := filepath.Join(t.TempDir(), "g.frg")
	_, se, code := cli(t, nil, "build", "-o", out, mixedDocs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se)
	}
	root, _ := filepath.Abs(mixedDocs)
	abs := func(p string) string { return filepath.Join(root, p) }
	for _, want := range []string{
		"build: read " + abs("guide.md") + " as markdown: 4 items",
		"build: read " + abs("paper-v2/paper-v2_content_list_v2.json") + " as mineru-v2: 4 items",
		"build: skipped " + abs("binary.txt") + ": ingest: unsupported file type: binary content, not text (text)",
		"build: skipped " + abs("empty.md") + ": ingest: no content: no text (markdown)",
		"build:   warning: " + abs("latin1.txt") + ": not UTF-8: decoded as Windows-1252 (Latin-1)",
		"build:   lost: " + abs("broken.md") + ": invalid UTF-8: 2 bytes replaced by U+FFFD",
		"build:   warning: " + abs("paper/paper_content_list.json") + `: item 2 (image): image "images/storm.jpg" is missing: kept without it`,
		"build: not read " + abs("report.docx") + ": ingest: unsupported file type: .docx",
	} {
		if !strings.Contains(se, want+"\n") {
			t.Errorf("stderr lacks %q:\n%s", want, se)
		}
	}
	_, se, code = cli(t, nil, "build", "--strict", "-o", out, mixedDocs)
	if code != 1 || !strings.Contains(se, "--strict: 3 document files skipped or with content lost") {
		t.Errorf("--strict: exit %d:\n%s", code, se)
	}
	// Files of other types alone do not fail --strict.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nText.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.docx"), []byte("x"), 0o644)
	if _, se, code := cli(t, nil, "build", "--strict", "-o", out, dir); code != 0 {
		t.Errorf("--strict with a .docx beside: exit %d:\n%s", code, se)
	}
	// A MinerU download without its images: one line for 70 warnings,
	// --verbose for the list, and --strict passes (no content lost).
	mineru := filepath.Join(t.TempDir(), "paper")
	os.Mkdir(mineru, 0o755)
	var items []string
	for i := range 70 {
		items = append(items, fmt.Sprintf(`{"type":"image","img_path":"images/%02d.jpg","image_caption":["Figure %d"]}`, i, i+1))
	}
	os.WriteFile(filepath.Join(mineru, "paper_content_list.json"), []byte("["+strings.Join(items, ",")+"]"), 0o644)
	_, se, code = cli(t, nil, "build", "--strict", "-o", out, mineru)
	if code != 0 || strings.Count(se, "warning:") != 1 || !strings.Contains(se, "(and 69 more like it)") || !strings.Contains(se, "--verbose lists every warning") {
		t.Errorf("folded warnings: exit %d:\n%s", code, se)
	}
	_, se, _ = cli(t, nil, "build", "--verbose", "-o", out, mineru)
	if n := strings.Count(se, "warning:"); n != 51 { // 50 kept, then "and 20 more warnings"
		t.Errorf("--verbose: %d warning lines:\n%s", n, se)
	}
}

// The output location is checked before any work starts.
func TestBuildChecksOutputFirst(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "notes.md")
	os.WriteFile(in, []byte("# Notes\n\nKestrels.\n"), 0o644)
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	cases := map[string]struct{ out, want string }{
		"missing folder":                 {filepath.Join(dir, "nope", "g.frg"), "folder " + filepath.Join(dir, "nope") + " does not exist"},
		"a folder":                       {dir, "is a folder"},
		"the input":                      {in, "is an input file"},
		"an input file in a PATH folder": {filepath.Join(dir, "notes.md"), "is an input file"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		cases["read-only folder"] = struct{ out, want string }{filepath.Join(ro, "g.frg"), "cannot write in " + ro}
	}
	for name, c := range cases {
		args := []string{"build", "-o", c.out, in}
		if name == "an input file in a PATH folder" {
			args = []string{"build", "-o", c.out, dir}
		}
		_, se, code := cli(t, nil, args...)
		want := 1
		if strings.Contains(c.want, "input file") { // a usage mistake
			want = 2
		}
		if code != want || !strings.Contains(se, c.want) || strings.Contains(se, "build: read ") {
			t.Errorf("%s: exit %d, stderr:\n%s", name, code, se)
		}
	}
	data, _ := os.ReadFile(in)
	if string(data) != "# Notes\n\nKestrels.\n" {
		t.Error("the input was overwritten")
	}
}

// Output files honour the umask, and inspect shows what the graph holds:
// its image root (recorded, so ask needs no --images) and every node as a
// JSON line with a 1-based page.
func TestOutputModeAndInspect(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	out := filepath.Join(t.TempDir(), "g.frg")
	if _, se, code := cli(t, nil, "build", "-o", out, quickstartDocs); code != 0 {
		t.Fatalf("build: %s", se)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o644 {
		t.Errorf("graph file mode %v, want 0644", st.Mode().Perm())
	}
	dot := filepath.Join(filepath.Dir(out), "flow.dot")
	// 4: the reader is not sure (a superlative over a table); the picture is
	// written all the same.
	if _, se, code := cli(t, nil, "ask", "-g", out, "--dot", dot, "Which breakwater lost most nests?"); code != 0 && code != exitNotSure {
		t.Fatalf("ask: %s", se)
	}
	if st, _ := os.Stat(dot); st.Mode().Perm() != 0o644 {
		t.Errorf("DOT file mode %v, want 0644", st.Mode().Perm())
	}
	if _, se, code := cli(t, nil, "ask", "-g", out, "--dot", out, "Q?"); code != 2 || !strings.Contains(se, "is an input file") {
		t.Errorf("ask --dot over the graph: exit %d: %s", code, se)
	}

	var so, se bytes.Buffer
	cmds := []command{inspectCommand()}
	if code := run(t.Context(), []string{"inspect", "-g", out}, cmds, &so, &se); code != 0 {
		t.Fatalf("inspect: %s", se.String())
	}
	docs, _ := filepath.Abs(quickstartDocs)
	for _, want := range []string{"nodes      13: 9 text, 2 tables, 2 figures", "images     3 under " + docs + " (3 found)", `station-report: 6 nodes, pages 1-2, "Northfield Weather Station: Annual Report 2025"`} {
		if !strings.Contains(so.String(), want) {
			t.Errorf("inspect lacks %q:\n%s", want, so.String())
		}
	}
	so.Reset()
	if code := run(t.Context(), []string{"inspect", "-g", out, "--nodes"}, cmds, &so, &se); code != 0 {
		t.Fatalf("inspect --nodes: %s", se.String())
	}
	lines := strings.Split(strings.TrimSpace(so.String()), "\n")
	if len(lines) != 13 {
		t.Fatalf("%d lines, want 13", len(lines))
	}
	pages := map[string]bool{}
	for _, l := range lines {
		var n struct {
			ID, Doc, Title, Modality, Section, Content, Caption string
			Page                                                *int
			Image                                               *string
		}
		if err := json.Unmarshal([]byte(l), &n); err != nil || n.ID == "" || n.Title == "" || n.Modality == "" {
			t.Fatalf("line %q: %v", l, err)
		}
		if n.Page != nil {
			pages[fmt.Sprint(*n.Page)] = true
		}
	}
	if !pages["1"] || !pages["2"] || pages["0"] {
		t.Errorf("pages %v, want 1-based", pages)
	}
}

// Ctrl-C stops a build promptly in a real process, leaving the previous
// output intact and no temporary file; exit status 130.
func TestBuildInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "flowreader")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	col := filepath.Join(t.TempDir(), "col")
	os.Mkdir(col, 0o755)
	para := strings.Repeat("Kestrels hover over the north ridge while terns nest on the mole. ", 12)
	for i := range 4000 {
		os.WriteFile(filepath.Join(col, fmt.Sprintf("doc%04d.md", i)), []byte(fmt.Sprintf("# Doc %d\n\n%s\n\n%s %d\n", i, para, para, i)), 0o644)
	}
	outDir := t.TempDir()
	out := filepath.Join(outDir, "g.frg")
	for _, when := range []string{"ingest", "build"} {
		t.Run(when, func(t *testing.T) {
			os.WriteFile(out, []byte("previous graph"), 0o644)
			cmd := exec.Command(bin, "build", "-o", out, col)
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(stderr)
			// Wait for the line that says the stage has begun (the
			// signal handler is installed before), not for a time.
			prefix := "build: reading " // ingestion under way
			if when == "build" {
				prefix = "build: ingested" // the ingest report's last line
			}
			for lines.Scan() && !strings.HasPrefix(lines.Text(), prefix) {
			}
			sent := time.Now()
			cmd.Process.Signal(os.Interrupt)
			go func() {
				for lines.Scan() {
				}
			}()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the build ignored Ctrl-C for 20 s")
			}
			t.Logf("exited %v after Ctrl-C", time.Since(sent).Round(time.Millisecond))
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("exit %v, want status 130", err)
			}
			if data, _ := os.ReadFile(out); string(data) != "previous graph" {
				t.Errorf("the previous output was replaced (%d bytes)", len(data))
			}
			if ents, _ := os.ReadDir(outDir); len(ents) != 1 {
				t.Errorf("files left in the output folder: %v", ents)
			}
		})
	}
}
