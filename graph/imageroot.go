package graph

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// maxImageRoot bounds the image root a graph file may record.
const maxImageRoot = 4096

// splitImageRoot splits the image root off a payload that starts with one
// (a length-prefixed string padded with zeros to four bytes).
func splitImageRoot(p []byte, has bool) (string, []byte, error) {
	if !has {
		return "", p, nil
	}
	n, k := binary.Uvarint(p)
	if k <= 0 || n == 0 || n > maxImageRoot || uint64(len(p)-k) < n {
		return "", nil, errors.New("bad image root")
	}
	end := k + int(n)
	root := string(p[k:end])
	pad := (4 - end%4) % 4
	if len(p) < end+pad || !utf8.ValidString(root) {
		return "", nil, errors.New("bad image root")
	}
	for _, b := range p[end : end+pad] {
		if b != 0 {
			return "", nil, errors.New("bad image root padding")
		}
	}
	return root, p[end+pad:], nil
}

// readImageRoot reads the image-root prefix of a payload of n bytes from
// r: its length, the root and the padding.
func readImageRoot(r io.Reader, n uint64) ([]byte, error) {
	var pre []byte
	var one [1]byte
	for len(pre) < binary.MaxVarintLen16 {
		if _, err := io.ReadFull(r, one[:]); err != nil {
			return nil, fmt.Errorf("%w: image root", errTruncated)
		}
		pre = append(pre, one[0])
		if one[0] < 0x80 {
			break
		}
	}
	size, k := binary.Uvarint(pre)
	if k <= 0 || size == 0 || size > maxImageRoot {
		return nil, fmt.Errorf("%w: bad image root", ErrFormat)
	}
	end := k + int(size)
	end += (4 - end%4) % 4
	if uint64(end) > n {
		return nil, fmt.Errorf("%w: bad image root", ErrFormat)
	}
	pre = append(pre, make([]byte, end-k)...)
	if _, err := io.ReadFull(r, pre[k:]); err != nil {
		return nil, fmt.Errorf("%w: image root", errTruncated)
	}
	return pre, nil
}

// relativeRoot gives the image root to record in a file in dir: relative
// to dir (slash-separated) when it can be, else absolute.
func relativeRoot(dir, root string) string {
	if root == "" || len(root) > maxImageRoot {
		return ""
	}
	absRoot, err1 := filepath.Abs(root)
	absDir, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(root)
	}
	if rel, err := filepath.Rel(absDir, absRoot); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(absRoot)
}

// resolveRoot turns the image root recorded in the file path back into a
// path usable from the current folder.
func resolveRoot(path, root string) string {
	if root == "" {
		return ""
	}
	r := filepath.FromSlash(root)
	if filepath.IsAbs(r) {
		return r
	}
	return filepath.Join(filepath.Dir(path), r)
}

// createTemp creates a new file in dir whose name starts with prefix, with
// mode 0666 less the umask (os.CreateTemp makes 0600 files whatever the
// umask, unlike every other tool's output).
func createTemp(dir, prefix string) (*os.File, error) {
	for range 100 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		name := filepath.Join(dir, prefix+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("%w: no free temporary name in %s", os.ErrExist, dir)
}
