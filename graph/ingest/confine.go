package ingest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
)

// defaultMaxFileSize bounds the bytes read from one file: a content list,
// a text or a Markdown file larger than this is skipped rather than read
// whole (a sparse 1 GB file costs 1 GB of memory otherwise).
const defaultMaxFileSize = 256 << 20

// folder is the folder ingestion may read from: every file it opens must be
// a regular file whose real path (symbolic links resolved) lies inside it.
// A collection is often copied from elsewhere, and a link such as
// env.txt -> /proc/self/environ would otherwise put the environment (API
// keys) into the graph file and the answers.
//
// A folder is either an OS folder (paths are OS paths) or a folder of an
// fs.FS (paths are slash paths inside fsys).
type folder struct {
	real  string // OS: the folder's absolute real path; FS: the root inside fsys
	fsys  fs.FS  // nil for an OS folder
	limit int64  // largest file read, in bytes
	tmp   *tempDir
}

// confineTo returns the folder dir (which may itself be reached through a
// symbolic link).
func confineTo(dir string) (folder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return folder{}, fmt.Errorf("ingest: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return folder{}, fmt.Errorf("ingest: %w", err)
	}
	return folder{real: real, limit: defaultMaxFileSize}, nil
}

// refused is a file the confinement rule keeps ingestion from reading; a
// folder walk reports it and goes on.
type refused struct {
	path string
	err  error // wraps ErrPathEscape, ErrUnsupported or fs.ErrNotExist
}

func (r *refused) Error() string { return fmt.Sprintf("ingest: %s not read: %v", r.path, r.err) }
func (r *refused) Unwrap() error { return r.err }

// check returns a path of p that an outside program may open (for an
// fs.FS, a private temporary copy), or a *refused when p is a dangling
// link, resolves outside the folder, or is not a regular file (a FIFO, a
// device or a socket, which could block or never end).
func (f folder) check(p string) (string, os.FileInfo, error) {
	if f.fsys != nil {
		return f.fsCheck(p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", nil, fmt.Errorf("ingest: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", nil, &refused{p, err}
	}
	if rel, err := filepath.Rel(f.real, real); err != nil || !filepath.IsLocal(rel) {
		return "", nil, &refused{p, fmt.Errorf("%w: it resolves to %s", ErrPathEscape, real)}
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", nil, &refused{p, err}
	}
	if err := f.admit(st); err != nil {
		return "", nil, &refused{p, err}
	}
	return real, st, nil
}

// admit is the rule both kinds of folder apply to what a path resolves
// to: a regular file of at most the size limit.
func (f folder) admit(st fs.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%w: not a regular file (%v)", ErrUnsupported, st.Mode().Type())
	}
	if f.limit > 0 && st.Size() > f.limit {
		return fmt.Errorf("%w: %d bytes, more than the limit of %d", ErrTooLarge, st.Size(), f.limit)
	}
	return nil
}

// read reads p after check. The file is opened without blocking and must
// be the one checked, so that a FIFO or a link swapped in between the check
// and the open is not read either; no more than the size limit is read,
// whatever the file claims.
func (f folder) read(p string) ([]byte, error) {
	if f.fsys != nil {
		return f.fsRead(p)
	}
	real, st, err := f.check(p)
	if err != nil {
		return nil, err
	}
	fh, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	defer fh.Close()
	if now, err := fh.Stat(); err != nil || !os.SameFile(st, now) {
		return nil, &refused{p, errors.New("the file changed while it was opened")}
	}
	return f.readLimited(p, fh)
}

// readLimited reads r whole, refusing more than the size limit.
func (f folder) readLimited(p string, r io.Reader) ([]byte, error) {
	limit := f.limit
	if limit <= 0 {
		limit = defaultMaxFileSize
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, &refused{p, fmt.Errorf("%w: more than the limit of %d bytes", ErrTooLarge, limit)}
	}
	return data, nil
}

// readDir lists the folder dir (an OS path, or a slash path of the FS).
func (f folder) readDir(dir string) ([]fs.DirEntry, error) {
	if f.fsys != nil {
		return fs.ReadDir(f.fsys, dir)
	}
	return os.ReadDir(dir)
}

// join joins path elements the folder's way.
func (f folder) join(elem ...string) string {
	if f.fsys != nil {
		return path.Join(elem...)
	}
	return filepath.Join(elem...)
}
