package ingest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// Path ingests a file or a folder. A folder holding a *content_list.json is
// one MinerU document (its sub-folders are its images); any other folder is
// walked for MinerU folders and .md/.markdown, .txt and .pdf files, in
// lexical path order. Document IDs are slash paths relative to p (a file or
// MinerU folder given directly keeps its base name). Other files inside a
// walked folder are skipped; a single file of another type is
// ErrUnsupported.
func Path(p string) ([]graph.Document, error) { return Config{}.Path(p) }

// Path is the package-level Path with c's settings.
func (c Config) Path(p string) ([]graph.Document, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if !st.IsDir() {
		d, ok, err := c.file(p)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrUnsupported, p)
		}
		return []graph.Document{d}, nil
	}
	if _, err := contentList(p); err == nil {
		d, err := c.MinerU(p)
		if err != nil {
			return nil, err
		}
		return []graph.Document{d}, nil
	}
	var docs []graph.Document
	err = filepath.WalkDir(p, func(q string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(p, q)
		id := filepath.ToSlash(rel)
		if e.IsDir() {
			if q == p {
				return nil
			}
			if strings.HasPrefix(e.Name(), ".") {
				return filepath.SkipDir
			}
			if _, err := contentList(q); err != nil {
				return nil
			}
			d, err := c.MinerU(q)
			if err != nil {
				return err
			}
			d.ID = id
			docs = append(docs, d)
			return filepath.SkipDir
		}
		d, ok, err := c.file(q)
		if err != nil || !ok {
			return err
		}
		d.ID = id
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].ID < docs[j].ID })
	return docs, nil
}

// file ingests one file by extension; ok is false for unknown types.
func (c Config) file(p string) (d graph.Document, ok bool, err error) {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".md", ".markdown":
		d, err = c.Markdown(p)
	case ".txt", ".text":
		d, err = c.Text(p)
	case ".pdf":
		d, err = c.PDF(p)
	default:
		return d, false, nil
	}
	return d, true, err
}
