package graph

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"golang.org/x/sync/errgroup"

	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/internal/telemetry"
	"github.com/flowreader/flowreader/llm"
)

// embed embeds every node's embeddingText (as llm.KindDocument) in batches,
// concurrently, into rows (int8 when i8 is set), each normalised to unit
// length first. The dimension is the embedder's, or taken from the vectors
// when it reports 0 (want > 0 fixes it, as in later rounds). Vectors are
// validated: count, length, finite.
func (b *Builder) embed(ctx context.Context, e llm.Embedder, nodes []Node, stage string, want int, i8 bool) (_ rows, err error) {
	ctx, span := telemetry.Stage(ctx, "flowreader.build.embed", attribute.String("flowreader.stage", stage), attribute.Int("flowreader.nodes", len(nodes)))
	defer func() { telemetry.End(span, err) }()
	n := len(nodes)
	batch := defaultBatch
	if bs, ok := b.Embedder.(llm.BatchSizer); ok && bs.MaxBatch() > 0 {
		batch = bs.MaxBatch()
	}
	dim := want
	if dim == 0 {
		dim = b.Embedder.Dimension()
	}
	if dim > maxDim { // Save would refuse the graph after the whole build
		return rows{}, fmt.Errorf("graph: %w: the embedder's dimension %d exceeds the file format's %d", ErrDimension, dim, maxDim)
	}
	p := b.stage(stage, n)
	// With the dimension known, each batch goes straight into its rows of
	// the result, so that a large collection's vectors are not held twice
	// (once per batch, once contiguous).
	var out rows
	known := dim > 0
	if known {
		out = newRows(n, dim, i8)
	}
	var raw [][]float32
	if !known {
		raw = make([][]float32, n)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(b.concurrency())
	for a := 0; a < n; a += batch {
		if gctx.Err() != nil {
			break
		}
		z := min(a+batch, n)
		g.Go(func() error {
			// Each batch makes its own texts, so that a large collection's
			// are not all held at once beside the embeddings.
			texts := make([]string, z-a)
			for i := range texts {
				texts[i] = embeddingText(&nodes[a+i])
			}
			vecs, err := e.Embed(gctx, texts, llm.KindDocument)
			if err != nil {
				return fmt.Errorf("graph: embedding nodes %d-%d: %w", a, z-1, err)
			}
			if err := llmutil.CheckVectors(vecs, z-a, dim); err != nil {
				return fmt.Errorf("graph: embedding nodes %d-%d: %w", a, z-1, err)
			}
			if known {
				var unit []float32 // an int8 row's unit vector before quantisation
				for i, v := range vecs {
					if !out.i8 { // normalised in its own row
						row := out.f[(a+i)*dim : (a+i+1)*dim]
						copy(row, v)
						normalize(row)
						continue
					}
					unit = append(unit[:0], v...)
					normalize(unit)
					out.set(a+i, unit)
				}
			} else {
				copy(raw[a:z], vecs)
			}
			p.add(z - a)
			return nil
		})
	}
	if err = g.Wait(); err != nil {
		return rows{}, err
	}
	if err = ctx.Err(); err != nil {
		return rows{}, err
	}
	if n == 0 {
		return newRows(0, dim, i8), nil
	}
	if known {
		return out, nil
	}
	dim = len(raw[0])
	if dim > maxDim { // Save would refuse the graph after the whole build
		return rows{}, fmt.Errorf("graph: %w: the embedder's dimension %d exceeds the file format's %d", ErrDimension, dim, maxDim)
	}
	out = newRows(n, dim, i8)
	row := make([]float32, dim)
	for i, v := range raw {
		if len(v) != dim { // batches disagree on an unknown dimension
			return rows{}, fmt.Errorf("graph: node %d: %w: %d components, want %d", i, ErrDimension, len(v), dim)
		}
		copy(row, v) // the embedder's vector is not ours to change
		normalize(row)
		out.set(i, row)
	}
	return out, nil
}

// embeddingText is the text a node is embedded from,
// "summary keywords: k1, k2, ..." (paper v1 Eq. 12), or its modality name
// when the node has neither summary nor keywords (an embedder may reject "").
func embeddingText(n *Node) string {
	s := n.Summary
	if len(n.Keywords) > 0 {
		s += " keywords: " + strings.Join(n.Keywords, ", ")
	}
	if s == "" {
		return n.Modality.String()
	}
	return s
}
