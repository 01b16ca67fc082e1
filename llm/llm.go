package llm

import "context"

// Kind says what an embedded text is. Embedders with task prefixes (for example
// nomic-embed-text-v1.5, which wants "search_document: " and "search_query: ")
// need to know; embedders without them may ignore it.
type Kind int

const (
	// KindDocument is a passage that will be retrieved.
	KindDocument Kind = iota
	// KindQuery is a question that retrieves passages.
	KindQuery
)

// kindName is the kind as it appears in cache keys.
func kindName(k Kind) string {
	switch k {
	case KindDocument:
		return "document"
	case KindQuery:
		return "query"
	}
	return "unknown"
}

// Embedder turns texts into vectors. Implementations must return exactly
// len(texts) vectors of length Dimension(), in order, and must be safe for
// concurrent use.
type Embedder interface {
	Embed(ctx context.Context, texts []string, kind Kind) ([][]float32, error)
	Dimension() int
}

// Model generates text (or JSON) from a conversation of text and image parts.
// Implementations must be safe for concurrent use.
type Model interface {
	Generate(ctx context.Context, req *Request) (*Response, error)
}

// Namer is an optional capability of an Embedder or a Model: a stable name,
// written into graph file headers and made part of cache keys.
type Namer interface {
	Name() string
}

// BatchSizer is an optional Embedder capability: the largest batch the
// backend accepts in one call, which the graph builder then sends.
type BatchSizer interface {
	MaxBatch() int
}

// ImageAccepter is an optional Model capability. A model that does not
// implement it, or returns false, is sent a text rendering of visual nodes.
type ImageAccepter interface {
	AcceptsImages() bool
}

// Part is one piece of a message: text, or an image. Exactly one of Text or
// Image is set: Part{Text: s} or Part{Image: &Image{Data: b, MIME: "image/png"}}.
type Part struct {
	Text  string `json:"text,omitempty"`
	Image *Image `json:"image,omitempty"`
}

// Image is raw image bytes with their MIME type (image/png or image/jpeg).
type Image struct {
	Data []byte `json:"data"`
	MIME string `json:"mime"`
}

// Message is one turn of a conversation; its parts keep their order.
type Message struct {
	// Role is the author of the message: "system", "user" or
	// "assistant", as in the OpenAI chat API.
	Role  string `json:"role"`
	Parts []Part `json:"parts"`
}

// Request is one generation request. Zero values mean: temperature 0 (greedy,
// the paper's setting for workers and reasoner), top-p 1, the server's default
// maximum tokens, free text output.
type Request struct {
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	TopP        float64   `json:"top_p,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	// JSONSchema, when set, asks for structured output that validates against
	// this schema (sent as response_format json_schema).
	JSONSchema []byte `json:"json_schema,omitempty"`
	// SchemaName names the schema for backends that require a name.
	SchemaName string `json:"schema_name,omitempty"`
	// Seed, when non-zero, asks the backend for reproducible sampling.
	Seed int64 `json:"seed,omitempty"`
}

// Usage counts tokens spent by one call.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Response is a model's answer.
type Response struct {
	Text         string `json:"text"`
	FinishReason string `json:"finish_reason"`
	Usage        Usage  `json:"usage"`
}
