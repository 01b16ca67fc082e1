package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/internal/purpose"

	"go.opentelemetry.io/otel/attribute"
	"golang.org/x/sync/errgroup"

	"github.com/flowreader/flowreader/internal/jsonx"
	"github.com/flowreader/flowreader/internal/telemetry"
	"github.com/flowreader/flowreader/llm"
)

// linkAnswer is P3's JSON answer. Suggested connections are neighbour
// indexes as shown in the prompt ("memory index:k"), as numbers or strings.
type linkAnswer struct {
	Suggested    []json.RawMessage `json:"suggested_connections"`
	ShouldUpdate json.RawMessage   `json:"should_update"`
	NewSummary   string            `json:"new_summary"`
	NewKeywords  []string          `json:"new_keywords"`
}

// pythonBool fixes the "True or False" that P3's format line invites.
var pythonBool = regexp.MustCompile(`(:\s*)(True|False)\b`)

type linkResult struct {
	ok       bool
	links    []int32
	update   bool
	summary  string
	keywords []string
}

// evolve runs the LLM evolution rounds (see the package doc). Links start
// as the reading-order window (text nodes, both directions). In each round every
// node sees its top cosine neighbours plus its current links, all taken from
// the state before the round (snapshot semantics); its links are replaced by
// the first maxLinks suggestions and, if the model says so, its summary and
// keywords are replaced. After each round every node is re-embedded (only
// changed texts cost calls when a cache is set). A node whose answer does
// not parse keeps its links and summary.
func (b *Builder) evolve(ctx context.Context, m llm.Model, e llm.Embedder, nodes []Node, vecs rows, rounds int) ([][]int32, rows, error) {
	n := len(nodes)
	links := make([][]int32, n)
	for _, ed := range b.orderEdges(nodes) {
		links[ed.U] = append(links[ed.U], ed.V)
		links[ed.V] = append(links[ed.V], ed.U)
	}
	for i := range links {
		sort.Slice(links[i], func(a, c int) bool { return links[i][a] < links[i][c] })
	}
	k := min(evolveNeighbours, max(n-1, 0))
	for r := 1; r <= rounds; r++ {
		stage := fmt.Sprintf("evolve %d/%d", r, rounds)
		ctx, span := telemetry.Stage(ctx, "flowreader.build.evolve", attribute.Int("flowreader.round", r))
		nb, err := b.neighbours(ctx, vecs, n, k, nil)
		if err != nil {
			telemetry.End(span, err)
			return nil, rows{}, err
		}
		p := b.stage(stage, n)
		res := make([]linkResult, n)
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(b.concurrency())
		for i := 0; i < n; i++ {
			if gctx.Err() != nil {
				break
			}
			g.Go(func() error {
				cands := candidates(int32(i), nb[i*k:(i+1)*k], links[i])
				req := llmfunc.UserText(b.linkPromptFor(nodes, i, cands))
				req.JSONSchema, req.SchemaName = []byte(schemaLink), "node_linking"
				resp, err := m.Generate(llm.WithPurpose(gctx, purpose.Evolution), req)
				if err != nil {
					return fmt.Errorf("graph: %s, node %s: %w", stage, nodes[i].ID, err)
				}
				res[i] = parseLinks(resp.Text, int32(i), cands, nodes, maxLinks)
				p.add(1)
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			telemetry.End(span, err)
			return nil, rows{}, err
		}
		if err := ctx.Err(); err != nil {
			telemetry.End(span, err)
			return nil, rows{}, err
		}
		unparsed := 0
		for i := range res {
			if !res[i].ok {
				unparsed++
				continue
			}
			links[i] = res[i].links
			if res[i].update {
				if s := strings.TrimSpace(res[i].summary); s != "" {
					nodes[i].Summary = s
				}
				if kw := cleanStrings(res[i].keywords); len(kw) > 0 {
					nodes[i].Keywords = kw
				}
			}
		}
		vecs, err = b.embed(ctx, e, nodes, fmt.Sprintf("embed %d/%d", r, rounds), vecs.dim, vecs.i8)
		if err != nil {
			telemetry.End(span, err)
			return nil, rows{}, err
		}
		if unparsed > 0 {
			telemetry.Warn(ctx, "evolution answers did not parse: those nodes keep their links and summary", "round", r, "nodes", unparsed, "total", n)
		}
		telemetry.End(span, nil)
	}
	return links, vecs, nil
}

// candidates lists a node's cosine neighbours, then its current links not
// already listed, never itself.
func candidates(self int32, nb, links []int32) []int32 {
	out := make([]int32, 0, len(nb)+len(links))
	has := func(j int32) bool {
		for _, x := range out {
			if x == j {
				return true
			}
		}
		return false
	}
	for _, j := range nb {
		if j >= 0 && j != self && !has(j) {
			out = append(out, j)
		}
	}
	for _, j := range links {
		if j != self && !has(j) {
			out = append(out, j)
		}
	}
	return out
}

// noteContent is what P3 shows as a note's content.
func noteContent(n *Node) string {
	if n.Modality != ModalityText {
		return strings.TrimSpace(n.Caption + "\n" + n.Content)
	}
	return n.Content
}

func (b *Builder) linkPromptFor(nodes []Node, i int, cands []int32) string {
	limit := neighbourChars
	var nb strings.Builder
	for k, j := range cands {
		o := &nodes[j]
		fmt.Fprintf(&nb, "memory index:%d\tmemory content: %s\tmemory context: %s\tmemory keywords: %s\tmemory tags: %s\n",
			k, truncateRunes(noteContent(o), limit), o.Summary, strings.Join(o.Keywords, ", "), strings.Join(o.Tags, ", "))
	}
	n := &nodes[i]
	return linkPrompt(noteContent(n), n.Summary, strings.Join(n.Keywords, ", "), strconv.Itoa(len(cands)), nb.String())
}

// parseLinks reads a P3 answer; suggestions are neighbour indexes (or,
// leniently, node IDs), mapped back to node indexes, deduplicated, never
// self, at most maxLinks.
func parseLinks(text string, self int32, cands []int32, nodes []Node, maxLinks int) linkResult {
	var a linkAnswer
	if jsonx.Extract(text, &a) != nil {
		if jsonx.Extract(pythonBool.ReplaceAllStringFunc(text, strings.ToLower), &a) != nil {
			return linkResult{}
		}
	}
	res := linkResult{ok: true, summary: a.NewSummary, keywords: a.NewKeywords}
	switch strings.ToLower(strings.Trim(strings.TrimSpace(string(a.ShouldUpdate)), `"`)) {
	case "true", "yes", "1":
		res.update = true
	}
	seen := map[int32]bool{}
	for _, raw := range a.Suggested {
		if len(res.links) >= maxLinks {
			break
		}
		j := int32(-1)
		s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
		if x, err := strconv.Atoi(s); err == nil {
			if x >= 0 && x < len(cands) {
				j = cands[x]
			}
		} else {
			for _, c := range cands {
				if nodes[c].ID == s {
					j = c
					break
				}
			}
		}
		if j < 0 || j == self || seen[j] {
			continue
		}
		seen[j] = true
		res.links = append(res.links, j)
	}
	return res
}

func truncateRunes(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
