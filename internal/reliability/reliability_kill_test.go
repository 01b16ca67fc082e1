package reliability

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/israce"
	"github.com/flowreader/flowreader/llm"
)

const killChildEnv = "FLOWREADER_RELIABILITY_KILL_CHILD"

// bigGraph makes a graph of n nodes with long texts and 512-dimensional
// embeddings (a few megabytes, so that writing it takes a while), from
// seed alone.
func bigGraph(t testing.TB, n int, seed uint64) *graph.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	words := []string{"ridge", "kestrel", "harbour", "tern", "marsh", "heron", "wind", "survey", "count", "north"}
	const dim = 512
	nodes := make([]graph.Node, n)
	emb := make([]float32, n*dim)
	var edges []graph.Edge
	for i := range nodes {
		var b strings.Builder
		for w := 0; w < 400; w++ {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		nodes[i] = graph.Node{ID: fmt.Sprintf("doc%d#%d", seed, i), Doc: fmt.Sprintf("doc%d", seed), Order: i, Content: b.String(), Summary: b.String()[:200]}
		for j := 0; j < dim; j++ {
			emb[i*dim+j] = float32(rng.NormFloat64())
		}
		if i > 0 {
			edges = append(edges, graph.Edge{U: int32(i - 1), V: int32(i), Kind: graph.EdgeOrder})
		}
	}
	g, err := graph.New(nodes, dim, emb, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// killChild is the process that gets killed: it saves two graphs in turn
// over one file, and writes cache entries, until it dies.
func killChild(t *testing.T, dir string) {
	graphs := []*graph.Graph{bigGraph(t, 800, 1), bigGraph(t, 600, 2)}
	store := llm.DirStore(filepath.Join(dir, "cache"))
	for i := 0; ; i++ {
		if err := graph.Save(filepath.Join(dir, "collection.flwg"), graphs[i%2]); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			// Ready once a complete file exists: from now on every kill
			// must leave one, whenever it lands.
			os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
		}
		key := fmt.Sprintf("%064x", i)
		store.Put(key, bytes.Repeat([]byte{byte(i)}, 256<<10))
	}
}

// A process killed with SIGKILL at random moments while saving graphs and
// writing cache entries never leaves a graph file that fails to load or
// holds anything but one of the two complete graphs, and never leaves a
// cache entry of the wrong size under a valid name.
func TestReliabilityKilledWriterLeavesValidFiles(t *testing.T) {
	if dir := os.Getenv(killChildEnv); dir != "" {
		killChild(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	want := [][]byte{encode(t, bigGraph(t, 800, 1)), encode(t, bigGraph(t, 600, 2))}
	rng := rand.New(rand.NewPCG(42, 42))
	kills := 10
	if israce.Enabled {
		kills = 5
	}
	path := filepath.Join(dir, "collection.flwg")
	saw := map[int]int{}
	for k := 0; k < kills; k++ {
		os.Remove(filepath.Join(dir, "ready"))
		cmd := exec.Command(os.Args[0], "-test.run=^TestReliabilityKilledWriterLeavesValidFiles$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the child has saved a graph once (ready), then let
		// it write for a random while.
		deadline := time.Now().Add(5 * time.Minute)
		for {
			if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("the child did not save its first graph within 5 minutes")
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Duration(20+rng.IntN(400)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()

		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("kill %d: %v", k, err)
		}
		switch {
		case bytes.Equal(b, want[0]):
			saw[0]++
		case bytes.Equal(b, want[1]):
			saw[1]++
		default:
			_, lerr := graph.Load(path)
			t.Fatalf("kill %d: the graph file is neither complete graph (%d bytes; loads: %v)", k, len(b), lerr)
		}
		if _, err := graph.Load(path); err != nil {
			t.Fatalf("kill %d: %v", k, err)
		}
		filepath.WalkDir(filepath.Join(dir, "cache"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".tmp-") {
				if st, _ := d.Info(); st.Size() != 256<<10 {
					t.Fatalf("kill %d: cache entry %s has %d bytes", k, d.Name(), st.Size())
				}
			}
			return nil
		})
	}
	temps, _ := filepath.Glob(filepath.Join(dir, ".collection.flwg.tmp-*"))
	t.Logf("%d kills: graph file complete every time (graph A %d times, graph B %d times); %d temporary files left by killed writes, none under the graph's name",
		kills, saw[0], saw[1], len(temps))
}
