//go:build flowexp && !purego

package score

// walkLoadsOnly does chunkWalk's loads and multiplies without its sums and
// stores: the walk's cost floor for its memory traffic.
//
//go:noescape
func walkLoadsOnly(st [][4]float64, chunks []sweepChunk)

// walkInterleaved walks the two halves of the chunks side by side (not the
// walk's order, so not its values): what a second independent stream gains.
//
//go:noescape
func walkInterleaved(st [][4]float64, chunks []sweepChunk)
