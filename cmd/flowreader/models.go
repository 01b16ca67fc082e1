package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/internal/termsafe"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/openai"
)

// Environment variables read by build and ask when the matching flag is not
// given (the names of package llm/openai's FromEnv).
const (
	envLLMURL      = "FLOWREADER_LLM_URL"
	envLLMModel    = "FLOWREADER_LLM_MODEL"
	envEmbedURL    = "FLOWREADER_EMBED_URL"
	envEmbedModel  = "FLOWREADER_EMBED_MODEL"
	envAPIKey      = "FLOWREADER_API_KEY"
	envEmbedKey    = "FLOWREADER_EMBED_KEY"
	envRerankURL   = "FLOWREADER_RERANK_URL"
	envRerankModel = "FLOWREADER_RERANK_MODEL"
	envRerankKey   = "FLOWREADER_RERANK_KEY"
)

// endpoints are the model-server settings shared by build and ask. Keys are
// deliberately not flags: a flag value shows up in ps and shell history.
type endpoints struct {
	llmURL, llmModel     string
	embedURL, embedModel string
	embedDim             int
	textOnly             bool
	// rerankURL and rerankModel name a reranking server (ask and serve
	// only: registerRerank).
	rerankURL, rerankModel string
	// log, when set, is told of retries (warn level).
	log *slog.Logger
	// timeout bounds each HTTP request; unset means $FLOWREADER_TIMEOUT,
	// else defaultTimeout; 0 means none.
	timeout optDuration
}

func (e *endpoints) register(fs *flag.FlagSet) {
	fs.StringVar(&e.llmURL, "llm-url", "", "OpenAI-compatible chat server, e.g. http://localhost:8000/v1 (default $"+envLLMURL+")")
	fs.StringVar(&e.llmModel, "llm-model", "", "served (vision-)language model name, e.g. qwen3-vl (default $"+envLLMModel+")")
	fs.StringVar(&e.embedURL, "embed-url", "", "OpenAI-compatible embeddings server (default $"+envEmbedURL+", else the chat server)")
	fs.StringVar(&e.embedModel, "embed-model", "", "served embedding model name, e.g. nomic-ai/nomic-embed-text-v1.5 (default $"+envEmbedModel+")")
	fs.IntVar(&e.embedDim, "embed-dim", 0, "Matryoshka-truncate remote embeddings to this dimension (0 = the model's full dimension)")
	fs.BoolVar(&e.textOnly, "text-only", false, "the chat model has no vision: send text renderings of tables and figures instead of images")
	fs.Var(&e.timeout, "timeout", "per-request `duration` for the model and embedding servers (each retry gets its own), e.g. 90s or 10m; 0 = none (default $"+envTimeout+", else "+defaultTimeout.String()+")")
}

// registerRerank adds the reranking server's flags, for the commands that
// answer questions.
func (e *endpoints) registerRerank(fs *flag.FlagSet) {
	fs.StringVar(&e.rerankURL, "rerank-url", "", "reranking server speaking /rerank (vLLM, TEI, Infinity), e.g. http://localhost:8080: the top nodes are reranked before routing (default $"+envRerankURL+"; its key: $"+envRerankKey+")")
	fs.StringVar(&e.rerankModel, "rerank-model", "", "served reranking model, e.g. BAAI/bge-reranker-v2-m3 (default $"+envRerankModel+")")
}

// models are the resolved model parts: nil fields mean the facade's
// embedded defaults.
type models struct {
	embedder llm.Embedder
	model    llm.Model
	// reranker is nil without a reranking server.
	reranker llm.Reranker
	// describe says which remote parts are in use, for stderr.
	describe []string
}

// resolve fills unset flags from the environment (getenv) and makes the
// remote embedder and model, each wrapped in llm.Wrap with retries so that a busy or
// restarting server (429, 503, dropped connections) costs a wait, not the
// run. An unset model or embedder stays nil (the embedded default).
func (e endpoints) resolve(getenv func(string) string) (models, error) {
	pick := func(flagVal, env string) string {
		if flagVal != "" {
			return flagVal
		}
		return strings.TrimSpace(getenv(env))
	}
	cfg := openai.Config{
		BaseURL:    pick(e.llmURL, envLLMURL),
		Model:      pick(e.llmModel, envLLMModel),
		EmbedURL:   pick(e.embedURL, envEmbedURL),
		EmbedModel: pick(e.embedModel, envEmbedModel),
		APIKey:     getenv(envAPIKey),
		EmbedKey:   getenv(envEmbedKey),
		Matryoshka: e.embedDim,
		TextOnly:   e.textOnly,

		RerankURL:   pick(e.rerankURL, envRerankURL),
		RerankModel: pick(e.rerankModel, envRerankModel),
		RerankKey:   getenv(envRerankKey),
	}
	var m models
	timeout := e.timeout.d
	if !e.timeout.set {
		timeout = defaultTimeout
		if v := strings.TrimSpace(getenv(envTimeout)); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return m, fmt.Errorf("$%s=%q is not a duration such as 90s or 10m: %w", envTimeout, termsafe.Text(v), errUsage)
			}
			timeout = d
		}
	}
	// One client per run, never http.DefaultClient: its Timeout bounds
	// each attempt (a retried call gets a fresh one), so a server that
	// accepts and never answers stalls nothing for good.
	cfg.HTTPClient = &http.Client{Timeout: timeout}
	if e.embedDim < 0 {
		return m, fmt.Errorf("--embed-dim %d is negative: %w", e.embedDim, errUsage)
	}
	switch {
	case cfg.Model != "" && cfg.BaseURL == "":
		return m, fmt.Errorf("a chat model (%q) is set but no chat server: give --llm-url or $%s: %w", cfg.Model, envLLMURL, errUsage)
	case cfg.BaseURL != "" && cfg.Model == "" && cfg.EmbedModel == "":
		return m, fmt.Errorf("a chat server (%s) is set but no model: give --llm-model or $%s: %w", termsafe.URL(cfg.BaseURL), envLLMModel, errUsage)
	case cfg.EmbedURL != "" && cfg.EmbedModel == "":
		return m, fmt.Errorf("an embeddings server (%s) is set but no model: give --embed-model or $%s: %w", termsafe.URL(cfg.EmbedURL), envEmbedModel, errUsage)
	case cfg.EmbedModel != "" && cfg.EmbedURL == "" && cfg.BaseURL == "":
		return m, fmt.Errorf("an embedding model (%q) is set but no server: give --embed-url or $%s: %w", cfg.EmbedModel, envEmbedURL, errUsage)
	case e.embedDim > 0 && cfg.EmbedModel == "":
		return m, fmt.Errorf("--embed-dim needs a remote embedding model: %w", errUsage)
	case cfg.RerankModel != "" && cfg.RerankURL == "":
		return m, fmt.Errorf("a reranking model (%q) is set but no server: give --rerank-url or $%s: %w", cfg.RerankModel, envRerankURL, errUsage)
	}
	if cfg.Model != "" {
		chat, err := openai.NewChat(cfg)
		if err != nil {
			return m, fmt.Errorf("chat model: %w", err)
		}
		m.model = llm.Wrap(chat, llm.Middleware{Attempts: 4, OnRetry: retryWarner(e.log, "model")})
		m.describe = append(m.describe, fmt.Sprintf("model %s at %s", cfg.Model, termsafe.URL(cfg.BaseURL)))
	}
	if cfg.EmbedModel != "" {
		emb, err := openai.NewEmbedder(cfg)
		if err != nil {
			return m, fmt.Errorf("embedder: %w", err)
		}
		m.embedder = llm.WrapEmbedder(emb, llm.Middleware{Attempts: 4, OnRetry: retryWarner(e.log, "embedding")})
		url := cfg.EmbedURL
		if url == "" {
			url = cfg.BaseURL
		}
		m.describe = append(m.describe, fmt.Sprintf("embedder %s at %s", emb.(llm.Namer).Name(), termsafe.URL(url)))
	}
	if cfg.RerankURL != "" {
		r, err := openai.NewReranker(cfg)
		if err != nil {
			return m, fmt.Errorf("reranker: %w", err)
		}
		m.reranker = llm.WrapReranker(r, llm.Middleware{Attempts: 4, OnRetry: retryWarner(e.log, "rerank")})
		m.describe = append(m.describe, fmt.Sprintf("reranker %s at %s", r.(llm.Namer).Name(), termsafe.URL(cfg.RerankURL)))
	}
	return m, nil
}

// presetConfig returns the facade preset called name.
func presetConfig(name string) (flowreader.Config, error) {
	switch name {
	case "aspects", "":
		return flowreader.Config{}, nil
	case "aspects-paper":
		return flowreader.PaperAspects(), nil
	case "classic":
		return flowreader.Classic(), nil
	}
	return flowreader.Config{}, fmt.Errorf("unknown --preset %q (aspects, aspects-paper or classic): %w", name, errUsage)
}

const presetUsage = "pipeline preset: aspects (v3 with the dev-set changes), aspects-paper (v3 as published) or classic (v1)"
