//go:build unix

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowreader/flowreader/internal/pgtest"
)

// writeDocs writes Markdown documents (name → text) into a new folder.
func writeDocs(t *testing.T, docs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range docs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// docsOf is the documents of a retrieve answer's chains.
func docsOf(t *testing.T, r httpResult) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	chains, _ := r.body["chains"].([]any)
	for _, c := range chains {
		for _, n := range c.(map[string]any)["nodes"].([]any) {
			out[n.(map[string]any)["doc"].(string)] = true
		}
	}
	return out
}

// TestServeStore runs the real binary against a real PostgreSQL: build
// two collections into a store, serve them all from one process (the
// request names its collection, may carry a filter; HTTP and MCP), ask
// from the command line; an unknown collection is a clear 404, and while
// the database is down the server answers 503 store_unavailable and then
// recovers by itself.
func TestServeStore(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.URL()
	dir := t.TempDir()
	if _, errs, code := flowreaderProcess(t, ".", "build", "--quiet", "--store", url, "--collection", "harbour", quickstartDocs); code != 0 {
		t.Fatalf("build harbour: exit %d\n%s", code, errs)
	}
	ferry := writeDocs(t, map[string]string{
		"timetable.md": "---\nkind: timetable\n---\n# Ferry timetable\n\nThe ferry leaves the quay at seven and at noon in summer.\n",
		"fares.md":     "---\nkind: fares\n---\n# Ferry fares\n\nA return ticket on the ferry costs nine euros; children travel free.\n",
	})
	if _, errs, code := flowreaderProcess(t, dir, "build", "--quiet", "--store", url, "--collection", "ferry", ferry); code != 0 {
		t.Fatalf("build ferry: exit %d\n%s", code, errs)
	}

	p := startServe(t, "--store", url)
	if !strings.Contains(p.log(), "a store of 2 collections") {
		t.Errorf("serve's first lines: %s", p.log())
	}
	r := call(t, "POST", p.url+"/v1/ask", `{"question": "`+gustQuestion+`", "collection": "harbour"}`)
	if r.status != 200 || !strings.Contains(r.body["answer"].(string), "131") {
		t.Fatalf("ask harbour: %d %s", r.status, r.raw)
	}
	r = call(t, "POST", p.url+"/v1/retrieve", `{"question": "When does the ferry leave and what does it cost?", "collection": "ferry"}`)
	if docs := docsOf(t, r); r.status != 200 || len(docs) == 0 {
		t.Fatalf("retrieve ferry: %d %s", r.status, r.raw)
	}
	r = call(t, "POST", p.url+"/v1/retrieve", `{"question": "When does the ferry leave and what does it cost?", "collection": "ferry", "filter": {"metadata": {"kind": "fares"}}}`)
	if docs := docsOf(t, r); r.status != 200 || len(docs) != 1 || !docs["fares.md"] {
		t.Fatalf("retrieve ferry under kind=fares: %d %v %s", r.status, docs, r.raw)
	}
	r = call(t, "POST", p.url+"/v1/retrieve", `{"question": "When does the ferry leave?", "collection": "ferry", "filter": {"ids": ["timetable.md"]}}`)
	if docs := docsOf(t, r); r.status != 200 || len(docs) != 1 || !docs["timetable.md"] {
		t.Fatalf("retrieve ferry under ids=[timetable]: %d %v %s", r.status, docs, r.raw)
	}
	for _, body := range []string{`{"question": "q", "collection": "nope"}`, `{"question": "q"}`} {
		if r := call(t, "POST", p.url+"/v1/ask", body); r.status != 404 || errCode(r) != "unknown_collection" {
			t.Errorf("%s: %d %s, want 404 unknown_collection", body, r.status, r.raw)
		}
	}

	// MCP at /mcp of the same process.
	mc := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := mc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: p.url + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": gustQuestion, "collection": "harbour"}})
	if err != nil || res.IsError {
		t.Fatalf("MCP ask: %v %+v", err, res)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), "131") {
		t.Errorf("MCP ask: %s", b)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "retrieve", Arguments: map[string]any{"question": "q", "collection": "nope"}})
	if err == nil && !res.IsError {
		t.Error("MCP retrieve of an unknown collection succeeded")
	}
	cs.Close()

	// ask from the command line: as from the graph file, the extractive
	// reader is not sure (exit 4) and its span is 131.
	out, errs, code := flowreaderProcess(t, ".", "ask", "--store", url, "--collection", "harbour", "--json", gustQuestion)
	var ans struct {
		Answer string `json:"answer"`
	}
	if code != 4 || json.Unmarshal([]byte(out), &ans) != nil || !strings.Contains(ans.Answer, "131") {
		t.Fatalf("ask --store --json: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, code = flowreaderProcess(t, ".", "ask", "--store", url, "--collection", "ferry", "--filter", `{"ids": ["fares.md"]}`, "How much is a return ticket?")
	if code != 0 && code != 4 || !strings.Contains(out, "fares") || strings.Contains(out, "timetable.md") {
		t.Fatalf("ask --store --filter: exit %d\n%s\n%s", code, out, errs)
	}
	if _, errs, code = flowreaderProcess(t, ".", "ask", "--store", url, "--collection", "nope", "q"); code != 1 || !strings.Contains(errs, "no such collection") {
		t.Errorf("ask of an unknown collection: exit %d\n%s", code, errs)
	}
	for _, args := range [][]string{
		{"ask", "--store", url, "q"},
		{"ask", "--collection", "harbour", "q"},
		{"ask", "--store", url, "--collection", "harbour", "-g", "x.frg", "q"},
		{"ask", "--store", url, "--collection", "harbour", "--filter", `{"tags": 1}`, "q"},
		{"serve", "--store", url, "-g", "x.frg"},
	} {
		if _, errs, code := flowreaderProcess(t, ".", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errs)
		}
	}

	// The database stops: 503 store_unavailable; it comes back: answers
	// again, with no restart of the server.
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	r = call(t, "POST", p.url+"/v1/retrieve", `{"question": "`+gustQuestion+`", "collection": "harbour"}`)
	if r.status != 503 || errCode(r) != "store_unavailable" {
		t.Fatalf("database down: %d %s, want 503 store_unavailable", r.status, r.raw)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		r = call(t, "POST", p.url+"/v1/retrieve", `{"question": "`+gustQuestion+`", "collection": "harbour"}`)
		if r.status == 200 {
			break
		}
		if r.status != 503 || time.Now().After(deadline) {
			t.Fatalf("after the database returned: %d %s", r.status, r.raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestServeReload runs the real binary: serve -g FILE picks up a file that
// build replaces, while clients keep asking; every answer comes whole from
// one graph (the old or the new, never a mix), and none fails.
func TestServeReload(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "g.frg")
	ferry := writeDocs(t, map[string]string{
		"timetable.md": "# Ferry timetable\n\nThe ferry leaves the quay at seven and at noon in summer.\n",
		"fares.md":     "# Ferry fares\n\nA return ticket on the ferry costs nine euros; children travel free.\n",
	})
	harbourDocs := map[string]bool{"station-report": true, "fieldnotes/harbour-survey.md": true}
	ferryDocs := map[string]bool{"timetable.md": true, "fares.md": true}
	sets := []struct {
		path  string
		nodes float64
	}{{quickstartDocs, 13}, {ferry, 2}}
	build := func(i int) {
		t.Helper()
		if _, errs, code := flowreaderProcess(t, ".", "build", "--quiet", "-o", file, sets[i].path); code != 0 {
			t.Fatalf("build: exit %d\n%s", code, errs)
		}
	}
	build(0)
	p := startServe(t, "-g", file)

	stop := make(chan struct{})
	type answer struct {
		status int
		docs   map[string]bool
		raw    string
	}
	answers := make(chan answer, 1<<16)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				// Not call(): t.Fatal belongs to the test's goroutine.
				resp, err := http.Post(p.url+"/v1/retrieve", "application/json",
					strings.NewReader(`{"question": "When does the ferry leave, and how strong was the storm?", "budget": 8}`))
				if err != nil {
					answers <- answer{status: -1, raw: err.Error()}
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				r := httpResult{status: resp.StatusCode, raw: string(b)}
				docs := map[string]bool{}
				if json.Unmarshal(b, &r.body) == nil {
					docs = docsOf(t, r)
				}
				answers <- answer{r.status, docs, r.raw}
			}
		}()
	}
	for k := 1; k <= 4; k++ {
		i := k % 2
		build(i)
		deadline := time.Now().Add(60 * time.Second)
		for {
			r := call(t, "GET", p.url+"/v1/graph", "")
			if r.body["nodes"] == sets[i].nodes {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("swap %d: still serving %v nodes, want %v\n%s", k, r.body["nodes"], sets[i].nodes, p.log())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	close(stop)
	wg.Wait()
	close(answers)
	seen := [2]int{}
	for a := range answers {
		if a.status != 200 {
			t.Fatalf("a call during the swaps: %d %s", a.status, a.raw)
		}
		inH, inF := 0, 0
		for d := range a.docs {
			if harbourDocs[d] {
				inH++
			}
			if ferryDocs[d] {
				inF++
			}
		}
		if inH+inF != len(a.docs) || inH > 0 && inF > 0 {
			t.Fatalf("an answer from a mix of graphs: %v", a.docs)
		}
		if inF > 0 {
			seen[1]++
		} else {
			seen[0]++
		}
	}
	t.Logf("answers during 4 swaps: %d from the harbour graph, %d from the ferry graph", seen[0], seen[1])
	if n := strings.Count(p.log(), "serve: reloaded"); n != 4 {
		t.Errorf("%d reloads logged, want 4:\n%s", n, p.log())
	}
}
