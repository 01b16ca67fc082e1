package ingest

import (
	"context"
	"errors"
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
//
// Only regular files whose real path stays inside p (inside its folder for
// a single file) are read; symbolic links to folders are not followed. In a
// walk, a file that breaks this rule is skipped and reported to
// [Config.Skipped]; given directly, it is an error.
func Path(p string) ([]graph.Document, error) { return Config{}.Path(p) }

// Path is the package-level Path with c's settings.
func (c Config) Path(p string) ([]graph.Document, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if !st.IsDir() {
		box, err := confineTo(filepath.Dir(p))
		if err != nil {
			return nil, err
		}
		d, ok, err := c.file(box, p)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrUnsupported, p)
		}
		return []graph.Document{d}, nil
	}
	box, err := confineTo(p)
	if err != nil {
		return nil, err
	}
	if _, err := contentList(p); err == nil {
		d, err := c.mineru(box, p)
		if err != nil {
			return nil, err
		}
		return []graph.Document{d}, nil
	}
	var docs []graph.Document
	// Walk the real folder, so that a root reached through a symbolic link
	// is walked too (WalkDir does not follow links), but read files by
	// their path under p: documents' Root and image paths stay as given.
	err = filepath.WalkDir(box.real, func(q string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(box.real, q)
		id := filepath.ToSlash(rel)
		shown := filepath.Join(p, rel)
		if e.IsDir() {
			if q == box.real {
				return nil
			}
			if strings.HasPrefix(e.Name(), ".") {
				return filepath.SkipDir
			}
			list, err := contentList(shown)
			if err != nil {
				return nil
			}
			d, err := c.mineru(box, shown)
			if c.skip(err, list) {
				return filepath.SkipDir
			}
			if err != nil {
				return err
			}
			d.ID = id
			docs = append(docs, d)
			return filepath.SkipDir
		}
		d, ok, err := c.file(box, shown)
		if c.skip(err, shown) {
			return nil
		}
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

// skip reports whether err is a file the confinement rule refused, and
// then tells c.Skipped about it under the name shown.
func (c Config) skip(err error, shown string) bool {
	var r *refused
	if !errors.As(err, &r) {
		return false
	}
	if c.Skipped != nil {
		c.Skipped(shown, r.err)
	}
	return true
}

// file ingests one file of box by extension; ok is false for unknown types,
// which are not opened.
func (c Config) file(box folder, p string) (d graph.Document, ok bool, err error) {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".md", ".markdown":
		d, err = c.markdown(box, p)
	case ".txt", ".text":
		d, err = c.text(box, p)
	case ".pdf":
		d, _, err = c.pdf(context.TODO(), box, p)
	default:
		return d, false, nil
	}
	return d, true, err
}
