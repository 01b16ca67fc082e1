package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// maxWarnings bounds the warnings kept for one file; the rest are counted.
const maxWarnings = 50

// errRemoteImage: an image given by URL or inline data, which ingestion
// does not fetch.
var errRemoteImage = errors.New("remote or inline image not fetched")

// reading is the state of reading one file: the folder it is confined to,
// the folder its images resolve in, and what was repaired or dropped.
type reading struct {
	ctx  context.Context
	box  folder
	root string // the document's folder: image paths are relative to it
	log  warnings
}

// warn notes something repaired, guessed or left out that loses no
// content (an image missing from a figure that keeps its caption, text
// decoded from Latin-1); kind groups warnings for the summary (the
// format).
func (r *reading) warn(format string, args ...any) {
	r.log.add(format, false, fmt.Sprintf(format, args...))
}

// lose notes content left out: a page, an item or text not read.
func (r *reading) lose(format string, args ...any) {
	r.log.add(format, true, fmt.Sprintf(format, args...))
}

// decoded notes how decodeText read the file: bytes replaced by U+FFFD
// are characters lost, a guessed encoding is not.
func (r *reading) decoded(note string) {
	switch {
	case note == "":
	case strings.Contains(note, "U+FFFD"):
		r.log.add("decoded", true, note)
	default:
		r.log.add("decoded", false, note)
	}
}

// image resolves ref for an item described by what ("figure 3"), warning
// and returning nil when it cannot be used: the item then keeps its text.
func (r *reading) image(ref, what string) *graph.ImageRef {
	img, err := r.box.image(r.root, ref)
	switch {
	case err == nil:
		return img
	case errors.Is(err, fs.ErrNotExist):
		r.warn("%s: image %q is missing: kept without it", what, ref)
	case errors.Is(err, ErrPathEscape):
		r.warn("%s: image %q leaves the document's folder: not read", what, ref)
	case errors.Is(err, errRemoteImage):
		r.warn("%s: image %q is remote or inline: not fetched", what, shorten(ref, 80))
	default:
		r.warn("%s: image %q not read: %v", what, ref, err)
	}
	return nil
}

// shorten cuts s to at most n bytes (on a rune boundary) with an ellipsis.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// image checks that ref (a slash- or OS-separated path relative to root)
// stays inside root, lexically and after following symbolic links, and
// names a regular file. It returns the cleaned slash path and its MIME
// type; (nil, nil) for an empty ref; an error wrapping fs.ErrNotExist when
// the file does not exist, ErrPathEscape when it leaves root,
// errRemoteImage for a URL or inline data.
func (f folder) image(root, ref string) (*graph.ImageRef, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, nil
	}
	if strings.Contains(ref, "://") || strings.HasPrefix(ref, "data:") {
		return nil, errRemoteImage // not part of the collection
	}
	slash := path.Clean(strings.ReplaceAll(ref, `\`, "/"))
	local := filepath.FromSlash(slash)
	if !filepath.IsLocal(local) || path.IsAbs(slash) || slash == "." {
		return nil, fmt.Errorf("%w: %q", ErrPathEscape, ref)
	}
	if f.fsys != nil {
		return f.fsImage(root, slash)
	}
	full := filepath.Join(root, local)
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return nil, fmt.Errorf("ingest: image %q: %w", ref, err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("ingest: document folder %q: %w", root, err)
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%w: %q resolves to %q", ErrPathEscape, ref, real)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("ingest: image %q: %w", ref, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: image %q is not a regular file", ErrUnsupported, ref)
	}
	return &graph.ImageRef{Path: slash, MIME: imageMIME(real, func() (io.ReadCloser, error) { return os.Open(real) })}, nil
}

func (f folder) fsImage(root, slash string) (*graph.ImageRef, error) {
	realRoot, err := fsResolve(f.fsys, root)
	if err != nil {
		return nil, fmt.Errorf("ingest: document folder %q: %w", root, err)
	}
	real, err := fsResolve(f.fsys, path.Join(root, slash))
	if err != nil {
		return nil, fmt.Errorf("ingest: image %q: %w", slash, err)
	}
	if !slashWithin(realRoot, real) {
		return nil, fmt.Errorf("%w: %q resolves to %q", ErrPathEscape, slash, real)
	}
	st, err := fs.Stat(f.fsys, real)
	if err != nil {
		return nil, fmt.Errorf("ingest: image %q: %w", slash, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: image %q is not a regular file", ErrUnsupported, slash)
	}
	open := func() (io.ReadCloser, error) { return f.fsys.Open(real) }
	return &graph.ImageRef{Path: slash, MIME: imageMIME(real, open)}, nil
}

// imageMIME guesses a MIME type from the extension, then from the content.
func imageMIME(p string, open func() (io.ReadCloser, error)) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	}
	if t := mime.TypeByExtension(path.Ext(p)); strings.HasPrefix(t, "image/") {
		return t
	}
	rc, err := open()
	if err != nil {
		return "application/octet-stream"
	}
	defer rc.Close()
	var buf [512]byte
	n, _ := io.ReadFull(rc, buf[:])
	return http.DetectContentType(buf[:n])
}
