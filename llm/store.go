package llm

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Store is a key-value store for cached responses. Keys are lowercase hex
// SHA-256 digests. Get reports a miss for anything it cannot read; a cache
// is an optimisation, so an unreadable entry costs a repeated call, never a
// failure. Implementations must be safe for concurrent use. [DirStore] keeps
// entries on disk; an in-memory store is a map behind a mutex (see the
// example), bounded as the application needs (an LRU, for a server).
type Store interface {
	Get(key string) (value []byte, ok bool)
	Put(key string, value []byte) error
}

// maxEntryBytes bounds the size of one cache entry: DirStore refuses to
// write a larger value and reads a larger file as a miss. It exceeds the
// largest answer an adapter accepts (llm/openai's 64 MiB by default) with
// room for the entry's JSON escaping.
const maxEntryBytes = 256 << 20

// DirStore returns a Store keeping one file per entry under dir (created on
// the first Put), fanned out by the key's first two characters. Each write
// goes to a temporary file in the same directory and is renamed into place,
// so a crash never leaves a half-written entry under a valid name and
// concurrent writers of one key are safe (the last rename wins; both wrote
// the same value). Get reads only regular files of at most 256 MiB: a
// symbolic link (DirStore never writes one), a FIFO, a device or a larger
// file in the cache folder is a miss, never followed, waited on or read
// whole; Put refuses a larger value.
func DirStore(dir string) Store { return dirStore{dir: dir} }

type dirStore struct{ dir string }

func (s dirStore) path(key string) (string, error) {
	if len(key) < 3 {
		return "", fmt.Errorf("llm: cache key %q too short", key)
	}
	for _, c := range key {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return "", fmt.Errorf("llm: cache key %q has characters unsafe in a file name", key)
		}
	}
	return filepath.Join(s.dir, key[:2], key), nil
}

func (s dirStore) Get(key string) ([]byte, bool) {
	p, err := s.path(key)
	if err != nil {
		return nil, false
	}
	f, err := openEntry(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxEntryBytes {
		return nil, false
	}
	// The size may change under us: read at most one byte past the limit.
	b, err := io.ReadAll(io.LimitReader(f, maxEntryBytes+1))
	if err != nil || int64(len(b)) > maxEntryBytes {
		return nil, false
	}
	return b, true
}

func (s dirStore) Put(key string, value []byte) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if int64(len(value)) > maxEntryBytes {
		return fmt.Errorf("llm: cache: entry of %d bytes exceeds maxEntryBytes", len(value))
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("llm: cache: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-"+key[:min(8, len(key))]+"-*")
	if err != nil {
		return fmt.Errorf("llm: cache: %w", err)
	}
	tmp := f.Name()
	_, werr := f.Write(value)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, p)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("llm: cache: %w", werr)
	}
	return nil
}
