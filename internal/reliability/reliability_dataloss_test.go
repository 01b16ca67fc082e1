package reliability

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/israce"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
)

// cancelAt wraps a model and an embedder so that the k-th call (counting
// both) cancels the build's context and fails with its error, as a user
// pressing Ctrl-C at that moment would.
type cancelAt struct {
	k      int64
	n      atomic.Int64
	cancel context.CancelFunc
}

func (c *cancelAt) hit(ctx context.Context) error {
	if c.n.Add(1) == c.k {
		c.cancel()
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func (c *cancelAt) model(m llm.Model) llm.Model {
	return llmfunc.Model(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if err := c.hit(ctx); err != nil {
			return nil, err
		}
		return m.Generate(ctx, req)
	})
}

func (c *cancelAt) embedder(e llm.Embedder) llm.Embedder {
	return fixedDim{llmfunc.Embedder(func(ctx context.Context, texts []string, k llm.Kind) ([][]float32, error) {
		if err := c.hit(ctx); err != nil {
			return nil, err
		}
		return e.Embed(ctx, texts, k)
	}), e.Dimension()}
}

// buildAndSave is what an application does: build, and save only a
// complete graph (graph.Save is atomic).
func buildAndSave(ctx context.Context, model llm.Model, emb llm.Embedder, store llm.Store, docs []graph.Document, path string) error {
	p, err := flowreader.New(flowreader.Config{Model: model, Embedder: emb, Cache: store, Concurrency: 4})
	if err != nil {
		return err
	}
	g, err := p.Build(ctx, docs)
	if err != nil {
		return err
	}
	return graph.Save(path, g)
}

// checkCacheDir asserts that every file in a DirStore folder is a complete
// entry stored under its own key (a model response whose JSON names the
// key, or an embedding whose checksum matches), and that no temporary file
// is left behind.
func checkCacheDir(t *testing.T, dir string) (entries int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if strings.HasPrefix(name, ".tmp-") {
			t.Errorf("temporary file left behind: %s", p)
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		entries++
		var e struct {
			Key      string          `json:"key"`
			Response json.RawMessage `json:"response"`
		}
		if json.Unmarshal(b, &e) == nil {
			if e.Key != name || len(e.Response) == 0 || string(e.Response) == "null" {
				t.Errorf("model entry %s names key %q", name, e.Key)
			}
			return nil
		}
		n := len(b)/4 - 1
		if len(b) < 8 || len(b)%4 != 0 || binary.LittleEndian.Uint32(b[4*n:]) != crc32.ChecksumIEEE(b[:4*n]) {
			t.Errorf("entry %s is neither a model response nor a checksummed vector (%d bytes)", name, len(b))
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return entries
}

// Cancelling a build at every call count, k = 1 … N (N = every model and
// embedder call of a full build, and one more), never corrupts anything:
// the build fails with context.Canceled, the previous graph file is intact
// byte for byte, and every cache file is a complete entry. Past N the build
// completes and replaces the graph atomically. Then a chain of interrupted
// builds sharing one cache reaches the same graph as an uninterrupted one.
func TestReliabilityCancelledBuildsLoseNothing(t *testing.T) {
	ctx := ctxTimeout(t, 5*time.Minute)
	dir := t.TempDir()
	path := filepath.Join(dir, "collection.flwg")
	emb := &fake.Embedder{Dim: 32}

	// The previous graph: an older version of the collection.
	old := corpus()[:2]
	if err := buildAndSave(ctx, scriptedModel(), emb, nil, old, path); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	// The new version: how many calls does a full build make?
	count := &cancelAt{k: -1, cancel: func() {}}
	p, _ := flowreader.New(flowreader.Config{Model: count.model(scriptedModel()), Embedder: count.embedder(emb), Concurrency: 4})
	ref, err := p.Build(ctx, corpus())
	if err != nil {
		t.Fatal(err)
	}
	want := encode(t, ref)
	calls := int(count.n.Load())
	// Every call count without the race detector; every sixth under it
	// (18 builds), which keeps the race-enabled suite fast.
	step := 1
	switch {
	case testing.Short():
		step = 7
	case israce.Enabled:
		step = 6
	}
	cancelled := 0
	for k := 1; k <= calls+1; k += step {
		cdir := filepath.Join(dir, "cache", strconv.Itoa(k))
		bctx, cancel := context.WithCancel(ctx)
		c := &cancelAt{k: int64(k), cancel: cancel}
		err := buildAndSave(bctx, c.model(scriptedModel()), c.embedder(emb), llm.DirStore(cdir), corpus(), path)
		cancel()
		got, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		switch {
		case k <= calls:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancel at call %d of %d: %v", k, calls, err)
			}
			if !bytes.Equal(got, before) {
				t.Fatalf("cancel at call %d: the previous graph file changed", k)
			}
			if _, err := graph.Load(path); err != nil {
				t.Fatalf("cancel at call %d: previous graph no longer loads: %v", k, err)
			}
			cancelled++
		default:
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("uninterrupted build: %v, file equal to the reference: %v", err, bytes.Equal(got, want))
			}
		}
		checkCacheDir(t, cdir)
		if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(left) > 0 {
			t.Fatalf("cancel at call %d: temporary graph files left: %v", k, left)
		}
	}

	// Interrupted builds sharing one cache: each run is cancelled a few
	// calls after it starts missing the cache, until one completes.
	os.WriteFile(path, before, 0o644)
	shared := filepath.Join(dir, "shared")
	runs := 0
	for ; runs < calls+2; runs++ {
		bctx, cancel := context.WithCancel(ctx)
		c := &cancelAt{k: 9, cancel: cancel}
		err := buildAndSave(bctx, c.model(scriptedModel()), c.embedder(emb), llm.DirStore(shared), corpus(), path)
		cancel()
		checkCacheDir(t, shared)
		if err == nil {
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, before) {
			t.Fatalf("run %d: the previous graph file changed", runs+1)
		}
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Fatalf("after %d interrupted runs the graph differs from an uninterrupted build", runs)
	}
	t.Logf("%d calls per build; cancelled at %d call counts; %d interrupted runs on a shared cache then a complete one", calls, cancelled, runs)
}

// A graph file cut short at any length, or with any byte changed in its
// header, payload or checksum, never loads as valid.
func TestReliabilityHalfWrittenGraphNeverLoads(t *testing.T) {
	g, err := offline(t, nil).Build(ctxTimeout(t, time.Minute), corpus())
	if err != nil {
		t.Fatal(err)
	}
	full := encode(t, g)
	step := 1
	if israce.Enabled || testing.Short() {
		step = 13
	}
	for n := 0; n < len(full); n += step {
		if _, err := graph.Read(bytes.NewReader(full[:n])); err == nil {
			t.Fatalf("a file cut at %d of %d bytes loads", n, len(full))
		}
	}
	for i := 0; i < len(full); i += step {
		b := append([]byte(nil), full...)
		b[i] ^= 0x5a
		if _, err := graph.Read(bytes.NewReader(b)); err == nil {
			t.Fatalf("a file with byte %d changed loads", i)
		}
	}
	// A new graph written in place over a longer old one and interrupted
	// leaves the new file's start over the old file's end: it does not
	// load either.
	small, err := offline(t, nil).Build(ctxTimeout(t, time.Minute), corpus()[:1])
	if err != nil {
		t.Fatal(err)
	}
	next := encode(t, small)
	first := 0 // before the first differing byte, the mix is the old file
	for first < len(next) && next[first] == full[first] {
		first++
	}
	for n := first + 1; n < len(next); n += step {
		mixed := append(append([]byte(nil), next[:n]...), full[n:]...)
		if _, err := graph.Read(bytes.NewReader(mixed)); err == nil {
			t.Fatalf("a file overwritten in place up to byte %d of %d loads", n, len(next))
		}
	}
}

// Cancelling an Ask at its k-th model call, for every k, ends it with an
// error that matches context.Canceled and the partial result, which
// accounts for at least the k calls made, and leaves no goroutine behind.
func TestReliabilityAskCancelledAtEveryCall(t *testing.T) {
	ctx := ctxTimeout(t, 2*time.Minute)
	emb := &fake.Embedder{Dim: 32}
	count := &cancelAt{k: -1, cancel: func() {}}
	cfg := flowreader.Classic()
	cfg.Model, cfg.Embedder = count.model(pureModel()), emb
	p, _ := flowreader.New(cfg)
	g, err := p.Build(ctx, corpus())
	if err != nil {
		t.Fatal(err)
	}
	count.n.Store(0)
	if _, err := askOn(ctx, p, g, question); err != nil {
		t.Fatal(err)
	}
	calls := int(count.n.Load())
	for k := 1; k <= calls; k++ {
		snapshot := goleak.IgnoreCurrent()
		actx, cancel := context.WithCancel(ctx)
		c := &cancelAt{k: int64(k), cancel: cancel}
		cfg.Model = c.model(pureModel())
		p, _ := flowreader.New(cfg)
		res, err := askOn(actx, p, g, question)
		cancel()
		if !errors.Is(err, context.Canceled) || res == nil {
			t.Fatalf("cancelled at call %d of %d: result %v, error %v", k, calls, res != nil, err)
		}
		if made := callsMade(res); made < k {
			t.Fatalf("cancelled at call %d of %d: the partial result accounts for %d calls", k, calls, made)
		}
		if err := goleak.Find(snapshot); err != nil {
			t.Fatalf("cancelled at call %d: %v", k, err)
		}
	}
	t.Logf("Ask cancelled at each of its %d model calls: context.Canceled and a partial result with the calls made every time, no goroutine left", calls)
}

// callsMade counts the model calls a result accounts for: the reading's,
// and System 2's judge and scorer calls and re-read.
func callsMade(res *flowreader.Result) int {
	n := res.Trace.Calls
	if s2 := res.System2; s2 != nil {
		n += s2.Calls
		if s2.Answer != nil && s2.Answer != res.Answer {
			n += s2.Answer.Trace.Calls
		}
	}
	return n
}

// fixedDim is an embedder that reports dim as its dimension.
type fixedDim struct {
	llm.Embedder
	dim int
}

func (f fixedDim) Dimension() int { return f.dim }
