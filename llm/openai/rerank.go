package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/flowreader/flowreader/internal/tally"
	"github.com/flowreader/flowreader/llm"
)

// defaultRerankBatch is the batch size when Config.RerankBatch is 0: TEI's
// default --max-client-batch-size.
const defaultRerankBatch = 32

// rerankInFlight bounds the batches of one Rerank call sent at once.
const rerankInFlight = 4

// reranker is the llm.Reranker NewReranker returns.
type reranker struct {
	cfg   Config
	url   string
	tr    transport
	batch atomic.Int64 // texts per request, lowered when a server says so
	tei   atomic.Bool  // the server wants TEI's request shape
}

// NewReranker checks cfg and returns an llm.Reranker served at
// {RerankURL}/rerank, in the Cohere/Jina shape that vLLM and Infinity
// serve or in Hugging Face TEI's own (see the package doc); it also
// implements llm.Namer (the model's name, without a ":latest" tag, or
// "rerank") and llm.BatchSizer (the texts sent per request: RerankBatch,
// default 32, or less once a server refused a larger batch). It scores in
// batches, at most four in flight, and returns one score in [0, 1] per
// text, in input order. It is safe for concurrent use. RerankURL is
// required.
func NewReranker(cfg Config) (llm.Reranker, error) {
	u := strings.TrimRight(strings.TrimSpace(cfg.RerankURL), "/")
	if _, err := apiBase(u); err != nil {
		return nil, err
	}
	if cfg.RerankBatch < 0 {
		return nil, fmt.Errorf("%w: negative RerankBatch", ErrConfig)
	}
	if !strings.HasSuffix(u, "/rerank") {
		u += "/rerank"
	}
	r := &reranker{cfg: cfg, url: u, tr: transport{client: cfg.client(), key: cfg.RerankKey, maxBody: cfg.maxBody()}}
	r.batch.Store(int64(orDefault(cfg.RerankBatch, defaultRerankBatch)))
	return r, nil
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// Name implements llm.Namer.
func (r *reranker) Name() string {
	if r.cfg.RerankModel == "" {
		return "rerank"
	}
	return canonicalName(r.cfg.RerankModel)
}

// MaxBatch implements llm.BatchSizer.
func (r *reranker) MaxBatch() int { return int(r.batch.Load()) }

// Rerank implements llm.Reranker.
func (r *reranker) Rerank(ctx context.Context, query string, texts []string) ([]float64, error) {
	out := make([]float64, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(rerankInFlight)
	size := r.MaxBatch()
	for start := 0; start < len(texts); start += size {
		end := min(len(texts), start+size)
		g.Go(func() error { return r.batched(gctx, query, texts[start:end], out[start:end]) })
	}
	if err := g.Wait(); err != nil {
		return nil, r.tr.redactErr(err)
	}
	return out, nil
}

// batched scores texts into out, splitting them further when the server
// refuses the batch as too large.
func (r *reranker) batched(ctx context.Context, query string, texts []string, out []float64) error {
	err := r.call(ctx, query, texts, out)
	if !isBatchLimit(err) || len(texts) == 1 {
		return err
	}
	limit := batchLimit(err)
	if limit <= 0 || limit >= len(texts) {
		limit = (len(texts) + 1) / 2
	}
	r.lower(limit)
	for start := 0; start < len(texts); start += limit {
		end := min(len(texts), start+limit)
		if err := r.batched(ctx, query, texts[start:end], out[start:end]); err != nil {
			return err
		}
	}
	return nil
}

// lower sets the batch size to n when that is smaller.
func (r *reranker) lower(n int) {
	for {
		cur := r.batch.Load()
		if int64(n) >= cur || r.batch.CompareAndSwap(cur, int64(n)) {
			return
		}
	}
}

// call sends one request. A server that refuses the Cohere shape for want
// of "texts" is TEI: the request is repeated in TEI's shape, which is used
// from then on.
func (r *reranker) call(ctx context.Context, query string, texts []string, out []float64) error {
	tei := r.tei.Load()
	data, hdr, err := r.post(ctx, r.body(query, texts, tei))
	if !tei && wantsTexts(err) {
		r.tei.Store(true)
		data, hdr, err = r.post(ctx, r.body(query, texts, true))
	}
	if err != nil {
		return err
	}
	tokens, err := parseRerank(data, out)
	if err != nil {
		return err
	}
	if tokens == 0 {
		// TEI reports its tokens in a header, not in the body.
		if n, err := strconv.Atoi(hdr.Get("X-Compute-Tokens")); err == nil && n > 0 {
			tokens = n
		}
	}
	tally.Reranked(ctx, tokens)
	return nil
}

// post sends one request and returns the body and headers of its answer.
func (r *reranker) post(ctx context.Context, body any) ([]byte, http.Header, error) {
	resp, err := r.tr.send(ctx, http.MethodPost, r.url, body, "application/json")
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := r.tr.read(ctx, resp.Body)
	return data, resp.Header, err
}

func (r *reranker) body(query string, texts []string, tei bool) map[string]any {
	if tei {
		return map[string]any{"query": query, "texts": texts, "raw_scores": false, "return_text": false, "truncate": true}
	}
	b := map[string]any{"query": query, "documents": texts, "return_documents": false}
	if r.cfg.RerankModel != "" {
		b["model"] = r.cfg.RerankModel
	}
	return b
}

var (
	reTexts      = regexp.MustCompile("missing field .?texts")
	reBatchLimit = regexp.MustCompile(`(?i)(?:maximum allowed batch size|max(?:imum)?[ _]client[ _]batch[ _]size|at most)\D{0,8}(\d+)`)
	reBatchSize  = regexp.MustCompile(`(?i)batch size|too many (?:documents|texts|inputs)`)
)

// wantsTexts reports whether err is TEI refusing a request without its
// "texts" field (axum's 422 "Failed to deserialize the JSON body into the
// target type: missing field `texts`").
func wantsTexts(err error) bool {
	var api *llm.APIError
	return errors.As(err, &api) && (api.StatusCode == 422 || api.StatusCode == 400) && reTexts.MatchString(api.Message)
}

// isBatchLimit reports whether err is a server refusing a batch as too
// large: 413, or 400/422 saying so (TEI: 422 "batch size 64 > maximum
// allowed batch size 32").
func isBatchLimit(err error) bool {
	var api *llm.APIError
	if !errors.As(err, &api) {
		return false
	}
	return api.StatusCode == http.StatusRequestEntityTooLarge ||
		(api.StatusCode == 400 || api.StatusCode == 422) && reBatchSize.MatchString(api.Message)
}

// batchLimit is the largest batch the error names, or 0.
func batchLimit(err error) int {
	var api *llm.APIError
	if !errors.As(err, &api) {
		return 0
	}
	m := reBatchLimit.FindStringSubmatch(api.Message)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

type rerankResult struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"` // Cohere, Jina, vLLM, Infinity
	Score          *float64 `json:"score"`           // TEI
}

// parseRerank reads a rerank answer for len(out) texts into out and
// returns the tokens it reports (0 when none): either the Cohere/Jina
// object {"results":[{"index","relevance_score"}],"usage":{…}} or TEI's
// array [{"index","score"}]. Every text must be scored exactly once, with a
// finite score in [0, 1] (servers apply the logistic function by default;
// raw logits are refused); anything else wraps llm.ErrInvalidOutput.
func parseRerank(data []byte, out []float64) (int, error) {
	var results []rerankResult
	tokens := 0
	trimmed := strings.TrimSpace(string(data))
	if strings.HasPrefix(trimmed, "[") {
		if err := json.Unmarshal(data, &results); err != nil {
			return 0, fmt.Errorf("%w: rerank response: %v", llm.ErrInvalidOutput, err)
		}
	} else {
		var obj struct {
			Results *[]rerankResult `json:"results"`
			Usage   *struct {
				PromptTokens *int `json:"prompt_tokens"`
				TotalTokens  *int `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			return 0, fmt.Errorf("%w: rerank response: %v", llm.ErrInvalidOutput, err)
		}
		if obj.Results == nil {
			return 0, fmt.Errorf("%w: rerank response without results", llm.ErrInvalidOutput)
		}
		results = *obj.Results
		if u := obj.Usage; u != nil {
			switch {
			case u.PromptTokens != nil:
				tokens = *u.PromptTokens
			case u.TotalTokens != nil:
				tokens = *u.TotalTokens
			}
			if tokens < 0 {
				return 0, fmt.Errorf("%w: negative token usage", llm.ErrInvalidOutput)
			}
		}
	}
	if len(results) != len(out) {
		return 0, fmt.Errorf("%w: %d rerank results for %d texts", llm.ErrInvalidOutput, len(results), len(out))
	}
	seen := make([]bool, len(out))
	for _, res := range results {
		s := res.RelevanceScore
		if s == nil {
			s = res.Score
		}
		switch {
		case res.Index == nil || s == nil:
			return 0, fmt.Errorf("%w: rerank result without index or score", llm.ErrInvalidOutput)
		case *res.Index < 0 || *res.Index >= len(out) || seen[*res.Index]:
			return 0, fmt.Errorf("%w: rerank result index %d is out of range or repeated", llm.ErrInvalidOutput, *res.Index)
		case math.IsNaN(*s) || *s < 0 || *s > 1:
			return 0, fmt.Errorf("%w: rerank score %v is outside [0, 1] (a server answering raw logits: turn them off)", llm.ErrInvalidOutput, *s)
		}
		seen[*res.Index] = true
		out[*res.Index] = *s
	}
	return tokens, nil
}

var (
	_ llm.Reranker   = (*reranker)(nil)
	_ llm.Namer      = (*reranker)(nil)
	_ llm.BatchSizer = (*reranker)(nil)
)
