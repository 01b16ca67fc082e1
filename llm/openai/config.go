package openai

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/flowreader/flowreader/internal/termsafe"
)

// ErrConfig: the configuration cannot work (missing or malformed URL,
// missing model, contradictory settings).
var ErrConfig = errors.New("openai: invalid configuration")

// nomic's task prefixes for nomic-embed-text-v1.5.
const (
	nomicDocumentPrefix = "search_document: "
	nomicQueryPrefix    = "search_query: "
)

// Config configures Chat and Embedder. Zero values are documented per field.
type Config struct {
	// BaseURL is the chat server, with or without its trailing /v1
	// (http://localhost:8000 and http://localhost:8000/v1 are the same).
	BaseURL string
	// APIKey, when set, is sent as a bearer token to the chat server.
	APIKey string
	// Model is the served chat model name (required for Chat).
	Model string
	// EmbedURL is the embeddings server; "" means BaseURL.
	EmbedURL string
	// EmbedKey is the embeddings bearer token; "" means APIKey.
	EmbedKey string
	// EmbedModel is the served embedding model name (required for Embedder).
	EmbedModel string

	// HTTPClient sends the requests; nil means a client without an overall
	// timeout, so that the caller's context alone bounds each call.
	HTTPClient *http.Client
	// MaxResponseBytes bounds a response body; 0 means 64 MiB.
	MaxResponseBytes int64

	// MaxImageSide downscales images whose long side is larger; 0 means
	// 1600 px, negative means images are sent unchanged.
	MaxImageSide int
	// TextOnly declares a model without vision: AcceptsImages reports false.
	TextOnly bool
	// Extra is merged into every chat request body, after the standard
	// fields, which it may override.
	Extra map[string]any

	// EmbedBatch is the largest number of texts per embeddings request;
	// 0 means 64.
	EmbedBatch int
	// DocumentPrefix and QueryPrefix are prepended to texts embedded as
	// llm.KindDocument and llm.KindQuery. When both are empty and EmbedModel
	// contains "nomic-embed", nomic's "search_document: " and
	// "search_query: " are used, as nomic-embed-text-v1.5 was trained.
	DocumentPrefix, QueryPrefix string
	// NoPrefixes sends texts unchanged, even to a nomic-embed model.
	NoPrefixes bool
	// Matryoshka, when > 0, truncates embeddings to that many dimensions
	// with nomic's recipe (layer norm, slice, L2), and declares that
	// dimension: an answer with fewer components is an error. 0 keeps the
	// server's dimension, learnt from the first response.
	Matryoshka int
	// EmbedExtra is merged into every embeddings request body.
	EmbedExtra map[string]any

	// RerankURL is the reranking server (required for Reranker): its root
	// (TEI, Infinity: http://localhost:8080) or its /v1 (vLLM serves
	// /v1/rerank too); requests go to {RerankURL}/rerank.
	RerankURL string
	// RerankKey is the reranking server's bearer token. It does not
	// default to APIKey: a key goes only to the server it was given for.
	RerankKey string
	// RerankModel is the served reranking model, e.g.
	// BAAI/bge-reranker-v2-m3; "" sends none (TEI and Infinity serve one).
	RerankModel string
	// RerankBatch is the largest number of texts per rerank request; 0
	// means 32 (TEI's default limit). A server that refuses a batch as
	// too large is sent smaller ones from then on.
	RerankBatch int
}

// FromEnv returns a Config filled from the environment variables listed in
// the package documentation; unset variables leave fields empty.
func FromEnv() Config {
	c := Config{
		BaseURL:    os.Getenv("FLOWREADER_LLM_URL"),
		Model:      os.Getenv("FLOWREADER_LLM_MODEL"),
		EmbedURL:   os.Getenv("FLOWREADER_EMBED_URL"),
		EmbedModel: os.Getenv("FLOWREADER_EMBED_MODEL"),
		APIKey:     os.Getenv("FLOWREADER_API_KEY"),
		EmbedKey:   os.Getenv("FLOWREADER_EMBED_KEY"),

		RerankURL:   os.Getenv("FLOWREADER_RERANK_URL"),
		RerankModel: os.Getenv("FLOWREADER_RERANK_MODEL"),
		RerankKey:   os.Getenv("FLOWREADER_RERANK_KEY"),
	}
	return c
}

// Format prints c with its keys redacted, whatever the verb (%v, %+v, %#v,
// %s), so that printing a Config never leaks a credential.
func (c Config) Format(f fmt.State, verb rune) {
	red := func(k string) string {
		if k == "" {
			return `""`
		}
		return "[REDACTED]"
	}
	// A URL may carry a password in its userinfo (a proxy behind basic
	// auth): it is redacted as in the package's errors.
	fmt.Fprintf(f, "openai.Config{BaseURL:%q Model:%q APIKey:%s EmbedURL:%q EmbedModel:%q EmbedKey:%s RerankURL:%q RerankModel:%q RerankKey:%s}",
		termsafe.URL(c.BaseURL), c.Model, red(c.APIKey), termsafe.URL(c.EmbedURL), c.EmbedModel, red(c.EmbedKey), termsafe.URL(c.RerankURL), c.RerankModel, red(c.RerankKey))
}

// client returns a copy of HTTPClient (or a zero client) whose redirects
// never carry the key to another origin (see sameOriginRedirects).
func (c Config) client() *http.Client {
	hc := &http.Client{}
	if c.HTTPClient != nil {
		*hc = *c.HTTPClient
	}
	hc.CheckRedirect = sameOriginRedirects(hc.CheckRedirect)
	return hc
}

func (c Config) maxBody() int64 {
	if c.MaxResponseBytes > 0 {
		return c.MaxResponseBytes
	}
	return 64 << 20
}

func (c Config) embedURL() string {
	if c.EmbedURL != "" {
		return c.EmbedURL
	}
	return c.BaseURL
}

func (c Config) embedKey() string {
	if c.EmbedKey != "" {
		return c.EmbedKey
	}
	return c.APIKey
}

// apiBase normalises a base URL to end in /v1 without a trailing slash.
func apiBase(u string) (string, error) {
	u = strings.TrimRight(strings.TrimSpace(u), "/")
	if u == "" {
		return "", fmt.Errorf("%w: empty base URL", ErrConfig)
	}
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return "", fmt.Errorf("%w: base URL %q is not http(s)", ErrConfig, termsafe.URL(u))
	}
	if !strings.HasSuffix(u, "/v1") {
		u += "/v1"
	}
	return u, nil
}

// prefixes returns the document and query prefixes for the embedding model.
func (c Config) prefixes() (doc, query string) {
	switch {
	case c.NoPrefixes:
		return "", ""
	case c.DocumentPrefix != "" || c.QueryPrefix != "":
		return c.DocumentPrefix, c.QueryPrefix
	case strings.Contains(strings.ToLower(c.EmbedModel), "nomic-embed"):
		return nomicDocumentPrefix, nomicQueryPrefix
	}
	return "", ""
}
