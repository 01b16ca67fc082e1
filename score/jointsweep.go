package score

import "math"

// jointSweepGo is one joint sweep of φ (Eq. 4) and PageRank over the
// edge-once walk (see sweeps), node by node in plain Go: the reference for
// the amd64 kernel and the sweep on other architectures. st holds per node
// φ_v, x_v/W_v and the two sums from lower neighbours (zero on entry); nc
// holds the node constants, and its x is updated. It returns max|Δφ| and
// Σ|Δx|.
func jointSweepGo(st [][4]float64, up []upEdge, uoff []int32, nc []nodeConst, alpha, d, dangling float64) (delta, errSum float64) {
	n := len(st)
	uoff, nc = uoff[:n+1], nc[:n]
	lo := uoff[0]
	for v := 0; v < n; v++ {
		hi := uoff[v+1]
		sv := &st[v]
		fv, yv := sv[0], sv[1]
		f, g := sv[2], sv[3]
		for _, e := range up[lo:hi] {
			su := &st[e.u]
			w := float64(e.w)
			f += e.p * su[0]
			g += w * su[1]
			su[2] += e.p * fv
			su[3] += w * yv
		}
		lo = hi
		c := &nc[v]
		nf := c.base + alpha*(f*c.invP)
		if dd := math.Abs(nf - fv); dd > delta { // rarely taken: cheaper than max's chain
			delta = dd
		}
		nx := d*(g+dangling*c.pers) + c.tel
		errSum += math.Abs(nx - c.x)
		c.x = nx
		sv[0], sv[1], sv[2], sv[3] = nf, nx*c.invW, 0, 0
	}
	return delta, errSum
}

// chunkWidth is the number of edges in a sweepChunk.
const chunkWidth = 4

// sweepChunk is up to chunkWidth of node v's up edges, in their order in
// the adjacency, padded with edges of weight 0 from v to itself. The amd64
// kernel walks chunks as one flat stream: a per-node inner loop of varying
// length costs a mispredicted branch per node, which on the benchmark
// graphs was a fifth of a sweep. Padding changes no sum: the sums are
// non-negative and the values finite, so adding 0·x leaves a sum unchanged
// bit for bit, and what a padding edge adds to v's sums in memory is
// overwritten when the chunk stores them. (Padding to one shared dummy
// node instead chained every padded chunk through that node's memory.)
type sweepChunk struct {
	pw [chunkWidth][2]float64 // p and w of each edge
	uo [chunkWidth]int32      // byte offset of each edge's u in the state (32·u)
	vo int32                  // byte offset of v (32·v)
	_  int32
}

// stateRow is the size in bytes of a node's joint state ([4]float64), and
// maxChunkNodes bounds the graphs whose state offsets fit in an int32.
const (
	stateRow      = 32
	maxChunkNodes = math.MaxInt32 / stateRow
)

// buildChunks lays the up edges of a (which has no self-loop) out as
// chunks, node by node; a node without up edges has none. It returns nil
// for graphs of maxChunkNodes nodes or more.
func buildChunks(a *adjacency) []sweepChunk {
	n := len(a.uoff) - 1
	if n >= maxChunkNodes {
		return nil
	}
	m := 0
	for v := 0; v < n; v++ {
		m += (int(a.uoff[v+1]-a.uoff[v]) + chunkWidth - 1) / chunkWidth
	}
	chunks := make([]sweepChunk, 0, m)
	for v := 0; v < n; v++ {
		es := a.up[a.uoff[v]:a.uoff[v+1]]
		for len(es) > 0 {
			c := sweepChunk{vo: int32(v * stateRow)}
			for j := range c.uo {
				c.uo[j] = c.vo
				if j < len(es) {
					c.pw[j] = [2]float64{es[j].p, float64(es[j].w)}
					c.uo[j] = es[j].u * stateRow
				}
			}
			chunks = append(chunks, c)
			es = es[min(len(es), chunkWidth):]
		}
	}
	return chunks
}
