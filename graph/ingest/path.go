package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// Report says what one ingestion read and what it left out, file by file
// in walk order: every document read, with its reader and warnings, and
// every file skipped, with the reason. Files of other types that a document
// uses as images are not listed (they are part of that document).
type Report struct {
	Files []FileReport
}

// FileReport is one file (or MinerU folder) an ingestion met.
type FileReport struct {
	// Path is the file as given or as met by the walk: p joined with its
	// path below p for [Config.Read], its slash path in the file system
	// for [Config.FS]. For a MinerU folder it is the content list read.
	Path string
	// Doc is the ID of the document the file became; "" when skipped.
	Doc string
	// Format names how the file was read: "markdown", "mdx", "text",
	// "mineru", "mineru-v2" or "pdf" (with the PDF reader after a colon
	// when known); "" for a file of a type ingest does not read.
	Format string
	// Items is how many items the document has.
	Items int
	// Warnings say what was repaired or left out inside the file: text
	// decoded from UTF-16 or Windows-1252, invalid UTF-8 replaced, an
	// image missing or leaving the document's folder, a PDF page without
	// text. At most 50 are kept, the rest counted in a last one.
	Warnings []string
	// Lost are the warnings that mean content was lost: a page, an item
	// or text not read (a scanned page without OCR, a page over a limit,
	// invalid UTF-8 replaced, a malformed item skipped). The others only
	// miss decoration (a figure kept without its image) or say how the
	// content was read (decoded from Latin-1, read by OCR).
	Lost []string
	// Summary is Warnings with the warnings of one kind repeated three
	// times or more folded into one line ("… (and 69 more like it)").
	Summary []string
	// Err, when set, is why the file was skipped; it wraps ErrUnsupported
	// (unknown type, binary content, not a regular file), ErrEmpty,
	// ErrTooLarge, ErrFormat, ErrPathEscape or fs.ErrNotExist.
	Err error
}

// Path ingests a file or a folder: it is [Config.Read] with the zero
// Config, a background context and the report left out, except that a
// file or MinerU folder given as p that cannot be read is an error. With
// other settings, use Config.Read: a single file that cannot be read is
// then the report's one file, with its Err.
func Path(p string) ([]graph.Document, error) { return Config{}.path(p) }

// path is Path with c's settings.
func (c Config) path(p string) ([]graph.Document, error) {
	docs, rep, single, err := c.read(context.Background(), p)
	if err != nil {
		return nil, err
	}
	if single && len(docs) == 0 && len(rep.Files) == 1 && rep.Files[0].Err != nil {
		return nil, fmt.Errorf("%s: %w", p, rep.Files[0].Err)
	}
	return docs, nil
}

// Read ingests a file or a folder. A folder holding a *content_list.json
// (or *content_list_v2.json) is one MinerU document (its sub-folders are
// its images); any other folder is walked for MinerU folders and
// Markdown, MDX, text and PDF files, in lexical path order, hidden folders
// left out. Document IDs are slash paths relative to p (a file or MinerU
// folder given directly keeps its base name).
//
// A file that cannot be read (of an unknown type, empty, binary, too
// large, malformed, or breaking the confinement rule of the package doc)
// is skipped and recorded in the report, whether the walk met it or it was
// given as p; a document with no items is skipped as ErrEmpty. The error
// is for what stops the ingestion as a whole: p missing, an unreadable
// root, or ctx done (checked between files and inside long loops).
func (c Config) Read(ctx context.Context, p string) ([]graph.Document, Report, error) {
	docs, rep, _, err := c.read(ctx, p)
	return docs, rep, err
}

// FS is [Config.Read] over the file system fsys, from the slash path root
// ("." for all of it). Paths in the report and documents' Root are slash
// paths in fsys; image paths are relative to their document's Root there,
// so give the builder and the reader the OS folder fsys mirrors (when it
// mirrors one) as their image root. Symbolic links are followed only
// inside fsys, and only when fsys reports them (fs.ReadLinkFS, as os.DirFS
// does): os.DirFS would otherwise follow a link out of its folder. A PDF
// is copied to a private temporary file for its reader.
func (c Config) FS(ctx context.Context, fsys fs.FS, root string) ([]graph.Document, Report, error) {
	if err := c.check(); err != nil {
		return nil, Report{}, err
	}
	tmp := &tempDir{}
	defer tmp.close()
	real, err := fsResolve(fsys, root)
	if err != nil {
		return nil, Report{}, fmt.Errorf("ingest: %w", err)
	}
	st, err := fs.Stat(fsys, real)
	if err != nil {
		return nil, Report{}, fmt.Errorf("ingest: %w", err)
	}
	box := folder{real: real, fsys: fsys, limit: c.maxFileSize(), tmp: tmp}
	w := &walker{c: c, ctx: ctx, box: box}
	if !st.IsDir() {
		box.real = path.Dir(real)
		w.box = box
		w.file(root, path.Base(root))
		return w.finish()
	}
	if list, err := w.contentList(root); err == nil {
		w.mineru(root, list, path.Base(root))
		return w.finish()
	}
	err = fs.WalkDir(fsys, real, func(q string, e fs.DirEntry, err error) error {
		rel := q
		switch {
		case q == real:
			rel = "."
		case real != ".":
			rel = strings.TrimPrefix(q, real+"/")
		}
		return w.visit(path.Join(root, rel), rel, q == real, e, err)
	})
	if err != nil {
		return nil, w.rep, err
	}
	return w.finish()
}

func (c Config) read(ctx context.Context, p string) ([]graph.Document, Report, bool, error) {
	if err := c.check(); err != nil {
		return nil, Report{}, false, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, Report{}, false, fmt.Errorf("ingest: %w", err)
	}
	dir := p
	if !st.IsDir() {
		dir = filepath.Dir(p)
	}
	box, err := confineTo(dir)
	if err != nil {
		return nil, Report{}, false, err
	}
	box.limit = c.maxFileSize()
	w := &walker{c: c, ctx: ctx, box: box}
	if !st.IsDir() {
		w.file(p, filepath.Base(p))
		docs, rep, err := w.finish()
		return docs, rep, true, err
	}
	if list, err := w.contentList(p); err == nil {
		w.mineru(p, list, filepath.Base(filepath.Clean(p)))
		docs, rep, err := w.finish()
		return docs, rep, true, err
	}
	// Walk the real folder, so that a root reached through a symbolic link
	// is walked too (WalkDir does not follow links), but read files by
	// their path under p: documents' Root and image paths stay as given.
	err = filepath.WalkDir(box.real, func(q string, e fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(box.real, q)
		return w.visit(filepath.Join(p, rel), filepath.ToSlash(rel), q == box.real, e, err)
	})
	if err != nil {
		return nil, w.rep, false, err
	}
	docs, rep, err := w.finish()
	return docs, rep, false, err
}

// walker gathers the documents and the report of one ingestion.
type walker struct {
	c    Config
	ctx  context.Context
	box  folder
	docs []graph.Document
	rep  Report
}

// visit handles one walk entry: shown is its path as reported, id its
// slash path below the root.
func (w *walker) visit(shown, id string, isRoot bool, e fs.DirEntry, err error) error {
	if cerr := w.ctx.Err(); cerr != nil {
		return cerr
	}
	if err != nil {
		if isRoot {
			return fmt.Errorf("ingest: %w", err)
		}
		w.skip(FileReport{Path: shown, Err: err})
		if e != nil && e.IsDir() {
			return fs.SkipDir
		}
		return nil
	}
	if !e.IsDir() {
		w.file(shown, id)
		return nil
	}
	if isRoot {
		return nil
	}
	if strings.HasPrefix(e.Name(), ".") {
		w.skip(FileReport{Path: shown, Err: fmt.Errorf("%w: hidden folder, not walked", ErrUnsupported)})
		return fs.SkipDir
	}
	if list, err := w.contentList(shown); err == nil {
		w.mineru(shown, list, id)
		return fs.SkipDir
	}
	return nil
}

func (w *walker) skip(f FileReport) { w.rep.Files = append(w.rep.Files, f) }

// formatOf names the reader of a file by its extension; "" for other
// types.
func formatOf(name string) string {
	switch strings.ToLower(path.Ext(filepath.ToSlash(name))) {
	case ".md", ".markdown":
		return "markdown"
	case ".mdx":
		return "mdx"
	case ".txt", ".text":
		return "text"
	case ".pdf":
		return "pdf"
	}
	return ""
}

// file ingests one file of the folder by extension; files of other types
// are not opened.
func (w *walker) file(p, id string) {
	format := formatOf(p)
	if format == "" {
		ext := path.Ext(filepath.ToSlash(p))
		if ext == "" {
			ext = "no extension"
		}
		w.skip(FileReport{Path: p, Err: fmt.Errorf("%w: %s", ErrUnsupported, ext)})
		return
	}
	r := &reading{ctx: w.ctx, box: w.box, root: w.dir(p)}
	var d graph.Document
	var err error
	switch format {
	case "markdown", "mdx":
		d, err = w.c.markdown(r, p, format == "mdx")
	case "text":
		d, err = w.c.text(r, p)
	case "pdf":
		var info pdfInfo
		d, info, err = w.c.pdf(w.ctx, w.box, p, id)
		for i, s := range info.Warnings {
			r.log.add(info.kinds[i], info.lost[i], s)
		}
		if info.Reader != "" {
			format += ": " + info.Reader
		}
	}
	w.add(FileReport{Path: p, Format: format}, d, r, err, id)
}

// mineru ingests the MinerU folder dir through its content list.
func (w *walker) mineru(dir, list, id string) {
	format := "mineru"
	if strings.HasSuffix(list, "content_list_v2.json") {
		format = "mineru-v2"
	}
	r := &reading{ctx: w.ctx, box: w.box, root: dir}
	d, err := w.c.mineru(r, dir, list)
	if others := w.otherLists(dir, list); len(others) > 0 {
		r.lose("also holds %s: not read (one content list is one document)", strings.Join(others, ", "))
	}
	w.add(FileReport{Path: list, Format: format}, d, r, err, id)
}

// add records a file read (or failed) and keeps its document.
func (w *walker) add(f FileReport, d graph.Document, r *reading, err error, id string) {
	f.Warnings, f.Lost, f.Summary = r.log.texts(), r.log.lostTexts(), r.log.summary()
	if err != nil {
		var ref *refused
		if errors.As(err, &ref) {
			err = ref.err
		}
		f.Err = err
		w.skip(f)
		return
	}
	if len(d.Items) == 0 {
		f.Err = fmt.Errorf("%w: the file gave no text, table or figure", ErrEmpty)
		w.skip(f)
		return
	}
	d.ID = id
	f.Doc, f.Items = id, len(d.Items)
	w.docs = append(w.docs, d)
	w.skip(f)
}

// dir is the folder of the file p.
func (w *walker) dir(p string) string {
	if w.box.fsys != nil {
		return path.Dir(p)
	}
	return filepath.Dir(p)
}

// finish sorts the documents and drops from the report the files of
// other types that documents use as images.
func (w *walker) finish() ([]graph.Document, Report, error) {
	if err := w.ctx.Err(); err != nil {
		return nil, w.rep, err
	}
	sort.SliceStable(w.docs, func(i, j int) bool { return w.docs[i].ID < w.docs[j].ID })
	used := map[string]bool{}
	for _, d := range w.docs {
		for _, it := range d.Items {
			if it.Image != nil {
				p := it.Image.Path
				if w.box.fsys == nil {
					p = filepath.FromSlash(p)
				}
				used[w.box.join(d.Root, p)] = true
			}
		}
	}
	kept := w.rep.Files[:0]
	for _, f := range w.rep.Files {
		if f.Format == "" && used[f.Path] {
			continue
		}
		kept = append(kept, f)
	}
	w.rep.Files = kept
	return w.docs, w.rep, nil
}

// contentList finds the content list of a MinerU folder: a
// *content_list.json, else a *content_list_v2.json (MinerU ≥ 2.5 writes
// both; the first is the better-tested format), the first in name order.
func (w *walker) contentList(dir string) (string, error) {
	lists, err := w.lists(dir)
	if err != nil {
		return "", err
	}
	if len(lists) == 0 {
		return "", fmt.Errorf("%w: %s", errNoContentList, dir)
	}
	return w.box.join(dir, lists[0]), nil
}

// lists returns the content-list names of dir, v1 names first.
func (w *walker) lists(dir string) ([]string, error) {
	ents, err := w.box.readDir(dir)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	var v1, v2 []string
	for _, e := range ents {
		switch n := e.Name(); {
		case e.IsDir():
		case strings.HasSuffix(n, "content_list.json"):
			v1 = append(v1, n)
		case strings.HasSuffix(n, "content_list_v2.json"):
			v2 = append(v2, n)
		}
	}
	sort.Strings(v1)
	sort.Strings(v2)
	return append(v1, v2...), nil
}

// otherLists names the content lists of dir besides list and its v2 twin.
func (w *walker) otherLists(dir, list string) []string {
	names, _ := w.lists(dir)
	base := path.Base(filepath.ToSlash(list))
	stem := strings.TrimSuffix(strings.TrimSuffix(base, "content_list.json"), "content_list_v2.json")
	var out []string
	for _, n := range names {
		if n == base || n == stem+"content_list.json" || n == stem+"content_list_v2.json" {
			continue
		}
		out = append(out, n)
	}
	return out
}
