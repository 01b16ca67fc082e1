package pgstore

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowreader/flowreader"
)

// TestReplicasSeeUpdates: two replicas (each its own Store, pool and
// sketch cache, as two processes would have) answer questions through
// Pipeline.OpenStore while a writer commits updates. Every evidence is
// from one version (the passages of document "x" all of one edition, and
// never "gone" with the beta edition nor "new" with the alpha one, their
// text included, which is read after the candidates); and a question that
// starts after an update committed, and ends before the next one starts,
// is answered from it: a replica sees a commit on its next question, with
// no notification and no restart, because every question reads the
// collection's latest committed version. The time from a commit to a
// replica's first answer from it is logged.
func TestReplicasSeeUpdates(t *testing.T) {
	t.Parallel()
	w, srv := openTest(t)
	ctx := context.Background()
	p, ga := buildDocs(t, versionDocs(false))
	_, gb := buildDocs(t, versionDocs(true))
	if err := w.Import(ctx, "c", ga); err != nil {
		t.Fatal(err)
	}
	const question = "the lighthouse keeper and the lamp of the edition"

	type answer struct {
		replica    int
		worker     int
		start, end time.Time
		edition    int // 0 alpha, 1 beta
	}
	var mu sync.Mutex
	var answers []answer
	done := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 2 {
		s, err := Open(ctx, srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		s.sketchMin = 1 // the replica keeps the sketches, as at scale
		ix, err := p.OpenStore(ctx, s, "c")
		if err != nil {
			t.Fatal(err)
		}
		for k := range 2 {
			worker := 2*r + k
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-done:
						return
					default:
					}
					start := time.Now()
					ev, err := ix.Retrieve(ctx, question, flowreader.Options{Budget: 32})
					if err != nil {
						t.Error(err)
						return
					}
					alpha, beta, gone, added := 0, 0, 0, 0
					for _, c := range ev.Chains {
						for _, n := range c.Nodes {
							alpha += strings.Count(n.Text, "alpha edition")
							beta += strings.Count(n.Text, "beta edition")
							if n.Doc == "gone" {
								gone++
							}
							if n.Doc == "new" {
								added++
							}
						}
					}
					ed := 0
					switch {
					case beta == 0 && added == 0 && alpha > 0:
					case alpha == 0 && gone == 0 && beta > 0:
						ed = 1
					default:
						t.Errorf("a mixed or empty version: %d alpha, %d beta passages, %d of gone, %d of new", alpha, beta, gone, added)
						return
					}
					mu.Lock()
					answers = append(answers, answer{r, worker, start, time.Now(), ed})
					mu.Unlock()
				}
			}()
		}
	}
	type commit struct {
		begin, end time.Time
		edition    int
	}
	var commits []commit
	v := version(t, w, "c")
	for i := range 8 {
		g, ed := gb, 1
		if i%2 == 1 {
			g, ed = ga, 0
		}
		// Let each replica answer a few questions from this version, and
		// every client one question it began after the last commit: a
		// question then spans at most one commit (a loaded machine can
		// stall one client while the others answer many), so it is asked
		// again at most once for a node an update removed.
		var last time.Time
		if len(commits) > 0 {
			last = commits[len(commits)-1].end
		}
		mu.Lock()
		n := len(answers)
		mu.Unlock()
		for {
			mu.Lock()
			k := len(answers)
			fresh := map[int]bool{}
			for _, a := range answers[n:] {
				if a.start.After(last) {
					fresh[a.worker] = true
				}
			}
			mu.Unlock()
			if (k >= n+8 && len(fresh) == 4) || t.Failed() {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		begin := time.Now()
		var err error
		if v, err = w.Update(ctx, "c", v, g, nil); err != nil {
			t.Fatal(err)
		}
		commits = append(commits, commit{begin, time.Now(), ed})
	}
	// A last stretch after the last commit.
	time.Sleep(200 * time.Millisecond)
	close(done)
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	var lags []time.Duration
	for k, c := range commits {
		next := time.Now().Add(time.Hour)
		if k+1 < len(commits) {
			next = commits[k+1].begin
		}
		first := map[int]time.Time{}
		for _, a := range answers {
			if a.start.After(c.end) && a.end.Before(next) {
				if a.edition != c.edition {
					t.Fatalf("replica %d: a question started %s after commit %d was answered from the edition before", a.replica, a.start.Sub(c.end), k)
				}
				if f, ok := first[a.replica]; !ok || a.end.Before(f) {
					first[a.replica] = a.end
				}
			}
		}
		for _, f := range first {
			lags = append(lags, f.Sub(c.end))
		}
	}
	slices.Sort(lags)
	if len(lags) == 0 {
		t.Fatal("no question was answered between commits")
	}
	t.Logf("%d answers over %d commits; commit to a replica's first answer from it: median %s, max %s",
		len(answers), len(commits), lags[len(lags)/2].Round(time.Millisecond), lags[len(lags)-1].Round(time.Millisecond))
}
