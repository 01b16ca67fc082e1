package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/internal/tally"
	"github.com/flowreader/flowreader/llm"
)

// defaultEmbedBatch is the batch size when Config.EmbedBatch is 0.
const defaultEmbedBatch = 64

// embedder is the llm.Embedder served at {EmbedURL}/embeddings.
type embedder struct {
	cfg        Config
	base       string
	tr         transport
	docPrefix  string
	queryPrefx string
	dim        atomic.Int64 // declared or learnt dimension; 0 = unknown
}

// NewEmbedder checks cfg and returns the llm.Embedder served at
// {EmbedURL}/embeddings, safe for concurrent use. Its Dimension is
// Config.EmbedDim, or 0 until the first call returns vectors. It has the
// optional llm.Namer (the model's name) and llm.BatchSizer
// (Config.EmbedBatch, 64 by default). EmbedURL (or BaseURL) and EmbedModel
// are required.
func NewEmbedder(cfg Config) (llm.Embedder, error) {
	base, err := apiBase(cfg.embedURL())
	if err != nil {
		return nil, err
	}
	if cfg.EmbedModel == "" {
		return nil, fmt.Errorf("%w: no embedding model", ErrConfig)
	}
	if cfg.Matryoshka < 0 || cfg.EmbedBatch < 0 {
		return nil, fmt.Errorf("%w: negative Matryoshka or EmbedBatch", ErrConfig)
	}
	if cfg.NoPrefixes && (cfg.DocumentPrefix != "" || cfg.QueryPrefix != "") {
		return nil, fmt.Errorf("%w: NoPrefixes with a DocumentPrefix or QueryPrefix", ErrConfig)
	}
	e := &embedder{cfg: cfg, base: base, tr: transport{client: cfg.client(), key: cfg.embedKey(), maxBody: cfg.maxBody()}}
	e.docPrefix, e.queryPrefx = cfg.prefixes()
	e.dim.Store(int64(cfg.Matryoshka))
	return e, nil
}

// Name identifies the model (without a ":latest" tag, as Chat.Name) and,
// with Matryoshka truncation, the kept dimension. It implements llm.Namer.
func (e *embedder) Name() string {
	if e.cfg.Matryoshka > 0 {
		return canonicalName(e.cfg.EmbedModel) + "@" + strconv.Itoa(e.cfg.Matryoshka)
	}
	return canonicalName(e.cfg.EmbedModel)
}

// Dimension returns the Matryoshka dimension, else the one learnt from the
// first response, else 0.
func (e *embedder) Dimension() int { return int(e.dim.Load()) }

// MaxBatch returns the batch size. It implements llm.BatchSizer.
func (e *embedder) MaxBatch() int {
	if e.cfg.EmbedBatch > 0 {
		return e.cfg.EmbedBatch
	}
	return defaultEmbedBatch
}

// Embed embeds texts in batches of MaxBatch, with the task prefix of kind,
// and returns L2-normalised vectors in input order.
func (e *embedder) Embed(ctx context.Context, texts []string, kind llm.Kind) ([][]float32, error) {
	prefix := e.docPrefix
	if kind == llm.KindQuery {
		prefix = e.queryPrefx
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.MaxBatch() {
		end := min(len(texts), start+e.MaxBatch())
		in := make([]string, end-start)
		for i, t := range texts[start:end] {
			in[i] = prefix + t
		}
		body := map[string]any{"model": e.cfg.EmbedModel, "input": in, "encoding_format": "float"}
		for k, v := range e.cfg.EmbedExtra {
			body[k] = v
		}
		data, err := e.tr.do(ctx, http.MethodPost, e.base+"/embeddings", body)
		if err != nil {
			return nil, err
		}
		vecs, tokens, err := parseEmbeddingsUsage(data, len(in))
		if err != nil {
			return nil, err
		}
		// The pipeline's telemetry counts the tokens the server reports.
		tally.Embedded(ctx, tokens)
		for i := range vecs {
			vecs[i] = e.post(vecs[i])
		}
		if err := e.checkDim(vecs); err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// checkDim fixes the dimension on first use and holds later batches to it.
func (e *embedder) checkDim(vecs [][]float32) error {
	if len(vecs) == 0 {
		return nil
	}
	want := int(e.dim.Load())
	if want == 0 {
		e.dim.CompareAndSwap(0, int64(len(vecs[0])))
		want = int(e.dim.Load())
	}
	return llmutil.CheckVectors(vecs, len(vecs), want)
}

// post applies Matryoshka truncation when configured, then L2 normalisation.
func (e *embedder) post(v []float32) []float32 {
	if k := e.cfg.Matryoshka; k > 0 && k < len(v) {
		v = layerNorm(v)[:k]
	}
	return l2(v)
}

// layerNorm is layer normalisation without affine parameters, eps 1e-5, as
// in nomic's Matryoshka recipe.
func layerNorm(v []float32) []float32 {
	var mean float64
	for _, x := range v {
		mean += float64(x)
	}
	mean /= float64(len(v))
	var vr float64
	for _, x := range v {
		d := float64(x) - mean
		vr += d * d
	}
	vr /= float64(len(v))
	s := 1 / math.Sqrt(vr+1e-5)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32((float64(x) - mean) * s)
	}
	return out
}

func l2(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	n = math.Sqrt(n)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

type embedResponse struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Usage *struct {
		PromptTokens int `json:"prompt_tokens"`
	} `json:"usage"`
}

// parseEmbeddingsUsage decodes an embeddings body for n inputs, ordering
// vectors by their index, and the prompt tokens of its usage (0 when the
// server sends none). Missing, duplicate or out-of-range indices, wrong
// counts, unequal lengths, non-finite components and a negative token count
// wrap llm.ErrInvalidOutput.
func parseEmbeddingsUsage(data []byte, n int) ([][]float32, int, error) {
	var er embedResponse
	if err := json.Unmarshal(data, &er); err != nil {
		return nil, 0, fmt.Errorf("%w: embeddings response: %v", llm.ErrInvalidOutput, err)
	}
	if len(er.Data) != n {
		return nil, 0, fmt.Errorf("%w: %d embeddings for %d inputs", llm.ErrInvalidOutput, len(er.Data), n)
	}
	tokens := 0
	if er.Usage != nil {
		if er.Usage.PromptTokens < 0 {
			return nil, 0, fmt.Errorf("%w: negative token usage", llm.ErrInvalidOutput)
		}
		tokens = er.Usage.PromptTokens
	}
	out := make([][]float32, n)
	for pos, d := range er.Data {
		i := pos
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= n || out[i] != nil {
			return nil, 0, fmt.Errorf("%w: embedding index %d out of range or repeated", llm.ErrInvalidOutput, i)
		}
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			v[j] = float32(x)
		}
		out[i] = v
	}
	if err := llmutil.CheckVectors(out, n, 0); err != nil {
		return nil, 0, err
	}
	return out, tokens, nil
}

var (
	_ llm.Embedder   = (*embedder)(nil)
	_ llm.Namer      = (*embedder)(nil)
	_ llm.BatchSizer = (*embedder)(nil)
)
