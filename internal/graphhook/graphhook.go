// Package graphhook gives the library's own packages what package graph
// does not make public: the node an item becomes (for the evaluation's
// gold references); for a store, the kept nodes whose edges an update
// changed, the content classes of the region an update touches and an
// exact-copy key; a graph constructor for a graph whose embedding rows are
// taken as they are (no normalisation, int8 rows kept), for a candidate
// subgraph read back from a store, which must equal the one the in-memory
// graph gives bit for bit, and the content classes such a subgraph
// carries. Package graph sets the functions when it is initialised; its
// types are graph's, passed as any because graph imports this package.
package graphhook

// FromRows makes a *graph.Graph of nodes ([]graph.Node, kept) and edges
// ([]graph.Edge: canonicalised, sorted, merged, weights recomputed from
// the rows as graph.New computes them, or, when weighted is set, kept as
// given: weights computed so before and stored) over embedding rows of
// dimension dim taken as they are: float32 rows f, or (when q is not nil)
// int8 rows q with one scale per row in s. Rows must be unit length
// within graph's tolerance, or zero, and weights in [0, 1]; it fails as
// graph.New does otherwise.
var FromRows func(nodes any, dim int, f []float32, q []int8, s []float32, edges any, weighted bool) (any, error)

// ItemNode returns the graph.Node that item i of doc (a *graph.Document)
// becomes before analysis, as the Builder makes it: ID "docID#i", reading
// order i, the item's fields.
var ItemNode func(doc any, i int) any

// DiffRelinked returns the nodes (indexes in the new graph) that a
// *graph.Diff from graph.Builder.Update reports as taken from the old
// graph with their edges changed, ascending, and whether it reports them
// for g (a *graph.Graph): false for a Diff not made by Update, or made
// with another graph than g (the report is of that graph's edges).
var DiffRelinked func(diff, g any) (nodes []int32, ok bool)

// Rows returns g's (a *graph.Graph's) embedding rows as they are stored,
// aliasing them (read only): float32 rows f, or (int8 graphs) int8 rows q
// with one scale per row in s. Scoring reads the int8 rows' signs for its
// sketches without decoding them.
var Rows func(g any) (f []float32, q []int8, s []float32)

// CopyKey returns the key exact copies of a *graph.Node share (FNV-1a of
// its modality, image, caption and text; the same in every process), 0
// for a node without content: a store finds an added node's exact copies
// by it.
var CopyKey func(n any) uint64

// CopiesAmong returns the content classes graph.Graph.Copies finds in the
// graph induced by nodes (indexes of g, a *graph.Graph, strictly
// ascending), in g's indexes: a store's update finds the classes of the
// region it changes without the whole collection's detection.
var CopiesAmong func(g any, nodes []int32) [][]int32

// SetCopies makes classes (each two or more nodes, ascending, disjoint)
// the content classes of g (a *graph.Graph), in place of those Copies
// would find from its text: a candidate subgraph read from a store
// carries the collection's classes.
var SetCopies func(g any, classes [][]int32) error

// Classes returns each node of g (a *graph.Graph) as its content class's
// lowest node (graph.Graph.Copies; the node itself when it has no copy),
// or nil when g has no copies: what mention.Options.Class counts by.
var Classes func(g any) []int32
