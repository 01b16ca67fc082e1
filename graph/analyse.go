package graph

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/internal/purpose"

	"go.opentelemetry.io/otel/attribute"
	"golang.org/x/sync/errgroup"

	"github.com/flowreader/flowreader/internal/jsonx"
	"github.com/flowreader/flowreader/internal/telemetry"
	"github.com/flowreader/flowreader/llm"
)

// analysis is the JSON answer of P1 (text) and P2 (visual, with
// text_content).
type analysis struct {
	Keywords    []string `json:"keywords"`
	Summary     string   `json:"summary"`
	Tags        []string `json:"tags"`
	TextContent string   `json:"text_content"`
}

// analyseModel runs P1/P2 on every node, concurrently, and drops text nodes
// the model calls meaningless. An answer that does not parse falls back to
// the offline analysis of that node (the answer is cached, so the fallback
// is as deterministic as the answer).
func (b *Builder) analyseModel(ctx context.Context, m llm.Model, nodes []Node) ([]Node, error) {
	images := false
	if ia, ok := b.Model.(llm.ImageAccepter); ok {
		images = ia.AcceptsImages()
	}
	p := b.stage("analyse", len(nodes))
	ctx, span := telemetry.Stage(ctx, "flowreader.build.analyse", attribute.Int("flowreader.nodes", len(nodes)))
	var err error
	defer func() { telemetry.End(span, err) }()
	fallbacks := 0
	var mu sync.Mutex
	keep := make([]bool, len(nodes))
	g, gctx := errgroup.WithContext(llm.WithPurpose(ctx, purpose.Analysis))
	g.SetLimit(b.concurrency())
	for i := range nodes {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			n := &nodes[i]
			req, err := b.analysisRequest(n, images)
			if err != nil {
				return err
			}
			resp, err := m.Generate(gctx, req)
			if err != nil {
				return fmt.Errorf("graph: analysing node %s: %w", n.ID, err)
			}
			var a analysis
			if jsonx.Extract(resp.Text, &a) != nil || strings.TrimSpace(a.Summary) == "" {
				mu.Lock()
				fallbacks++
				mu.Unlock()
				analyseOffline(n)
				keep[i] = true
				p.add(1)
				return nil
			}
			n.Summary = strings.TrimSpace(a.Summary)
			n.Keywords = cleanStrings(a.Keywords)
			n.Tags = cleanStrings(a.Tags)
			if n.Modality != ModalityText {
				n.ImageText = strings.TrimSpace(a.TextContent)
			}
			keep[i] = n.Modality != ModalityText || !strings.Contains(n.Summary, noMeaningfulInformation)
			p.add(1)
			return nil
		})
	}
	if err = g.Wait(); err != nil {
		return nil, err
	}
	if err = ctx.Err(); err != nil {
		return nil, err
	}
	if fallbacks > 0 {
		telemetry.Warn(ctx, "node analysis fell back to the offline analysis: the model's answer did not parse", "nodes", fallbacks, "total", len(nodes))
	}
	out := nodes[:0]
	for i := range nodes {
		if keep[i] {
			out = append(out, nodes[i])
		}
	}
	return out, nil
}

// analysisRequest builds the P1 or P2 request of a node. Visual nodes get
// their image when the model accepts images and the file is readable, else
// a text rendering (their table cells).
func (b *Builder) analysisRequest(n *Node, images bool) (*llm.Request, error) {
	if n.Modality == ModalityText {
		req := llmfunc.UserText(textPrompt(n.Content))
		req.JSONSchema, req.SchemaName = []byte(schemaText), "text_node_analysis"
		return req, nil
	}
	var img []byte
	if images && n.Image != nil {
		p := filepath.FromSlash(n.Image.Path)
		if b.Root != "" {
			p = filepath.Join(b.Root, p)
		}
		img = readImage(p) // unreadable or too large: fall back to the text rendering
	}
	rendering := ""
	if img == nil {
		rendering = n.Content
	}
	caption := strings.TrimSpace(n.Caption + " " + n.Footnote)
	req := llmfunc.UserText(visualPrompt(n.Context, caption, rendering))
	if img != nil {
		req.Messages[0].Parts = append(req.Messages[0].Parts, llm.Part{Image: &llm.Image{Data: img, MIME: n.Image.MIME}})
	}
	req.JSONSchema, req.SchemaName = []byte(schemaVisual), "visual_node_analysis"
	return req, nil
}

// cleanStrings trims entries and drops empty ones.
func cleanStrings(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// maxImageBytes caps an image sent for analysis (the reader's default cap).
const maxImageBytes = 8 << 20

// readImage reads an image file of at most maxImageBytes; nil otherwise.
func readImage(p string) []byte {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxImageBytes+1))
	if err != nil || len(b) > maxImageBytes {
		return nil
	}
	return b
}
