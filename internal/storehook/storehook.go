// Package storehook carries a request of package flowreader to a store's
// Candidates that flowreader.Store's signature has no room for, without
// an exported name: that the candidates come with their reading text.
// Index.Score over a store completes its subgraph's text; a store that
// can read the text in the candidates' own round trip (pgstore) does so
// and says it did, and the index then reads no text for them; any other
// store ignores the request, and the index reads the text with
// Store.Nodes as before.
package storehook

import "context"

// Text is a request for the candidates' reading text. The store sets Read
// when every candidate it returns carries its text.
type Text struct {
	Read bool
}

type textKey struct{}

// WithText returns ctx carrying the request t.
func WithText(ctx context.Context, t *Text) context.Context {
	return context.WithValue(ctx, textKey{}, t)
}

// TextOf is the request ctx carries, or nil.
func TextOf(ctx context.Context) *Text {
	t, _ := ctx.Value(textKey{}).(*Text)
	return t
}
