//go:build !purego

package score

// chunkWalk runs the edge walk of one joint sweep over the chunks: for
// each up edge (v,u) in order, the sums of v gain [p,w]·[φ_u, x_u/W_u] and
// those of u gain [p,w]·[φ_v, x_v/W_v], in SSE2 (which every amd64
// processor has), one two-lane multiply and add serving both signals. The
// operations and their order are jointSweepGo's, so with sweepTails the
// values are the same bit for bit. It does no bounds checks: jointSweep
// checks the shapes, and every index in a chunk is below n by construction
// (buildChunks).
//
//go:noescape
func chunkWalk(st [][4]float64, chunks []sweepChunk)

// jointSweepFast says jointSweep is the assembly kernel, which serves one
// signal as cheaply as the Go walks serve it alone.
const jointSweepFast = true

// jointSweep is one joint sweep (jointSweepGo) over a's chunks.
func jointSweep(a *adjacency, st [][4]float64, nc []nodeConst, alpha, d, dangling float64) (delta, errSum float64) {
	n := len(a.uoff) - 1
	if len(st) != n || len(nc) != n || a.chunks == nil && len(a.up) > 0 {
		panic("score: jointSweep: inconsistent shapes") // a bug in this package, never input
	}
	chunkWalk(st, a.chunks)
	return sweepTails(st, nc, alpha, d, dangling)
}
