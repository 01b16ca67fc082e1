package flowreadertest_test

import (
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/flowreadertest"
	"github.com/flowreader/flowreader/llm/fake"
)

// TestRetrieval is the kit's intended use with a plain *testing.T.
func TestRetrieval(t *testing.T) {
	ix := flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Passages(harbour()...))
	q := "What was the peak gust of the storm that flooded the East Arm?"
	flowreadertest.EvidenceContains(t, ix, q, "41 metres per second")
	flowreadertest.EvidenceContains(t, ix, q, "flooded the East Arm")
	flowreadertest.ReadsAtMost(t, ix, q, 16)
	flowreadertest.Cites(t, ix, q, "storms")

	res, err := ix.Ask(t.Context(), q, flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The offline reader's answer is the same bit for bit on every run.
	if want := "Its peak gust was 41 metres per second. … Storm Elin flooded the East Arm on 3 March 2025."; res.Text != want {
		t.Errorf("answer %q, want %q", res.Text, want)
	}
}

func TestFolder(t *testing.T) {
	docs := flowreadertest.Folder(t, "testdata/fixture")
	if len(docs) != 2 {
		t.Fatalf("%d documents, want 2", len(docs))
	}
	ix := flowreadertest.Open(t, flowreader.Config{}, docs)
	flowreadertest.Cites(t, ix, "How high was the spring tide at the harbour gauge?", "tides.txt")
	flowreadertest.EvidenceContains(t, ix, "How many tern nests were on the North Mole?", "248 tern nests")
}

// The same passages give the same graph, routing and answer.
func TestDeterministic(t *testing.T) {
	q := "How many tern nests did the North Mole hold in 2025?"
	var first []string
	for i := 0; i < 2; i++ {
		ix := flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Passages(harbour()...))
		var ids []string
		for _, n := range flowreadertest.Evidence(t, ix, q) {
			ids = append(ids, n.ID)
		}
		res, err := ix.Ask(t.Context(), q, flowreader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Text)
		if i == 0 {
			first = ids
		} else if strings.Join(ids, "|") != strings.Join(first, "|") {
			t.Fatalf("second build differs:\n%q\n%q", first, ids)
		}
	}
}

// Open with the scripted model of llm/fake: the VLM reader's workers and
// reasoner get the fake's answers, and citations come from its evidence.
func TestOpenWithFakeModel(t *testing.T) {
	m := &fake.Model{Default: `{"status":"not_reported","answer":"","evidence":""}`}
	m.Rules = append(m.Rules, fake.Rule{Contains: "<output>", Reply: "<output>41 m/s</output>"})
	m.Rules = append(m.Rules, fake.Rule{Contains: "Its peak gust was 41", Reply: `{"status":"supported","answer":"41 m/s","evidence":"Its peak gust was 41 metres per second."}`})
	ix := flowreadertest.Open(t, flowreader.Config{Model: m, Embedder: &fake.Embedder{Dim: 128}}, flowreadertest.Passages(harbour()...))
	res, err := ix.Ask(t.Context(), "What was the peak gust of Storm Elin?", flowreader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "41 m/s" || res.Trace.Reader != "vlm" || res.Trace.Supported == 0 {
		t.Fatalf("reader %q, %d model calls", res.Trace.Reader, len(m.Calls()))
	}
	flowreadertest.Cites(t, ix, "What was the peak gust of Storm Elin?", "storms")
}

// recorder is a TB that records what the helpers report; FailNow ends the
// goroutine as testing.T's does.
type recorder struct {
	mu      sync.Mutex
	errs    []string
	stopped bool
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, strings.TrimSpace(strings.ReplaceAll(sprintf(format, args...), "\n", " ")))
}

func (r *recorder) FailNow() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	runtime.Goexit()
}

// run calls f with a fresh recorder in its own goroutine, as testing runs a
// test, and returns the recorder when f returned or stopped.
func run(f func(t flowreadertest.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestAssertionsReport(t *testing.T) {
	ix := flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Passages(harbour()...))
	q := "What was the peak gust of Storm Elin?"
	cases := []struct {
		name string
		f    func(t flowreadertest.TB) bool
		want string
	}{
		{"contains", func(t flowreadertest.TB) bool { return flowreadertest.EvidenceContains(t, ix, q, "no such text") }, `has no node containing "no such text"`},
		{"at most", func(t flowreadertest.TB) bool { return flowreadertest.ReadsAtMost(t, ix, q, 0) }, "more than 0"},
		{"cites", func(t flowreadertest.TB) bool { return flowreadertest.Cites(t, ix, q, "nowhere") }, `does not cite "nowhere"`},
		{"empty question", func(t flowreadertest.TB) bool { return flowreadertest.Cites(t, ix, " ", "storms") }, "empty question"},
	}
	for _, c := range cases {
		var ok bool
		r := run(func(t flowreadertest.TB) { ok = c.f(t) })
		if ok || r.stopped || len(r.errs) != 1 || !strings.Contains(r.errs[0], c.want) {
			t.Errorf("%s: ok %v, stopped %v, reports %q; want one containing %q", c.name, ok, r.stopped, r.errs, c.want)
		}
	}
}

func TestBuildersStop(t *testing.T) {
	empty := t.TempDir()
	cases := []struct {
		name string
		f    func(t flowreadertest.TB)
		want string
	}{
		{"odd passages", func(t flowreadertest.TB) {
			flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Passages("a", "text", "b"))
		}, `document "b" has no text`},
		{"no documents", func(t flowreadertest.TB) { flowreadertest.Open(t, flowreader.Config{}, nil) }, "no documents"},
		{"bad config", func(t flowreadertest.TB) {
			flowreadertest.Open(t, flowreader.Config{Budget: -1}, flowreadertest.Passages("a", "text"))
		}, "Budget"},
		{"missing folder", func(t flowreadertest.TB) { flowreadertest.Folder(t, "testdata/nonexistent") }, "nonexistent"},
		{"empty folder", func(t flowreadertest.TB) { flowreadertest.Folder(t, empty) }, "holds no document"},
		{"empty question", func(t flowreadertest.TB) {
			flowreadertest.Evidence(t, flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Passages(harbour()...)), "")
		}, "empty question"},
	}
	for _, c := range cases {
		r := run(c.f)
		if !r.stopped || len(r.errs) != 1 || !strings.Contains(r.errs[0], c.want) {
			t.Errorf("%s: stopped %v, reports %q; want one containing %q", c.name, r.stopped, r.errs, c.want)
		}
	}
}
