package ingest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// folder is the folder ingestion may read from: every file it opens must be
// a regular file whose real path (symbolic links resolved) lies inside it.
// A collection is often copied from elsewhere, and a link such as
// env.txt -> /proc/self/environ would otherwise put the environment (API
// keys) into the graph file and the answers.
type folder struct {
	real string // the folder's absolute real path
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
	return folder{real: real}, nil
}

// refused is a file the confinement rule keeps ingestion from reading; a
// folder walk reports it through Config.Skipped and goes on.
type refused struct {
	path string
	err  error // wraps ErrPathEscape, ErrUnsupported or fs.ErrNotExist
}

func (r *refused) Error() string { return fmt.Sprintf("ingest: %s not read: %v", r.path, r.err) }
func (r *refused) Unwrap() error { return r.err }

// check returns the real path of p, or a *refused when p is a dangling
// link, resolves outside the folder, or is not a regular file (a FIFO, a
// device or a socket, which could block or never end).
func (f folder) check(p string) (string, os.FileInfo, error) {
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
	if !st.Mode().IsRegular() {
		return "", nil, &refused{p, fmt.Errorf("%w: not a regular file (%v)", ErrUnsupported, st.Mode().Type())}
	}
	return real, st, nil
}

// read reads p after check. The file is opened without blocking and must
// be the one checked, so that a FIFO or a link swapped in between the check
// and the open is not read either.
func (f folder) read(p string) ([]byte, error) {
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
	data, err := io.ReadAll(fh)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	return data, nil
}
