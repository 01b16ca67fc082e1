package flowreader_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAdaptersUsePublicAPI: the adapter modules under adapters/ import the
// root module's public packages only, so that an adapter release is not
// tied to one root commit through its internals.
func TestAdaptersUsePublicAPI(t *testing.T) {
	files := 0
	err := filepath.WalkDir("adapters", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(path, "github.com/flowreader/flowreader/") && strings.Contains(path+"/", "/internal/") {
				t.Errorf("%s imports %s", p, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no adapter source found: the check does not bite")
	}
}
