// Package flowhook gives the library's own packages what package flow
// does for a store without making it public API: a router opened on a
// candidate subgraph of a collection that is not in memory, pricing its
// arcs with statistics the store read for the question. Package flow sets
// the function when it is initialised; importing flow (directly or not)
// is enough. Its types are flow's, passed as any because flow imports
// this package.
package flowhook

import (
	"context"

	"github.com/flowreader/flowreader/graph"
)

// OpenSubgraph opens router (a flow.Router) on sub, a candidate subgraph
// of a collection of n nodes, pricing every content pair as the router
// opened on the whole collection prices it: bridge terms from df, the
// collection's node frequency of each normalised keyword of sub's nodes,
// and reading-order pairs from rank, each node's position in its
// document's reading order. It returns a flow.GraphRouter, or nil (and no
// error) for a router that has no such statistics to take: the caller
// opens that one on sub itself.
var OpenSubgraph func(ctx context.Context, router any, sub *graph.Graph, n int, df map[string]int32, rank []int32) (any, error)

// NormKeyword normalises a node keyword as the aspects router does before
// it counts keyword frequencies (lower case, punctuation removed, single
// spaces): KeywordDF's keys.
var NormKeyword func(string) string
