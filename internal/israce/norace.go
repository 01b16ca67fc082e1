//go:build !race

// Package israce says whether the binary was built with the race
// detector, for tests that ask fewer questions of real data under it: the
// detector slows CPU-bound evaluation ten- to twentyfold, and it is the
// concurrency, not the count of questions, that it checks. The full-size
// runs stay in the suite without -race (.ci/run runs them).
package israce

// Enabled reports whether the binary was built with the race detector.
const Enabled = false
