package pgstore_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flowreadertest"
)

// TestExamplesAgainstPostgreSQL runs the examples that need a server (they
// have no Output comment, so go test only compiles them) against a
// throwaway PostgreSQL server, and checks that each prints what its doc
// comment shows under "Prints:".
func TestExamplesAgainstPostgreSQL(t *testing.T) {
	examples := []struct {
		name string
		run  func()
	}{
		{"ExampleOpen", ExampleOpen},
		{"ExampleStore_Import", ExampleStore_Import},
		{"ExampleStore_Update", ExampleStore_Update},
		{"ExampleStore_Collections", ExampleStore_Collections},
		{"ExampleStore_Drop", ExampleStore_Drop},
		{"ExampleStore_Nodes", ExampleStore_Nodes},
	}
	want := printed(t, "example_more_test.go")
	if len(want) != len(examples) {
		t.Errorf("%d examples show what they print, %d are run here", len(want), len(examples))
	}
	t.Setenv("FLOWREADER_STORE_URL", flowreadertest.PostgreSQL(t))
	for _, ex := range examples {
		w, ok := want[ex.name]
		if !ok {
			t.Errorf("%s: no Prints: block in its doc comment", ex.name)
			continue
		}
		if got := stdout(t, ex.run); got != w {
			t.Errorf("%s printed\n%s\nwant\n%s", ex.name, got, w)
		}
	}
}

// printed returns, by example name, the block indented under "Prints:" in
// the doc comments of file's examples.
func printed(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Doc == nil || !strings.HasPrefix(fd.Name.Name, "Example") {
			continue
		}
		_, block, ok := strings.Cut(fd.Doc.Text(), "Prints:\n")
		if !ok {
			continue
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimLeft(block, "\n"), "\n") {
			if !strings.HasPrefix(l, "\t") {
				break
			}
			lines = append(lines, strings.TrimPrefix(l, "\t"))
		}
		out[fd.Name.Name] = strings.Join(lines, "\n")
	}
	return out
}

// stdout runs f and returns what it wrote to os.Stdout, trimmed.
func stdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() {
		os.Stdout = saved
	}()
	f()
	os.Stdout = saved
	w.Close()
	return strings.TrimSpace(<-done)
}
