//go:build !race

// Package israce says whether the binary was built with the race
// detector, for tests that do less of their CPU-bound work under it (fewer
// questions of real data, fewer iterations): the detector slows such work
// ten- to twentyfold, and it is the concurrency, not the count, that it
// checks. Where a figure needs the full size, .ci/run also runs it
// without -race.
package israce

// Enabled reports whether the binary was built with the race detector.
const Enabled = false
