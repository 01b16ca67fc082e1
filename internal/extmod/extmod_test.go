package extmod

import (
	"bufio"
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

const rootModule = "github.com/flowreader/flowreader"

// TestExternalModule builds a user's module in a temporary folder and runs
// go vet and go test there. It compiles the root module and the adapters'
// dependency trees (about a minute with a cold build cache), so -short
// skips it. GOFLAGS=-mod=mod lets the go command complete the module's
// requirements; the go.sum given is the union of the repository's, so the
// versions are the ones the repository was tested with (see the end for the
// one exception), and the test fails if the go command had to add a module
// the repository does not use.
func TestExternalModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module outside the repository with every adapter's dependencies; run without -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(rel string, data []byte) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	// go.mod: the root and every adapter, each replaced by its checkout.
	goVersion := directive(t, read("go.mod"), "go")
	mods := map[string]string{rootModule: root}
	sums := lines(read("go.sum"))
	adapters, _ := filepath.Glob(filepath.Join(root, "adapters", "*", "go.mod"))
	if len(adapters) == 0 {
		t.Fatal("no adapter modules under adapters/")
	}
	for _, gm := range adapters {
		rel, _ := filepath.Rel(root, filepath.Dir(gm))
		mods[directive(t, read(filepath.Join(rel, "go.mod")), "module")] = filepath.Dir(gm)
		for l := range lines(read(filepath.Join(rel, "go.sum"))) {
			sums[l] = true
		}
		// The adapter's examples, with the helpers of its tests they call.
		name := filepath.Base(filepath.Dir(gm))
		write(filepath.Join(name, "example_test.go"), read(filepath.Join(rel, "example_test.go")))
		write(filepath.Join(name, "helpers_test.go"), extractFuncs(t, read(filepath.Join(rel, "adapter_test.go")), "collection"))
	}
	var gomod strings.Builder
	gomod.WriteString("module example.com/flowreaderuser\n\ngo " + goVersion + "\n\nrequire (\n")
	paths := make([]string, 0, len(mods))
	for m := range mods {
		paths = append(paths, m)
	}
	sort.Strings(paths)
	for _, m := range paths {
		gomod.WriteString("\t" + m + " v0.0.0\n")
	}
	gomod.WriteString(")\n\n")
	for _, m := range paths {
		gomod.WriteString("replace " + m + " => " + strconv.Quote(mods[m]) + "\n")
	}
	write("go.mod", []byte(gomod.String()))
	write("go.sum", joinLines(sums))

	// The test kit's examples: plain testing.TB and testify.
	for _, f := range []string{"example_test.go", "testify_test.go"} {
		write(filepath.Join("kit", f), read(filepath.Join("flowreadertest", f)))
	}
	fixtures, _ := filepath.Glob(filepath.Join(root, "flowreadertest", "testdata", "fixture", "*"))
	if len(fixtures) == 0 {
		t.Fatal("no fixture files under flowreadertest/testdata/fixture")
	}
	for _, f := range fixtures {
		rel, _ := filepath.Rel(filepath.Join(root, "flowreadertest"), f)
		write(filepath.Join("kit", rel), read(filepath.Join("flowreadertest", rel)))
	}
	// The README's adapter snippet, compiled as written.
	write(filepath.Join("readme", "readme.go"), readmeSnippet(t, read("README.md")))

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in the external module: %v\n%s\n--- go.mod:\n%s", strings.Join(args, " "), err, out, gomod.String())
		}
		t.Logf("go %s:\n%s", strings.Join(args, " "), out)
	}
	run("vet", "./...")
	run("test", "-count=1", "./...")

	after, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	// One module requiring both adapters gets, by minimal version
	// selection, the higher of two versions the adapters require of a
	// shared dependency (golang.org/x/exp: langchaingo's, where eino asks
	// for an older one), which neither go.sum lists; that is logged. A
	// module the repository does not use at all is an error.
	known := map[string]bool{}
	for l := range sums {
		known[strings.Fields(l)[0]] = true
	}
	for l := range lines(after) {
		switch {
		case sums[l]:
		case known[strings.Fields(l)[0]]:
			t.Logf("version chosen by combining the modules: %s", l)
		default:
			t.Errorf("the go command added a module the repository does not use: %s", l)
		}
	}
}

// directive returns the argument of the first line of a go.mod that starts
// with key.
func directive(t *testing.T, gomod []byte, key string) string {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == key {
			return f[1]
		}
	}
	t.Fatalf("go.mod has no %s directive", key)
	return ""
}

func lines(b []byte) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out[l] = true
		}
	}
	return out
}

func joinLines(set map[string]bool) []byte {
	ls := make([]string, 0, len(set))
	for l := range set {
		ls = append(ls, l)
	}
	sort.Strings(ls)
	return []byte(strings.Join(ls, "\n") + "\n")
}

// extractFuncs returns a Go file of src's package holding the named
// top-level functions of src and the imports they use.
func extractFuncs(t *testing.T, src []byte, names ...string) []byte {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var body bytes.Buffer
	used := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || !want[fd.Name.Name] {
			continue
		}
		delete(want, fd.Name.Name)
		ast.Inspect(fd, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := s.X.(*ast.Ident); ok {
					used[id.Name] = true
				}
			}
			return true
		})
		body.WriteString("\n")
		if err := printer.Fprint(&body, fset, fd); err != nil {
			t.Fatal(err)
		}
		body.WriteString("\n")
	}
	if len(want) > 0 {
		t.Fatalf("helpers %v not found in the adapter's tests", want)
	}
	var out bytes.Buffer
	out.WriteString("package " + f.Name.Name + "\n\nimport (\n")
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := filepath.Base(path)
		if im.Name != nil {
			name = im.Name.Name
		}
		if used[name] {
			out.WriteString("\t" + name + " " + im.Path.Value + "\n")
		}
	}
	out.WriteString(")\n")
	out.Write(body.Bytes())
	return out.Bytes()
}

// readmeSnippet wraps the README's adapter snippet (the indented block of
// its "Framework adapters" section) in a function whose parameters are the
// values it assumes (a LangChainGo embedder and model, an opened Index).
func readmeSnippet(t *testing.T, readme []byte) []byte {
	t.Helper()
	_, sec, ok := strings.Cut(string(readme), "\n## Framework adapters\n")
	if !ok {
		t.Fatal(`README.md has no "## Framework adapters" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var code []string
	for _, l := range strings.Split(sec, "\n") {
		if strings.HasPrefix(l, "    ") {
			code = append(code, "\t"+strings.TrimPrefix(l, "    "))
		} else if len(code) > 0 {
			break
		}
	}
	if len(code) == 0 {
		t.Fatal("the README's Framework adapters section has no indented code block")
	}
	return []byte(`// Package readme compiles the README's adapter snippet as written.
package readme

import (
	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/adapters/langchaingo"
	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms"
)

// Snippet is the README's code with the values it assumes as parameters.
func Snippet(e embeddings.Embedder, chat llms.Model, ix *flowreader.Index) {
` + strings.Join(code, "\n") + `
	_, _, _, _ = emb, model, p, r
}

var _ = langchaingo.NewRetriever
`)
}
