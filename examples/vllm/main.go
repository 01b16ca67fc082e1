// Command vllm runs flowreader on the paper's models served by vLLM: the
// vision-language model Qwen/Qwen3-VL-32B-Instruct for node analysis,
// evolution rounds, workers and reasoner, and nomic-ai/nomic-embed-text-v1.5
// for embeddings. It builds a graph of a document collection (caching every
// model answer on disk, so a re-run or an interrupted build costs no repeated
// calls), saves it, and answers questions with citations and the chains read.
//
// # Serving the models
//
// Qwen3-VL needs vLLM 0.11.0 or newer. On four 80 GB GPUs:
//
//	vllm serve Qwen/Qwen3-VL-32B-Instruct --tensor-parallel-size 4 \
//	    --max-model-len 32768 --limit-mm-per-prompt '{"image":8}' \
//	    --served-model-name qwen3-vl --port 8000
//
// --limit-mm-per-prompt bounds the images in one request (a worker reads
// one chain, tables and figures as images); the JSON form is the one every
// vLLM release that serves Qwen3-VL accepts. --served-model-name is the name
// given to FLOWREADER_LLM_MODEL.
//
// The embedding model, on one more GPU (it is small; any GPU will do):
//
//	vllm serve nomic-ai/nomic-embed-text-v1.5 --runner pooling \
//	    --trust-remote-code --port 8001
//
// --runner pooling applies to vLLM 0.10.1 and newer. vLLM 0.10.0 and older
// take --task embed instead (deprecated in 0.10.1 and no longer accepted by
// 0.13), so on an older embeddings server the line is
//
//	vllm serve nomic-ai/nomic-embed-text-v1.5 --task embed --trust-remote-code --port 8001
//
// The client adds nomic's task prefixes ("search_document: ",
// "search_query: ") itself; nothing is needed on the server for them.
//
// # Running
//
//	export FLOWREADER_LLM_URL=http://gpu-host:8000/v1 FLOWREADER_LLM_MODEL=qwen3-vl
//	export FLOWREADER_EMBED_URL=http://gpu-host:8001/v1 FLOWREADER_EMBED_MODEL=nomic-ai/nomic-embed-text-v1.5
//	export FLOWREADER_API_KEY=...   # only if the servers were started with --api-key
//	go run ./examples/vllm -docs examples/quickstart/docs -q "Which breakwater lost most nests in 2025, and what storm caused it?"
//
// Every endpoint can also be given as a flag (-llm-url, -llm-model,
// -embed-url, -embed-model); the key only through the environment. With no
// server configured the command says so and exits with status 2.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/openai"
)

// errNoServer marks a missing configuration (exit status 2).
var errNoServer = errors.New("no model server configured")

type options struct {
	cfg         openai.Config
	docs        string
	out         string
	cache       string
	questions   []string
	concurrency int
	timeout     time.Duration
	preset      string
}

func main() {
	opts, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "vllm:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, opts); err != nil {
		fmt.Fprintln(os.Stderr, "vllm:", err)
		if errors.Is(err, errNoServer) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type questionList []string

func (q *questionList) String() string     { return strings.Join(*q, " | ") }
func (q *questionList) Set(s string) error { *q = append(*q, s); return nil }

func parseFlags(args []string) (options, error) {
	env := openai.FromEnv()
	fs := flag.NewFlagSet("vllm", flag.ContinueOnError)
	var o options
	var qs questionList
	fs.StringVar(&o.cfg.BaseURL, "llm-url", env.BaseURL, "vLLM chat server serving Qwen3-VL ($FLOWREADER_LLM_URL)")
	fs.StringVar(&o.cfg.Model, "llm-model", env.Model, "served model name, e.g. qwen3-vl ($FLOWREADER_LLM_MODEL)")
	fs.StringVar(&o.cfg.EmbedURL, "embed-url", env.EmbedURL, "vLLM embeddings server ($FLOWREADER_EMBED_URL; default the chat server)")
	fs.StringVar(&o.cfg.EmbedModel, "embed-model", env.EmbedModel, "served embedding model ($FLOWREADER_EMBED_MODEL), e.g. nomic-ai/nomic-embed-text-v1.5")
	fs.IntVar(&o.cfg.Matryoshka, "embed-dim", 0, "Matryoshka-truncate nomic embeddings to this many dimensions (0 = all 768)")
	fs.StringVar(&o.docs, "docs", filepath.Join("examples", "quickstart", "docs"), "document collection: a folder of MinerU output folders, Markdown, text or PDF files")
	fs.StringVar(&o.out, "o", "vllm.frg", "graph file to save (reuse it with: flowreader ask -g FILE --images DOCS ...)")
	fs.StringVar(&o.cache, "cache", ".flowreader-cache", "on-disk cache of model answers and embeddings made during the build")
	fs.Var(&qs, "q", "question (repeatable)")
	fs.IntVar(&o.concurrency, "concurrency", 8, "model calls in flight (the server batches them)")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "deadline of one HTTP request")
	fs.StringVar(&o.preset, "preset", "aspects", "aspects, aspects-paper or classic")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.cfg.APIKey, o.cfg.EmbedKey = env.APIKey, env.EmbedKey
	o.questions = append(o.questions, fs.Args()...)
	o.questions = append(o.questions, qs...)
	if len(o.questions) == 0 {
		o.questions = []string{
			"Which breakwater lost most nests in 2025, and what storm caused it?",
			"What was the peak gust of the storm that flooded the East Arm?",
		}
	}
	return o, nil
}

// models makes the chat model and the embedder. Each call is retried on
// temporary failures (429, 503, dropped connections, honouring
// Retry-After), and at most `concurrency` calls are in flight: Limit is the
// outer wrapper, so a call waiting out a backoff keeps its slot and a
// struggling server is not sent more work meanwhile.
func models(ctx context.Context, o options) (llm.Model, llm.Embedder, error) {
	var missing []string
	if o.cfg.BaseURL == "" || o.cfg.Model == "" {
		missing = append(missing, "a chat server (-llm-url and -llm-model, or FLOWREADER_LLM_URL and FLOWREADER_LLM_MODEL)")
	}
	if o.cfg.EmbedModel == "" || (o.cfg.EmbedURL == "" && o.cfg.BaseURL == "") {
		missing = append(missing, "an embeddings server (-embed-url and -embed-model, or FLOWREADER_EMBED_URL and FLOWREADER_EMBED_MODEL)")
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("%w: this example needs %s; see `go doc ./examples/vllm` for the vllm serve command lines, or run go run ./examples/quickstart for the offline defaults",
			errNoServer, strings.Join(missing, " and "))
	}
	o.cfg.HTTPClient = &http.Client{Timeout: o.timeout}
	chat, err := openai.NewChat(o.cfg)
	if err != nil {
		return nil, nil, err
	}
	emb, err := openai.NewEmbedder(o.cfg)
	if err != nil {
		return nil, nil, err
	}
	// Fail fast, with the server's own error (a model it does not serve, a
	// bad key), before any work: one short generation, one embedding.
	hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := chat.Generate(hctx, &llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: "ping"}}}}, MaxTokens: 1}); err != nil {
		return nil, nil, fmt.Errorf("chat server %s: %w", o.cfg.BaseURL, err)
	}
	if _, err := emb.Embed(hctx, []string{"ping"}, llm.KindQuery); err != nil {
		return nil, nil, fmt.Errorf("embeddings server: %w", err)
	}
	mw := llm.Middleware{Attempts: 6, Concurrency: o.concurrency, OnRetry: func(attempt int, err error, d time.Duration) {
		fmt.Fprintf(os.Stderr, "vllm: retry %d in %s: %v\n", attempt, d.Round(time.Millisecond), err)
	}}
	model := llm.Wrap(chat, mw)
	embedder := llm.WrapEmbedder(emb, mw)
	return model, embedder, nil
}

func preset(name string) (flowreader.Config, error) {
	switch name {
	case "aspects":
		return flowreader.Config{}, nil
	case "aspects-paper":
		return flowreader.PaperAspects(), nil
	case "classic":
		return flowreader.Classic(), nil
	}
	return flowreader.Config{}, fmt.Errorf("unknown preset %q", name)
}

func run(ctx context.Context, o options) error {
	model, embedder, err := models(ctx, o)
	if err != nil {
		return err
	}
	cfg, err := preset(o.preset)
	if err != nil {
		return err
	}
	cfg.Model, cfg.Embedder = model, embedder
	cfg.Cache = llm.DirStore(o.cache)
	cfg.Concurrency = o.concurrency
	cfg.ImageRoot = o.docs
	last := ""
	cfg.Progress = func(done, total int, stage string) {
		if stage != last || done == total {
			fmt.Fprintf(os.Stderr, "build: %s %d/%d\n", stage, done, total)
			last = stage
		}
	}
	p, err := flowreader.New(cfg)
	if err != nil {
		return err
	}
	docs, err := ingest.Path(o.docs)
	if err != nil {
		return err
	}
	start := time.Now()
	g, err := p.Build(ctx, docs)
	if err != nil {
		return err
	}
	if err := graph.Save(o.out, g); err != nil {
		return err
	}
	fmt.Printf("Built %s: %d nodes, %d edges from %d documents with %s (dimension %d) in %s; model answers cached in %s.\n",
		o.out, len(g.Nodes), len(g.Edges), len(docs), g.Embedder, g.Dim, time.Since(start).Round(time.Millisecond), o.cache)
	ix, err := p.Open(ctx, g)
	if err != nil {
		return err
	}
	for _, q := range o.questions {
		res, err := ix.Ask(ctx, q, flowreader.Options{})
		if err != nil {
			return fmt.Errorf("%q: %w", q, err)
		}
		fmt.Printf("\nQ: %s\nA: %s\n", q, res.Text)
		for _, c := range res.Citations {
			fmt.Printf("   cited: %s [%s]: %q\n", c.Doc, c.NodeID, c.Quote)
		}
		t := res.Trace
		fmt.Printf("   %s routed %.2f of %.2f (σ %.2f); %d chains read, %d supported; %d model calls, %d+%d tokens; gate: %s\n",
			res.Routing.Router, res.Routing.Routed, res.Routing.Demand, res.Routing.Saturation,
			t.ChainsRead, t.Supported, t.Calls, t.PromptTokens, t.CompletionTokens, gate(res.System2))
	}
	return nil
}

func gate(s2 *flowreader.System2) string {
	switch {
	case s2 == nil:
		return "off"
	case len(s2.Triggers) == 0:
		return "passed"
	case s2.Ran:
		return "fired, System 2 ran"
	}
	return "fired, System 2 skipped: " + s2.Skipped
}
