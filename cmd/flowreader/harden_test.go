package main

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// controlFree reports the first control character (other than newline and
// tab) in s, as the terminal would see it.
func controlChar(s string) (rune, bool) {
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return r, true
		}
	}
	return 0, false
}

// The tester's terminal attacks: a document whose text holds an OSC 0
// title, an ED clear screen and an OSC 52 clipboard write, in a file whose
// name holds a newline that forges a "build: wrote" line. Build and ask
// print none of it raw; ask --json keeps the text exact.
func TestCLITerminalOutputIsSanitised(t *testing.T) {
	dir := t.TempDir()
	col := filepath.Join(dir, "col")
	os.MkdirAll(col, 0o755)
	name := "notes\nbuild: wrote FAKE LINE.md"
	text := "# Notes\n\nKestrels \x1b]0;PWNED\x07 were \x1b[2J counted: 42 kestrels on the north ridge in May. \x1b]52;c;ZWNobyBwd25lZA==\x07\n"
	if err := os.WriteFile(filepath.Join(col, name), []byte(text), 0o644); err != nil {
		t.Skip("file names with newlines unsupported:", err)
	}
	out := filepath.Join(dir, "g.frg")
	so, se, code := cli(t, nil, "build", "-o", out, col)
	if code != 0 {
		t.Fatalf("build exit %d: %s", code, se)
	}
	for _, line := range strings.Split(so+se, "\n") {
		if strings.HasPrefix(line, "build: wrote FAKE LINE") {
			t.Errorf("a file name forged an output line: %q", line)
		}
	}
	if r, ok := controlChar(so + se); ok {
		t.Errorf("build printed control character %U:\n%q", r, so+se)
	}
	so, se, code = cli(t, nil, "ask", "-g", out, "--explain", "How many kestrels were counted on the north ridge?")
	if code != 0 {
		t.Fatalf("ask exit %d: %s", code, se)
	}
	if r, ok := controlChar(so + se); ok {
		t.Errorf("ask printed control character %U:\n%q", r, so+se)
	}
	if !strings.Contains(so, "kestrels") {
		t.Errorf("ask answered without the document:\n%s", so)
	}
	so, se, code = cli(t, nil, "ask", "-g", out, "--json", "How many kestrels were counted on the north ridge?")
	if code != 0 {
		t.Fatalf("ask --json exit %d: %s", code, se)
	}
	var got struct {
		Answer    string `json:"answer"`
		Citations []struct {
			Doc    string `json:"doc"`
			NodeID string `json:"node_id"`
			Quote  string `json:"quote"`
		} `json:"citations"`
	}
	if err := json.Unmarshal([]byte(so), &got); err != nil {
		t.Fatal(err)
	}
	exact := got.Answer
	for _, c := range got.Citations {
		exact += c.Quote + c.NodeID + c.Doc
	}
	if !strings.Contains(exact, "\x1b") || !strings.Contains(exact, "\n") {
		t.Errorf("--json does not keep the text and ids exact: %q", exact)
	}
}

// Credentials in a server URL are never printed: not in the "remote
// embedder at" line, not in the error line (before: twice).
func TestCLIRedactsURLCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	url := strings.Replace(srv.URL, "http://", "http://alice:hunter2@", 1) + "/v1"
	so, se, code := cli(t, nil, "build", "-o", filepath.Join(t.TempDir(), "g.frg"), "--embed-url", url, "--embed-model", "e", quickstartDocs)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, se)
	}
	if strings.Contains(so+se, "hunter2") {
		t.Errorf("the password was printed:\n%s", so+se)
	}
	if !strings.Contains(se, "alice:xxxxx@") {
		t.Errorf("stderr does not name the server:\n%s", se)
	}
}

// build -o notes.txt notes.txt and ask --dot (or --mermaid) onto the graph
// file are refused before any work, leaving the input intact.
func TestCLIRefusesOverwritingInputs(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	body := []byte("Kestrels nest on the north ridge.\n")
	os.WriteFile(notes, body, 0o644)
	_, se, code := cli(t, nil, "build", "-o", notes, notes)
	if code != 2 || !strings.Contains(se, "is an input file") {
		t.Fatalf("build -o onto its input: exit %d: %s", code, se)
	}
	if b, _ := os.ReadFile(notes); string(b) != string(body) {
		t.Fatal("the input was overwritten")
	}
	g := buildQuickstart(t)
	before, _ := os.ReadFile(g)
	for _, flag := range []string{"--dot", "--mermaid"} {
		_, se, code = cli(t, nil, "ask", "-g", g, flag, g, "What was the peak gust?")
		if code != 2 || !strings.Contains(se, "is an input file") {
			t.Errorf("ask %s onto the graph: exit %d: %s", flag, code, se)
		}
	}
	if after, _ := os.ReadFile(g); string(after) != string(before) {
		t.Fatal("the graph file was overwritten")
	}
}

// --budget 2000000000 is clamped to the graph's size (and said so) instead
// of sizing work by it.
func TestCLIBudgetClampedToTheGraph(t *testing.T) {
	g := buildQuickstart(t)
	for _, preset := range []string{"aspects", "classic"} {
		so, se, code := cli(t, nil, "ask", "-g", g, "--preset", preset, "--budget", "2000000000", "What was the peak gust?")
		if code != 0 || !strings.Contains(se, "clamped to the graph's 13 nodes") || !strings.Contains(so, "131") {
			t.Errorf("%s: exit %d\n%s\n%s", preset, code, so, se)
		}
	}
}

// A server that accepts requests and never answers fails the build after
// the per-request timeout (flag or environment) and its retries, instead of
// stalling it for good.
func TestCLIRequestTimeout(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer srv.Close()
	defer close(stop)
	for _, c := range []struct {
		e    env
		args []string
	}{
		{nil, []string{"--timeout", "100ms"}},
		{env{envTimeout: "100ms"}, nil},
	} {
		args := append([]string{"build", "--quiet", "-o", filepath.Join(t.TempDir(), "g.frg"), "--embed-url", srv.URL, "--embed-model", "e"}, c.args...)
		_, se, code := cli(t, c.e, append(args, quickstartDocs)...)
		if code != 1 || !strings.Contains(se, "Timeout") && !strings.Contains(se, "timeout") {
			t.Errorf("%v %v: exit %d: %s", c.e, c.args, code, se)
		}
	}
	if _, se, code := cli(t, env{envTimeout: "soon"}, "build", "-o", filepath.Join(t.TempDir(), "g.frg"), "--embed-url", srv.URL, "--embed-model", "e", quickstartDocs); code != 2 {
		t.Errorf("bad $%s: exit %d: %s", envTimeout, code, se)
	}
}

// A graph file crafted with valid checksums whose embeddings are scaled by
// 1e37 (before: ask --preset classic panicked in MMR, the aspects presets
// failed with "mcf: arc 30 cost NaN") is refused by every preset with a
// one-line "invalid graph" error.
func TestCLICraftedGraphIsRefused(t *testing.T) {
	path := buildQuickstart(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	emb := data[len(data)-4*len(g.Emb):]
	for i := 0; i+4 <= len(emb); i += 4 {
		x := math.Float32frombits(binary.LittleEndian.Uint32(emb[i:]))
		binary.LittleEndian.PutUint32(emb[i:], math.Float32bits(x*1e37))
	}
	tab := crc32.MakeTable(crc32.Castagnoli)
	binary.LittleEndian.PutUint32(data[24:], crc32.Checksum(data[32:], tab))
	binary.LittleEndian.PutUint32(data[28:], crc32.Checksum(data[:28], tab))
	crafted := filepath.Join(t.TempDir(), "crafted.frg")
	if err := os.WriteFile(crafted, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, preset := range []string{"classic", "aspects", "aspects-paper"} {
		_, se, code := cli(t, nil, "ask", "-g", crafted, "--preset", preset, "What was the peak gust?")
		if code != 1 || !strings.Contains(se, "invalid graph") || strings.Count(se, "\n") != 1 {
			t.Errorf("%s: exit %d: %q", preset, code, se)
		}
	}
}
