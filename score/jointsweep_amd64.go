//go:build !purego

package score

import "unsafe"

// chunkWalk runs the edge walk of one joint sweep over the chunks: for
// each up edge (v,u) in order, the sums of v gain [p,w]·[φ_u, x_u/W_u] and
// those of u gain [p,w]·[φ_v, x_v/W_v], in SSE2 (which every amd64
// processor has), one two-lane multiply and add serving both signals. The
// operations and their order are jointSweepGo's, so with sweepTailsAsm
// the values are the same bit for bit. st must be 16-byte aligned. It does no
// bounds checks: jointSweep checks the shapes, and every offset in a chunk
// is a row below n by construction (buildChunks).
//
//go:noescape
func chunkWalk(st [][4]float64, chunks []sweepChunk)

// sweepTailsAsm finishes a sweep whose edge walk (chunkWalk) has run to the
// end: from each node's complete sums st[v][2:4] it computes φ_v and x_v as
// jointSweepGo does after the node's edges, the same operations in the same
// order, clears the sums and returns max|Δφ| and Σ|Δx|. st must be 16-byte
// aligned.
//
//go:noescape
func sweepTailsAsm(st [][4]float64, nc []nodeConst, alpha, d, dangling float64) (delta, errSum float64)

// jointSweepFast says jointSweep is the assembly kernel, which serves one
// signal as cheaply as the Go walks serve it alone.
const jointSweepFast = true

// jointSweep is one joint sweep (jointSweepGo) over a's chunks. The kernel
// reads the state with aligned loads; a state that is not 16-byte aligned
// (Go's allocator aligns every slice of this size, but does not promise
// it) or a graph without chunks takes the Go walk, with the same values.
func jointSweep(a *adjacency, st [][4]float64, nc []nodeConst, alpha, d, dangling float64) (delta, errSum float64) {
	n := len(a.uoff) - 1
	if len(st) != n || len(nc) != n {
		panic("score: jointSweep: inconsistent shapes") // a bug in this package, never input
	}
	if n == 0 {
		return 0, 0
	}
	if (a.chunks == nil && len(a.up) > 0) || uintptr(unsafe.Pointer(&st[0]))%16 != 0 {
		return jointSweepGo(st, a.up, a.uoff, nc, alpha, d, dangling)
	}
	chunkWalk(st, a.chunks)
	return sweepTailsAsm(st, nc, alpha, d, dangling)
}
