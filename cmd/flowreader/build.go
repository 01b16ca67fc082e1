package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/graph/ingest"
	"github.com/flowreader/flowreader/internal/termsafe"
	"github.com/flowreader/flowreader/llm"
)

func buildCommand() command {
	return command{
		name:    "build",
		summary: "build a graph file from documents (MinerU folders, Markdown, text, PDF)",
		run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return runBuild(ctx, args, stdout, stderr, os.Getenv)
		},
	}
}

func runBuild(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) (err error) {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "graph file to write (required unless --store); written atomically")
	storeURL := fs.String("store", "", "PostgreSQL URL of a flowreader store to build into instead of a file (with --collection)")
	collection := fs.String("collection", "", "the store's collection to create, or with --update to update (with --store)")
	cacheDir := fs.String("cache", "", "folder for a content-addressed cache of model answers and embeddings: a re-build of unchanged documents makes no model calls and an interrupted build resumes")
	preset := fs.String("preset", "aspects", presetUsage)
	root := fs.String("root", "", "folder that stored image paths are relative to (default: the current folder if every PATH is inside it, else the PATHs' common parent); recorded in the graph file, where ask finds it")
	concurrency := fs.Int("concurrency", 0, "model and embedder calls in flight (0 = 4)")
	quiet := fs.Bool("quiet", false, "no progress on stderr (skipped files and warnings are still printed)")
	strict := fs.Bool("strict", false, "fail when a document file is skipped or loses content (a page, an item or text not read; marked lost:); warnings that lose none, such as a figure without its image or a page read by OCR, and files of other types do not fail it")
	ocrLang := fs.String("ocr-lang", "", "languages tesseract reads scanned PDF pages in: its codes joined by + (eng, deu+eng, chi_sim; default eng); each needs its Debian package tesseract-ocr-<code>, _ written - (tesseract-ocr-chi-sim)")
	verbose := fs.Bool("verbose", false, "list every warning of a file (by default warnings of one kind repeated three times or more are one line)")
	useInt8 := fs.Bool("int8", false, "store embeddings as int8 with a scale per row: a quarter of the memory and file size of float32 (with --update, the graph keeps its own format)")
	assets := fs.String("assets", "", "folder for the images rendered from PDF pages (figure and table regions), never inside a PATH (default: GRAPHFILE without its extension plus .assets, beside it)")
	update := fs.Bool("update", false, "update GRAPHFILE in place when it exists: analyse and embed only the documents added or changed since it was built, drop the removed ones (the result equals a fresh build)")
	prune := fs.Bool("prune", false, "with --update and FILE arguments: drop the graph's documents that are not among them (without it such an update is refused)")
	var ep endpoints
	ep.register(fs)
	var tel telemetryFlags
	tel.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: flowreader build -o GRAPHFILE [flags] PATH...
       flowreader build --store URL --collection NAME [--update] [flags] PATH...

Ingests files and folders (MinerU output folders holding a
*content_list.json or *content_list_v2.json, Markdown .md and .mdx, plain
text .txt, PDF text .pdf; folders are walked in lexical order), builds the
content graph (node analysis, embeddings, reading-order and kNN edges, and
with a model the LLM evolution rounds) and saves it to GRAPHFILE. The file
records the embedder's name and dimension (ask refuses a graph whose
dimension differs from its embedder's) and where the images are (ask finds
them with no flag).

Every file read is listed on stderr with its reader and item count, every
file skipped with the reason (empty, binary, undecodable, malformed, a link
out of the folder; a PDF nothing could read names the tool that would),
and warnings for what was repaired or dropped inside a file. Warnings that
lost content are marked lost: (a scanned page without OCR, a page over a
limit, invalid UTF-8 replaced, a content list not read); the others only
miss decoration or say how the content was read (a missing image, Latin-1
text decoded, a page read by OCR). Scanned pages are read by tesseract
when it is installed, in --ocr-lang's languages, page by page on stderr.
Warnings of one kind repeated three
times or more are one line; --verbose lists them all. A bad file is
skipped; --strict fails the build on skipped files and lost content only.
GRAPHFILE's folder is checked before any work; Ctrl-C stops the build and
keeps the previous GRAPHFILE.

Nothing is written into the collection: the images Poppler renders from
PDF pages (figure and table regions) go to --assets, by default the folder
GRAPHFILE.assets beside the graph file (harbour.frg: harbour.assets/),
and the graph records where they are.

Models: with no model flags or %s/%s/%s/%s
set, the embedded defaults are used (offline GloVe embedder, deterministic
analysis, no evolution) and build says so. The API key is read from $%s
only (never a flag).

With --update and an existing GRAPHFILE, the documents are compared by ID
and content with the ones the graph was built from, and only the changes
are applied: new and changed documents are analysed and embedded, removed
ones dropped, and the edges they touch recomputed; the file written is the
one a fresh build would write. Given files (not only folders), an update
that would drop documents not among them is refused unless --prune says
so: updating one edited file must not empty the rest of the graph. Graphs
built with a model (LLM evolution
rounds), with other settings or by an older version cannot be updated:
build them once without --update.

With --store and --collection the graph goes into a collection of a
PostgreSQL database (created or migrated on first use) instead of a file,
in one transaction. --update updates an existing collection to the
documents of the PATHs (the documents whose content did not change keep
their rows); an update refuses to commit when another writer updated the
collection during the build, and writes nothing.

Example:
  flowreader build -o harbour.frg examples/quickstart/docs
  flowreader build --update -o harbour.frg examples/quickstart/docs
  flowreader build --store postgres://localhost/flowreader --collection harbour examples/quickstart/docs

flags:
`, envLLMURL, envLLMModel, envEmbedURL, envEmbedModel, envAPIKey)
		fs.PrintDefaults()
	}
	pathArgs, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *storeURL != "" && *out != "":
		return fmt.Errorf("-o and --store exclude each other: %w", errUsage)
	case *storeURL != "" && *collection == "":
		return fmt.Errorf("--store needs --collection NAME: %w", errUsage)
	case *storeURL == "" && *collection != "":
		return fmt.Errorf("--collection needs --store URL: %w", errUsage)
	case *storeURL == "" && *out == "":
		return fmt.Errorf("-o GRAPHFILE is required (or --store URL --collection NAME): %w", errUsage)
	}
	if len(pathArgs) == 0 {
		return fmt.Errorf("no PATH to ingest: %w", errUsage)
	}
	if *concurrency < 0 {
		return fmt.Errorf("--concurrency %d is negative: %w", *concurrency, errUsage)
	}
	cfg, err := presetConfig(*preset)
	if err != nil {
		return err
	}
	if cfg.Logger, err = tel.logger(stderr); err != nil {
		return err
	}
	ep.log = cfg.Logger
	ms, err := ep.resolve(getenv)
	if err != nil {
		return err
	}
	flush, err := tel.tracing(&cfg)
	if err != nil {
		return err
	}
	defer func() {
		if ferr := flush(); ferr != nil && err == nil {
			err = ferr
		}
	}()
	paths, base, err := absPaths(pathArgs, *root)
	if err != nil {
		return err
	}
	var target *storeTarget
	if *storeURL != "" {
		if target, err = openTarget(ctx, *storeURL, *collection, *update); err != nil {
			return err
		}
		defer target.s.Close()
	} else if err := checkOutput("-o", *out, paths); err != nil {
		return err
	}
	assetsDir, err := assetsFolder(*out, *assets, paths)
	if err != nil {
		return err
	}
	docs, firstSkip, err := ingestAll(ctx, paths, stderr, ingestOptions{quiet: *quiet, strict: *strict, verbose: *verbose, assets: assetsDir, ocrLang: *ocrLang})
	if err != nil {
		return err
	}
	if usesFolder(docs, assetsDir) {
		// Image paths are stored relative to one root: the folder that
		// holds both the collection and the rendered images.
		if *root != "" && !within(base, assetsDir) {
			return fmt.Errorf("--assets %s is outside --root %s: give an assets folder inside it: %w", termsafe.Text(assetsDir), termsafe.Text(*root), errUsage)
		}
		base = commonDir([]string{base, assetsDir})
	}
	items := 0
	for _, d := range docs {
		items += len(d.Items)
	}
	if items == 0 {
		if firstSkip != "" {
			return fmt.Errorf("no content found in %s (%s)", strings.Join(pathArgs, ", "), firstSkip)
		}
		return fmt.Errorf("no content found in %s", strings.Join(pathArgs, ", "))
	}

	cfg.Embedder, cfg.Model = ms.embedder, ms.model
	cfg.Concurrency = *concurrency
	cfg.ImageRoot = base
	cfg.Int8Embeddings = *useInt8
	if *cacheDir != "" {
		cfg.Cache = llm.DirStore(*cacheDir)
	}
	var bar *progressBar
	if !*quiet {
		bar = newProgressBar(stderr)
		cfg.Progress = bar.update
	}
	p, err := flowreader.New(cfg)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, d := range ms.describe {
		fmt.Fprintln(stderr, "build: remote", d)
	}
	if ms.embedder == nil {
		fmt.Fprintf(stderr, "build: note: no embedding server configured: using the embedded default embedder %s (offline, dimension %d); ask must use it too\n",
			embedderName(p.Embedder()), p.Embedder().Dimension())
	}
	if ms.model == nil {
		fmt.Fprintln(stderr, "build: note: no model configured: deterministic offline node analysis, no LLM links or evolution rounds")
	}
	start := time.Now()
	var old *graph.Graph
	if *update && target == nil {
		if old, err = loadForUpdate(*out, stderr); err != nil {
			return err
		}
		if old != nil && old.Int8Embeddings() != *useInt8 {
			fmt.Fprintf(stderr, "build: note: %s keeps its %s embeddings (an update keeps the graph's format; build without --update to change it)\n",
				termsafe.Text(*out), map[bool]string{false: "float32", true: "int8"}[old.Int8Embeddings()])
		}
	}
	if old != nil && !*prune {
		if err := checkPrune(old, docs, pathArgs); err != nil {
			return err
		}
	}
	var g *graph.Graph
	var diff graph.Diff
	if old != nil {
		g, diff, err = p.Update(ctx, old, docs)
	} else {
		g, err = p.Build(ctx, docs)
	}
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		if errors.Is(err, graph.ErrUpdate) {
			return fmt.Errorf("%w; build it once without --update", err)
		}
		return err
	}
	if err := ctx.Err(); err != nil { // interrupted: keep the previous output
		return err
	}
	if target != nil {
		return target.write(ctx, g, docs, stdout)
	}
	changes := ""
	if old != nil {
		changes = printDiff(stdout, diff, len(docs))
	}
	removeStaleTemps(*out, stderr)
	if err := graph.Save(*out, g); err != nil {
		return err
	}
	format := ""
	if g.Int8Embeddings() {
		format = ", int8"
	}
	fmt.Fprintf(stdout, "wrote %s: %d nodes, %d edges from %d documents%s; embedder %s (dimension %d%s); %s\n",
		termsafe.Text(*out), len(g.Nodes), len(g.Edges), len(docs), changes, termsafe.Text(orUnknown(g.Embedder)), g.Dim, format, time.Since(start).Round(time.Millisecond))
	if hasImages(g) && !*quiet {
		fmt.Fprintf(stderr, "build: image paths are relative to %s, recorded in %s (ask finds them there; --images overrides)\n", termsafe.Text(base), termsafe.Text(*out))
	}
	return nil
}

// absPaths makes the PATHs absolute and picks the image root: root when
// given, else the current folder when every path is inside it, else the
// paths' deepest common folder.
func absPaths(args []string, root string) ([]string, string, error) {
	paths := make([]string, len(args))
	for i, a := range args {
		p, err := filepath.Abs(a)
		if err != nil {
			return nil, "", err
		}
		if _, err := os.Stat(p); err != nil {
			return nil, "", fmt.Errorf("cannot read %s: %w", a, err)
		}
		paths[i] = p
	}
	if root != "" {
		r, err := filepath.Abs(root)
		if err != nil {
			return nil, "", err
		}
		for i, p := range paths {
			if !within(r, p) {
				return nil, "", fmt.Errorf("%s is outside --root %s: %w", args[i], root, errUsage)
			}
		}
		return paths, r, nil
	}
	if wd, err := os.Getwd(); err == nil {
		inside := true
		for _, p := range paths {
			inside = inside && within(wd, p)
		}
		if inside {
			return paths, filepath.Clean(wd), nil
		}
	}
	return paths, commonDir(paths), nil
}

// commonDir is the deepest folder holding every path (a file's folder for
// a single file).
func commonDir(paths []string) string {
	common := paths[0]
	if st, err := os.Stat(common); err == nil && !st.IsDir() {
		common = filepath.Dir(common)
	}
	for _, p := range paths[1:] {
		for !within(common, p) {
			common = filepath.Dir(common)
		}
	}
	return common
}

// within reports whether p is dir or inside it.
func within(dir, p string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && (r == "." || filepath.IsLocal(r))
}

// ingestAll ingests every path and prints its report. With one path,
// document IDs are ingest's (relative to the path); with several, they are
// prefixed with each path relative to the paths' common folder, so that
// two folders holding a file of the same name stay distinct. A file that
// cannot be read is skipped with a warning; with strict, it fails the
// build once every path has been reported.
// ingestOptions are the build flags ingestAll follows.
type ingestOptions struct {
	quiet, strict, verbose bool
	assets                 string // the folder for rendered images
	ocrLang                string // tesseract's languages
}

func ingestAll(ctx context.Context, paths []string, stderr io.Writer, o ingestOptions) (docs []graph.Document, firstSkip string, err error) {
	quiet, strict, assets := o.quiet, o.strict, o.assets
	seen := map[string]string{}
	base := commonDir(paths)
	bad := 0
	for _, p := range paths {
		rel, _ := filepath.Rel(base, p)
		// Each PATH's images under its place among the PATHs, so that
		// two PATHs holding a.pdf do not share a folder.
		cfg := ingest.Config{Assets: filepath.Join(assets, rel), OCRLanguage: o.ocrLang}
		if !quiet {
			// OCR takes seconds a page: say where it is.
			cfg.Progress = func(done, total int, stage string) {
				if done < total {
					fmt.Fprintf(stderr, "build: %s: page %d of %d scanned pages\n", termsafe.Text(stage), done+1, total)
				} else {
					fmt.Fprintf(stderr, "build: %s: %d scanned pages read\n", termsafe.Text(stage), total)
				}
			}
		}
		if len(paths) == 1 {
			cfg.Assets = assets
		}
		if !quiet {
			fmt.Fprintf(stderr, "build: reading %s\n", termsafe.Text(p))
		}
		ds, rep, err := cfg.Read(ctx, p)
		if err != nil {
			return nil, "", err
		}
		for _, f := range rep.Files {
			if f.Err != nil && firstSkip == "" {
				firstSkip = filepath.Base(f.Path) + ": " + f.Err.Error()
			}
		}
		// Skipped files and warnings are printed even with --quiet, since
		// the graph then lacks something.
		bad += printReport(stderr, rep, quiet, o.verbose)
		rel = filepath.ToSlash(rel)
		st, _ := os.Stat(p)
		single := len(ds) == 1 && (!st.IsDir() || isMinerU(p))
		items := 0
		for i := range ds {
			switch {
			case len(paths) == 1 || rel == ".":
			case single:
				ds[i].ID = rel
			default:
				ds[i].ID = rel + "/" + ds[i].ID
			}
			if prev, ok := seen[ds[i].ID]; ok {
				return nil, "", fmt.Errorf("document %q comes from both %s and %s (give each PATH once)", ds[i].ID, prev, p)
			}
			seen[ds[i].ID] = p
			items += len(ds[i].Items)
		}
		if !quiet {
			fmt.Fprintf(stderr, "build: ingested %s: %d documents, %d items\n", termsafe.Text(p), len(ds), items)
		}
		docs = append(docs, ds...)
	}
	if strict && bad > 0 {
		return nil, "", fmt.Errorf("--strict: %d document files skipped or with content lost (listed above)", bad)
	}
	return docs, firstSkip, nil
}

// assetsFolder is the folder for rendered images: flag when given, else
// GRAPHFILE without its extension plus ".assets", beside it; absolute. It
// may not lie inside a PATH: the build never writes into the collection.
func assetsFolder(out, flag string, paths []string) (string, error) {
	dir := flag
	if dir == "" {
		dir = strings.TrimSuffix(out, filepath.Ext(out)) + ".assets"
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() && within(p, abs) || abs == p {
			return "", fmt.Errorf("--assets %s is inside %s: images are never written into the collection; give a folder outside it: %w", termsafe.Text(dir), termsafe.Text(p), errUsage)
		}
	}
	if st, err := os.Stat(abs); err == nil && !st.IsDir() {
		return "", fmt.Errorf("--assets %s is not a folder: %w", termsafe.Text(dir), errUsage)
	}
	return abs, nil
}

// usesFolder reports whether a document's images lie in dir.
func usesFolder(docs []graph.Document, dir string) bool {
	for _, d := range docs {
		if d.Root == "" || !within(dir, d.Root) {
			continue
		}
		for _, it := range d.Items {
			if it.Image != nil {
				return true
			}
		}
	}
	return false
}

// isMinerU reports whether dir is one MinerU output folder (ingest.Path
// then returns it as a single document named after the folder).
func isMinerU(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*content_list.json"))
	m2, _ := filepath.Glob(filepath.Join(dir, "*content_list_v2.json"))
	return len(m)+len(m2) > 0
}

func hasImages(g *graph.Graph) bool {
	for i := range g.Nodes {
		if g.Nodes[i].Image != nil {
			return true
		}
	}
	return false
}

func orUnknown(s string) string {
	if s == "" {
		return "(unnamed)"
	}
	return s
}

// progressBar shows build progress: a bar redrawn in place with \r on a
// terminal, plain lines (stage start, every quarter, stage end) otherwise,
// so that logs stay readable.
type progressBar struct {
	w      io.Writer
	tty    bool
	stage  string
	last   int // last quarter printed (plain mode)
	drawn  bool
	start  time.Time
	stageT time.Time
}

func newProgressBar(w io.Writer) *progressBar {
	b := &progressBar{w: w, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		b.tty = term.IsTerminal(int(f.Fd()))
	}
	return b
}

// update is the facade's Progress callback (never called concurrently).
func (b *progressBar) update(done, total int, stage string) {
	if stage != b.stage {
		b.endLine()
		b.stage, b.last, b.stageT = stage, -1, time.Now()
	}
	if b.tty {
		const width = 30
		fill := width
		if total > 0 {
			fill = done * width / total
		}
		fmt.Fprintf(b.w, "\rbuild: %-10s [%s%s] %d/%d", stage, strings.Repeat("#", fill), strings.Repeat(".", width-fill), done, total)
		b.drawn = true
		if done >= total {
			b.endLine()
		}
		return
	}
	q := 4
	if total > 0 {
		q = done * 4 / total
	}
	if q != b.last {
		b.last = q
		fmt.Fprintf(b.w, "build: %s %d/%d\n", stage, done, total)
	}
}

func (b *progressBar) endLine() {
	if b.drawn {
		fmt.Fprintf(b.w, " (%s)\n", time.Since(b.stageT).Round(time.Millisecond))
		b.drawn = false
	}
}

// finish ends a half-drawn bar (for example after an error).
func (b *progressBar) finish() { b.endLine() }
