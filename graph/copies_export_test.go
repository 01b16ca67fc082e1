package graph

// The detection and its oracle, for TestCopiesCost (package graph_test,
// which builds its graph with internal/lab/synth, itself an importer of
// graph).
var (
	FindCopiesForTest    = func(g *Graph) { findCopies(g) }
	OldFindCopiesForTest = func(g *Graph) { oldFindCopies(g) }
)
