package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/flowreader/flowreader/graph"
)

// resolveImage checks that ref (a slash- or OS-separated path relative to
// root) stays inside root, lexically and after following symbolic links. It
// returns the cleaned slash path and its MIME type, or (nil, nil) when the
// file does not exist: the item keeps its text but has no image.
func resolveImage(root, ref string) (*graph.ImageRef, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, nil
	}
	if strings.Contains(ref, "://") || strings.HasPrefix(ref, "data:") {
		return nil, nil // remote or inline images are not part of the collection
	}
	slash := path.Clean(strings.ReplaceAll(ref, `\`, "/"))
	local := filepath.FromSlash(slash)
	if !filepath.IsLocal(local) || path.IsAbs(slash) || slash == "." {
		return nil, fmt.Errorf("%w: %q", ErrPathEscape, ref)
	}
	full := filepath.Join(root, local)
	real, err := filepath.EvalSymlinks(full)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
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
		return nil, nil
	}
	return &graph.ImageRef{Path: slash, MIME: imageMIME(real)}, nil
}

// imageMIME guesses a MIME type from the extension, then from the content.
func imageMIME(p string) string {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	}
	if t := mime.TypeByExtension(filepath.Ext(p)); strings.HasPrefix(t, "image/") {
		return t
	}
	f, err := os.Open(p)
	if err != nil {
		return "application/octet-stream"
	}
	defer f.Close()
	var buf [512]byte
	n, _ := f.Read(buf[:])
	return http.DetectContentType(buf[:n])
}
