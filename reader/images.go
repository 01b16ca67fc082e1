package reader

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/flowreader/flowreader/graph"
)

// maxImageBytes caps one image sent to a worker.
const maxImageBytes = 8 << 20

// errImageTooLarge is returned (wrapped) for an image above the size limit.
var errImageTooLarge = errors.New("reader: image too large")

// errImagePath is returned (wrapped) for an image path that is not local to
// the image root.
var errImagePath = errors.New("reader: image path escapes the root")

// imageCache loads each node's image once per Read.
type imageCache struct {
	load func(ref graph.ImageRef) ([]byte, error)
	max  int64
	mu   sync.Mutex
	got  map[int]loaded
}

type loaded struct {
	data []byte
	mime string
	err  error
}

func (v *VLM) newImageCache(g *graph.Graph) *imageCache {
	limit := v.maxImageBytes
	if limit <= 0 {
		limit = maxImageBytes
	}
	c := &imageCache{max: limit, got: map[int]loaded{}}
	switch {
	case v.Images != nil:
		c.load = v.Images
	case v.ImageRoot != "" || g != nil && g.ImageRoot != "":
		root := v.ImageRoot
		if root == "" {
			root = g.ImageRoot
		}
		c.load = func(ref graph.ImageRef) ([]byte, error) { return readRooted(root, ref.Path, limit) }
	}
	return c
}

// get returns node i's image, or an error when it has none or it cannot be
// loaded (the caller then falls back to a text rendering).
func (c *imageCache) get(i int, n *graph.Node) ([]byte, string, error) {
	if c.load == nil || n.Image == nil {
		return nil, "", errors.New("reader: no image")
	}
	c.mu.Lock()
	l, ok := c.got[i]
	c.mu.Unlock()
	if ok {
		return l.data, l.mime, l.err
	}
	data, err := c.load(*n.Image)
	if err == nil && int64(len(data)) > c.max {
		err = fmt.Errorf("%w: %s is %d bytes, limit %d", errImageTooLarge, n.Image.Path, len(data), c.max)
	}
	mime := n.Image.MIME
	if err == nil && mime == "" {
		mime = http.DetectContentType(data)
	}
	if err != nil {
		data = nil
	}
	c.mu.Lock()
	c.got[i] = loaded{data, mime, err}
	c.mu.Unlock()
	return data, mime, err
}

// readRooted reads root/rel, refusing paths that leave root (including
// through symbolic links) and files above max bytes.
func readRooted(root, rel string, limit int64) ([]byte, error) {
	p := filepath.FromSlash(rel)
	if !filepath.IsLocal(p) {
		return nil, fmt.Errorf("%w: %q", errImagePath, rel)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("reader: image root: %w", err)
	}
	defer r.Close()
	f, err := r.Open(p)
	if err != nil {
		return nil, fmt.Errorf("reader: image: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reader: image %q: %w", rel, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: %q above %d bytes", errImageTooLarge, rel, limit)
	}
	return data, nil
}
