package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/lab/eval"
	"github.com/flowreader/flowreader/internal/llmutil"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/llm/local"
	"github.com/flowreader/flowreader/llm/openai"
)

func evalCommand() command {
	return command{
		name:    "eval",
		summary: "measure evidence recall of routers on datasets with gold evidence",
		run:     runEval,
	}
}

// defaultEvalRouters is the comparison run when --routers is not given.
const defaultEvalRouters = "aspects,aspects-paper,classic,topk,topk-dense,mmr,ppr"

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	reg := eval.DefaultRegistry()
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	datasets := fs.String("dataset", "", "dataset(s), comma-separated: "+strings.Join(eval.Datasets(), "|"))
	data := fs.String("data", "", "dataset file or folder, one per --dataset (comma-separated) or one folder in the layout of ../shared/data for all")
	budgets := fs.String("budget", "16", "budget(s) of distinct nodes read, comma-separated (e.g. 8,12,16,24)")
	routers := fs.String("routers", defaultEvalRouters, "routers, comma-separated")
	selectors := fs.String("selector", "", "selector(s) for flow routers, comma-separated: "+strings.Join(reg.Selectors(), "|")+" (default: each router's own; aspects and aspects-paper: annealed, as the facade's presets; others greedy)")
	baseline := fs.String("baseline", "topk", "router the paired differences are taken against (\"\" = none)")
	out := fs.String("out", "", "output folder for results.md, results.csv and recall_<dataset>.png (required)")
	limit := fs.Int("limit", 0, "evaluate the first N questions of each dataset (0 = all)")
	embName := fs.String("embedder", "local", "node and question embedder: local (GloVe, offline), remote (OpenAI-compatible server from FLOWREADER_EMBED_* / FLOWREADER_LLM_* variables) or hash (feature hashing; smoke tests only)")
	seed := fs.Uint64("seed", 0, "seed of the FeTaQA distractor draw and of the bootstrap")
	resamples := fs.Int("bootstrap", 2000, "bootstrap resamples for the paired intervals")
	workers := fs.Int("concurrency", 2, "questions evaluated in parallel")
	window := fs.Int("window", 0, "reading-order window of graph edges (0 = 3, -1 = none)")
	knn := fs.Int("knn", 0, "kNN edges per node (0 = 5, -1 = none)")
	graphMode := fs.String("graph", "direct", "graph construction: direct (nodes embedded from their content, as METHOD B.13's prototype) or builder (graph.Builder's offline analysis: lead summaries and keywords)")
	judge := fs.Bool("judge", false, "answer-accuracy mode: answer with the pipeline's VLM reader (one worker per chain, question type, reasoner; text only) on the FLOWREADER_LLM_* model and score with the paper's judge prompt (P7); FLOWREADER_JUDGE_MODEL names a separate judge model on the same server")
	answerF1 := fs.Bool("answer-f1", false, "answer the extractive questions (QASPER, PaperTab) with the offline extractive reader over each router's evidence and score QASPER's answer F1 (results.md table, DIR/answer_f1.csv)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	linksMode := fs.String("links", "none", linksUsage)
	var augments augmentFlag
	fs.Var(&augments, "augment", "also evaluate each dataset with near-duplicates added (repeatable; rows \"<dataset>+<name>\"): \"dup\" for the default mix, or key=value pairs name, seed, copies, rate, editrate, exact, edit, reorder, boiler (docs/dedup.md)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: flowreader eval --dataset NAME[,NAME] --data PATH[,PATH] --out DIR [flags]

Builds one content graph per question's document set (content embeddings,
reading-order and kNN edges; no LLM analysis), scores each question once per
scoring, runs every router, caps the selected chains at each budget of
distinct nodes, and reports evidence recall (gold units covered), the
all-gold-covered rate and document recall, per dataset and macro, with paired
bootstrap intervals and McNemar tests against --baseline. Writes
DIR/results.md, DIR/results.csv (header: %s)
DIR/recall_<dataset>.png and DIR/questions.csv (per-question figures);
accuracy mode adds DIR/accuracy.csv and --answer-f1 DIR/answer_f1.csv.

Example (the dev slices):
  flowreader eval --dataset fetaqa,qasper,papertab --data ../shared/data \
    --budget 8,12,16,24 --out results

routers:
`, strings.Join(eval.CSVHeader, ","))
		for _, d := range reg.Routers() {
			fmt.Fprintf(fs.Output(), "  %-14s %s\n", d.Name, d.Doc)
		}
		fmt.Fprintln(fs.Output(), "\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: %w", fs.Args(), errUsage)
	}
	if *datasets == "" || *data == "" || *out == "" {
		fs.Usage()
		return fmt.Errorf("--dataset, --data and --out are required: %w", errUsage)
	}
	names, paths := splitList(*datasets), splitList(*data)
	if len(paths) == 1 && len(names) > 1 {
		for len(paths) < len(names) {
			paths = append(paths, paths[0])
		}
	}
	if len(paths) != len(names) {
		return fmt.Errorf("%d datasets but %d --data paths: %w", len(names), len(paths), errUsage)
	}
	bs, err := parseBudgets(*budgets)
	if err != nil {
		return fmt.Errorf("--budget: %v: %w", err, errUsage)
	}
	routerNames := splitList(*routers)
	specs, err := reg.Specs(routerNames, splitList(*selectors))
	if err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	if *baseline != "" && !contains(routerNames, *baseline) {
		return fmt.Errorf("--baseline %q is not among --routers: %w", *baseline, errUsage)
	}
	emb, err := evalEmbedder(*embName)
	if err != nil {
		return err
	}

	var sets []*eval.Dataset
	var notes []string
	for i, name := range names {
		ds, err := eval.Load(name, paths[i], eval.LoadOptions{Limit: *limit, Seed: *seed})
		if err != nil {
			return err
		}
		sets = append(sets, ds)
		notes = append(notes, ds.Notes...)
		fmt.Fprintf(stderr, "eval: %s: %d questions from %s\n", name, len(ds.Questions), paths[i])
	}
	for _, a := range augments {
		for _, ds := range sets[:len(names)] {
			aug := a.Apply(ds)
			sets = append(sets, aug)
			notes = append(notes, aug.Notes[len(ds.Notes):]...)
		}
	}
	run := &eval.Runner{
		Embedder:    emb,
		Scorings:    reg.Scorings(),
		Routers:     specs,
		Budgets:     bs,
		Graph:       eval.GraphOptions{Window: *window, KNN: *knn},
		Concurrency: *workers,
	}
	links, err := linkEdges(*linksMode)
	if err != nil {
		return err
	}
	run.Graph.Links = links
	switch *graphMode {
	case "direct":
	case "builder":
		b := &graph.Builder{Embedder: emb, Window: *window, Concurrency: 1}
		if *knn != 0 {
			b.KNN = *knn
		}
		run.Graph.Build = func(ctx context.Context, docs []graph.Document) (*graph.Graph, error) {
			g, err := b.Build(ctx, docs)
			if err != nil {
				return nil, err
			}
			return addLinks(g, links)
		}
	default:
		return fmt.Errorf("unknown --graph %q (direct or builder): %w", *graphMode, errUsage)
	}
	if *answerF1 {
		run.Extract = eval.ExtractiveAnswerer(emb)
	}
	if *judge {
		if err := accuracyMode(run); err != nil {
			return err
		}
	}
	start := time.Now()
	if !*quiet {
		run.Progress = func(done, total int) {
			if done == total || done%25 == 0 {
				fmt.Fprintf(stderr, "eval: %d/%d questions (%s)\n", done, total, time.Since(start).Round(time.Second))
			}
		}
	}
	res, err := run.Run(ctx, sets...)
	if err != nil {
		return err
	}
	rows := res.Rows()
	var cmps []eval.Comparison
	if *baseline != "" {
		if cmps, err = res.Compare(*baseline, *resamples, *seed); err != nil {
			return err
		}
	}
	cmps = append(cmps, res.CompareVariants(*resamples, *seed)...)
	gdesc := fmt.Sprintf("content embeddings (no LLM summaries), reading-order window %d, kNN %d", graphOpt(*window, 3), graphOpt(*knn, 5))
	if *graphMode == "builder" {
		gdesc = "graph.Builder offline analysis (lead summaries and keywords)"
	}
	notes = append(notes, fmt.Sprintf("embedder %s; graphs: %s; budgets cap distinct nodes; command: flowreader eval %s",
		embedderName(emb), gdesc, strings.Join(args, " ")))
	if err := eval.WriteReport(*out, rows, cmps, notes); err != nil {
		return err
	}
	var qs bytes.Buffer
	if err := eval.WriteQuestions(&qs, res); err != nil {
		return err
	}
	if err := eval.WriteFileAtomic(filepath.Join(*out, "questions.csv"), qs.Bytes()); err != nil {
		return err
	}
	return eval.WriteMarkdown(stdout, rows, cmps, nil)
}

func graphOpt(v, d int) int {
	if v == 0 {
		return d
	}
	return max(v, 0)
}

func evalEmbedder(name string) (llm.Embedder, error) {
	switch name {
	case "local":
		g := local.Embedder()
		if _, err := g.Embed(context.Background(), nil, llm.KindDocument); err != nil { // decodes the table
			return nil, fmt.Errorf("local embedder: %w", err)
		}
		return g, nil
	case "remote":
		cfg := openai.FromEnv()
		e, err := openai.NewEmbedder(cfg)
		if err != nil {
			return nil, fmt.Errorf("remote embedder (set FLOWREADER_EMBED_URL and FLOWREADER_EMBED_MODEL): %w", err)
		}
		return llm.WrapEmbedder(e, llm.Middleware{Cache: llmutil.NewMemoryStore(), Attempts: 4}), nil
	case "hash":
		return &hashEmbedder{fake.Embedder{Dim: 256}}, nil
	}
	return nil, fmt.Errorf("unknown --embedder %q (local, remote or hash): %w", name, errUsage)
}

// hashEmbedder is the feature-hashing embedder under the name its graphs
// and reports carry.
type hashEmbedder struct{ fake.Embedder }

func (h *hashEmbedder) Name() string { return fmt.Sprintf("fake-hash-%d", h.Dimension()) }

func embedderName(e llm.Embedder) string {
	if n, ok := e.(llm.Namer); ok {
		return n.Name()
	}
	return fmt.Sprintf("%T", e)
}

// accuracyMode configures answering and judging from the environment: the
// answers are the pipeline's VLM reader's (eval.VLMAnswerer), so a judged
// run measures what flowreader answers.
func accuracyMode(run *eval.Runner) error {
	cfg := openai.FromEnv()
	chat, err := openai.NewChat(cfg)
	if err != nil {
		return fmt.Errorf("--judge needs a model server (FLOWREADER_LLM_URL, FLOWREADER_LLM_MODEL): %w", err)
	}
	run.Answer = eval.VLMAnswerer(llm.Wrap(chat, llm.Middleware{Attempts: 4}))
	judge := llm.Model(chat)
	if m := os.Getenv("FLOWREADER_JUDGE_MODEL"); m != "" {
		jc := cfg
		jc.Model = m
		if judge, err = openai.NewChat(jc); err != nil {
			return fmt.Errorf("judge model: %w", err)
		}
	}
	run.JudgeModel = llm.Wrap(judge, llm.Middleware{Attempts: 4})
	return nil
}

// augmentFlag collects --augment specs.
type augmentFlag []eval.Augment

func (f *augmentFlag) String() string {
	var out []string
	for _, a := range *f {
		out = append(out, a.String())
	}
	return strings.Join(out, " ")
}

func (f *augmentFlag) Set(v string) error {
	a, err := eval.ParseAugment(v)
	if err != nil {
		return err
	}
	*f = append(*f, a)
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseBudgets(s string) ([]int, error) {
	var out []int
	for _, p := range splitList(s) {
		b, err := strconv.Atoi(p)
		if err != nil || b <= 0 {
			return nil, fmt.Errorf("bad budget %q (want a positive integer)", p)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, errors.New("no budget")
	}
	return out, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
