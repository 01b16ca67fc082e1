package ingest

import (
	"context"

	"github.com/flowreader/flowreader/graph"
)

// pdfInfo is what the PDF reader tells the build report.
//
// This file adapts today's pdf entry point to the one the PDF reader will
// have (pdf(ctx, box, path) (graph.Document, pdfInfo, error)); it goes
// away when that lands, and pdfRead's one caller calls pdf directly.
type pdfInfo struct {
	Reader   string
	Warnings []string
}

func (c Config) pdfRead(ctx context.Context, box folder, path string) (graph.Document, pdfInfo, error) {
	if err := ctx.Err(); err != nil {
		return graph.Document{}, pdfInfo{}, err
	}
	d, err := c.pdf(box, path)
	return d, pdfInfo{}, err
}
