package ingest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
)

// maxLinkHops bounds the symbolic links followed while resolving one path
// of an fs.FS (a link cycle must end).
const maxLinkHops = 40

// fsResolve resolves the symbolic links of the slash path p of fsys
// lexically inside fsys, when fsys reports them (fs.ReadLinkFS: os.DirFS
// does, and it would otherwise follow a link to /proc/self/environ like
// any file). A link with an absolute target, or one that climbs out of
// the FS, wraps ErrPathEscape. A file system that does not report links
// (embed.FS, zip.Reader, fstest.MapFS) is taken as it is.
func fsResolve(fsys fs.FS, p string) (string, error) {
	if !fs.ValidPath(p) {
		return "", fmt.Errorf("%w: %q is not a path inside the file system", ErrPathEscape, p)
	}
	rl, ok := fsys.(fs.ReadLinkFS)
	if !ok {
		return p, nil
	}
	rest := strings.Split(p, "/")
	if p == "." {
		rest = nil
	}
	cur := "."
	hops := 0
	for len(rest) > 0 {
		next := path.Join(cur, rest[0])
		rest = rest[1:]
		st, err := rl.Lstat(next)
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", fmt.Errorf("%w: %q: too many symbolic links", ErrPathEscape, p)
		}
		target, err := rl.ReadLink(next)
		if err != nil {
			return "", fmt.Errorf("%w: %q: %v", ErrPathEscape, next, err)
		}
		if path.IsAbs(target) || strings.HasPrefix(target, `\`) {
			return "", fmt.Errorf("%w: %q links to %q", ErrPathEscape, next, target)
		}
		joined := path.Join(cur, target)
		if !fs.ValidPath(joined) {
			return "", fmt.Errorf("%w: %q links to %q", ErrPathEscape, next, target)
		}
		var parts []string
		if joined != "." {
			parts = strings.Split(joined, "/")
		}
		rest = append(parts, rest...)
		cur = "."
	}
	return cur, nil
}

// within reports whether the slash path p is dir or below it.
func slashWithin(dir, p string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// fsStat resolves p inside the folder and checks that it is a regular file
// within the size limit.
func (f folder) fsStat(p string) (string, fs.FileInfo, error) {
	real, err := fsResolve(f.fsys, p)
	if err != nil {
		return "", nil, &refused{p, err}
	}
	if !slashWithin(f.real, real) {
		return "", nil, &refused{p, fmt.Errorf("%w: it resolves to %s", ErrPathEscape, real)}
	}
	st, err := fs.Stat(f.fsys, real)
	if err != nil {
		return "", nil, &refused{p, err}
	}
	if err := f.admit(st); err != nil {
		return "", nil, &refused{p, err}
	}
	return real, st, nil
}

func (f folder) fsRead(p string) ([]byte, error) {
	real, _, err := f.fsStat(p)
	if err != nil {
		return nil, err
	}
	fh, err := f.fsys.Open(real)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, &refused{p, errors.New("the file changed while it was opened")}
	}
	return f.readLimited(p, fh)
}

// fsCheck copies p to a private temporary file, for readers that run
// another program on a path (pdftotext).
func (f folder) fsCheck(p string) (string, os.FileInfo, error) {
	real, _, err := f.fsStat(p)
	if err != nil {
		return "", nil, err
	}
	if f.tmp == nil {
		return "", nil, errors.New("ingest: no temporary folder")
	}
	src, err := f.fsys.Open(real)
	if err != nil {
		return "", nil, fmt.Errorf("ingest: %w", err)
	}
	defer src.Close()
	dir, err := f.tmp.dir()
	if err != nil {
		return "", nil, err
	}
	dst, err := os.CreateTemp(dir, "*"+path.Ext(real))
	if err != nil {
		return "", nil, fmt.Errorf("ingest: %w", err)
	}
	limit := f.limit
	if limit <= 0 {
		limit = defaultMaxFileSize
	}
	_, err = io.Copy(dst, io.LimitReader(src, limit))
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", nil, fmt.Errorf("ingest: %w", err)
	}
	st, err := os.Stat(dst.Name())
	if err != nil {
		return "", nil, fmt.Errorf("ingest: %w", err)
	}
	return dst.Name(), st, nil
}

// tempDir is a temporary folder made on first use and removed by close.
type tempDir struct {
	mu   sync.Mutex
	path string
}

func (t *tempDir) dir() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.path == "" {
		p, err := os.MkdirTemp("", "flowreader-ingest-*")
		if err != nil {
			return "", fmt.Errorf("ingest: %w", err)
		}
		t.path = p
	}
	return t.path, nil
}

func (t *tempDir) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.path != "" {
		os.RemoveAll(t.path)
		t.path = ""
	}
}
