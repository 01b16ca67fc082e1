package flow

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/flowreader/flowreader/graph"
)

// normKeyword lowercases a keyword, drops punctuation and collapses
// whitespace, so that "BLEU score" and "bleu-score" are one keyword.
func normKeyword(k string) string {
	if isNormKeyword(k) {
		return k // most keywords already are: no allocation
	}
	return normKeywordRule(k)
}

// normKeywordRule is normKeyword without the shortcut.
func normKeywordRule(k string) string {
	k = strings.Map(func(r rune) rune {
		if unicode.IsPunct(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, k)
	return strings.Join(strings.Fields(k), " ")
}

// isNormKeyword reports whether normKeyword(k) == k for a cheap reason:
// k is ASCII with no upper case letter, no punctuation (as unicode.IsPunct
// has it for ASCII) and no white space but single inner spaces.
func isNormKeyword(k string) bool {
	if k == "" || k[0] == ' ' || k[len(k)-1] == ' ' {
		return k == ""
	}
	prevSpace := false
	for i := 0; i < len(k); i++ {
		b := k[i]
		switch {
		case b >= 0x80, b >= 'A' && b <= 'Z', b < ' ', b == 0x7f:
			return false
		case b == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
			continue
		case asciiPunct(b):
			return false
		}
		prevSpace = false
	}
	return true
}

// asciiPunct is unicode.IsPunct for an ASCII byte: !"#%&'()*,-./:;?@[\]_{}
// (the rest of ASCII's non-alphanumerics, $+<=>^`|~, are symbols).
func asciiPunct(b byte) bool {
	switch b {
	case '!', '"', '#', '%', '&', '\'', '(', ')', '*', ',', '-', '.', '/', ':', ';', '?', '@', '[', '\\', ']', '_', '{', '}':
		return true
	}
	return false
}

// bridgeScores returns bridge(u,v) for each pair: 1 when the two nodes
// share a keyword whose document frequency df is in [2, ⌈√N⌉], else 0
// (paper v3 App. A.2, Table 4): a keyword in one node links nothing, and one
// in most nodes says nothing about the pair. With rep (MergeCopies) a
// content class counts once, in df and in N.
func bridgeScores(g *graph.Graph, pairs []pair, rep []int32) []float64 {
	return bridgeScoresDF(g, pairs, nil, int(math.Ceil(math.Sqrt(float64(countReps(len(g.Nodes), rep))))), rep)
}

// countReps is the number of content classes among n nodes (n without
// rep).
func countReps(n int, rep []int32) int {
	if rep == nil {
		return n
	}
	c := 0
	for v, r := range rep {
		if int(r) == v {
			c++
		}
	}
	return c
}

// bridgeScoresDF is bridgeScores with the document frequencies and the
// cutoff of another graph: global (normalised keyword → df) and cutoff are
// a whole graph's when g is a candidate subgraph of it, so that a pair's
// bridge term is the one it has in the whole graph; nil global counts df
// over g (each content class once with rep).
func bridgeScoresDF(g *graph.Graph, pairs []pair, global map[string]int32, cutoff int, rep []int32) []float64 {
	out := make([]float64, len(pairs))
	if len(pairs) == 0 {
		return out
	}
	n := len(g.Nodes)
	// Keyword ids are given in first-seen node order, so they (and every
	// result) are deterministic; the map is only looked up.
	ids := map[string]int{}
	sets := make([][]int, n)
	var df []int
	for v := range g.Nodes {
		var s []int
		for _, k := range g.Nodes[v].Keywords {
			k = normKeyword(k)
			if k == "" {
				continue
			}
			id, ok := ids[k]
			if !ok {
				id = len(df)
				ids[k] = id
				df = append(df, 0)
				if global != nil {
					df[id] = int(global[k])
				}
			}
			s = append(s, id)
		}
		sort.Ints(s)
		s = dedupInts(s)
		if global == nil && (rep == nil || int(rep[v]) == v) {
			for _, id := range s {
				df[id]++
			}
		}
		sets[v] = s
	}
	for i, p := range pairs {
		x, y := sets[p.u], sets[p.v]
		best := 0.0
		for a, b := 0, 0; a < len(x) && b < len(y); {
			switch {
			case x[a] < y[b]:
				a++
			case x[a] > y[b]:
				b++
			default:
				if d := df[x[a]]; d >= 2 && d <= cutoff {
					best = 1
				}
				a++
				b++
			}
		}
		out[i] = best
	}
	return out
}

func dedupInts(s []int) []int {
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 && out[n-1] == x {
			continue
		}
		out = append(out, x)
	}
	return out
}
