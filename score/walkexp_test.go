//go:build flowexp && amd64 && !purego

package score

import "testing"

// BenchmarkWalkFloor times chunkWalk beside the variants that say where
// its time goes, on the 10k-node benchmark graph:
//
//	go test -tags flowexp -run '^$' -bench WalkFloor -count 3 ./score/
func BenchmarkWalkFloor(b *testing.B) {
	g, _ := benchGraph(b, 10000, 100)
	a := newAdjacency(g, 0.22, 1e-8)
	st, _ := jointState(a, 1)
	for _, k := range []struct {
		name string
		f    func([][4]float64, []sweepChunk)
	}{{"walk", chunkWalk}, {"loads-only", walkLoadsOnly}, {"interleaved", walkInterleaved}} {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				k.f(st, a.chunks)
			}
		})
	}
}
