package reader

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
)

// workerRequest builds the worker prompt for one chain: the preset's
// template with $DOC$ replaced by the chain's nodes in routed order (images
// as separate parts where they occur) and $Q$ by the question. Node bodies
// share the evidence budget by shares. It returns the number of images sent.
func (r *run) workerRequest(chain flow.Chain) (*llm.Request, int) {
	g := r.in.Graph
	type block struct {
		header string
		body   string
		img    []byte
		mime   string
	}
	blocks := make([]block, 0, len(chain.Nodes))
	lengths := make([]int, 0, len(chain.Nodes))
	for k, i := range chain.Nodes {
		n := &g.Nodes[i]
		var b block
		if r.images && n.Modality != graph.ModalityText && n.Image != nil {
			if data, mime, err := r.imgs.get(i, n); err == nil {
				b.img, b.mime = data, mime
			}
		}
		b.header = nodeHeader(k+1, n)
		b.body = nodeBody(n, b.img != nil)
		blocks = append(blocks, b)
		lengths = append(lengths, utf8.RuneCountInString(b.body))
	}
	share := shares(lengths, r.evidenceChars)

	tmpl := prompt(tmplWorkerV3)
	if r.classic {
		tmpl = prompt(tmplWorkerV1)
	}
	before, after, _ := splitAt(tmpl, "$DOC$")
	var parts []llm.Part
	var text strings.Builder
	text.WriteString(before)
	text.WriteString("\n")
	flush := func() {
		if text.Len() > 0 {
			parts = append(parts, llm.Part{Text: text.String()})
			text.Reset()
		}
	}
	images := 0
	for k, b := range blocks {
		if k > 0 {
			text.WriteString("\n\n")
		}
		text.WriteString(b.header)
		text.WriteString("\n")
		if b.img != nil {
			flush()
			parts = append(parts, llm.Part{Image: &llm.Image{Data: b.img, MIME: b.mime}})
			images++
		}
		text.WriteString(truncate(b.body, share[k]))
	}
	text.WriteString("\n")
	text.WriteString(fill(after, "$Q$", r.in.Question))
	flush()
	return &llm.Request{
		Messages:    []llm.Message{{Role: "user", Parts: parts}},
		Temperature: 0,
		TopP:        1,
	}, images
}

// readChains runs one worker per chain, at most r.limit in flight. A worker
// whose call fails is recorded as StatusFailed (its chain is dropped); only the
// cancellation of ctx is an error.
func (r *run) readChains(ctx context.Context, chains []flow.Chain, earlier []Draft) ([]Draft, error) {
	reuse := map[string]Draft{}
	for _, d := range earlier {
		if d.Status != StatusFailed {
			reuse[chainKey(d.Nodes)] = d
		}
	}
	drafts := make([]Draft, len(chains))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.limit)
	for k, c := range chains {
		drafts[k] = Draft{Chain: k, Nodes: append([]int(nil), c.Nodes...), Flow: c.Flow}
		if d, ok := reuse[chainKey(c.Nodes)]; ok {
			d.Chain, d.Flow = k, c.Flow
			drafts[k] = d
			r.trace.Reused++
			continue
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			req, nimg := r.workerRequest(c)
			d := &drafts[k]
			d.Images = nimg
			resp, err := r.meter.generate(gctx, kindWorker, req)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				d.Status, d.Err = StatusFailed, err.Error()
				r.hooks.draft(*d)
				return nil
			}
			d.Raw = resp.Text
			out, ok := parseWorker(resp.Text)
			d.Status, d.Answer, d.Evidence, d.Parsed = out.Status, out.Answer, out.Evidence, ok
			r.hooks.draft(*d)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return drafts, fmt.Errorf("reader: workers: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return drafts, fmt.Errorf("reader: workers: %w", err)
	}
	failed := 0
	defer func() { r.trace.Dropped = failed }()
	for _, d := range drafts {
		if d.Status == StatusFailed {
			failed++
		}
	}
	if len(drafts) > 0 && failed == len(drafts) {
		return drafts, fmt.Errorf("%w: all %d workers failed (first: %s)", ErrAllWorkersFailed, failed, drafts[0].Err)
	}
	return drafts, nil
}

// chainKey identifies a node sequence, so that a re-read (Input.Earlier) can
// reuse the earlier reading of an identical chain (same prompt, greedy
// decoding).
func chainKey(nodes []int) string {
	var b strings.Builder
	for i, v := range nodes {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, v)
	}
	return b.String()
}

// validChain reports whether every node of c is in g.
func validChain(g *graph.Graph, c flow.Chain) bool {
	for _, v := range c.Nodes {
		if v < 0 || v >= len(g.Nodes) {
			return false
		}
	}
	return true
}
