// Package realdocs finds the real public documents that some tests read.
//
// They are not kept in the repository: their sources, licences and
// SHA-256 sums are listed in graph/ingest/testdata/pdf/real/README.md, and
// fetch.sh beside it downloads them into a directory. A test names a file
// by its name in that directory and is skipped, saying why, when the
// directory is not given ($FLOWREADER_REALDOCS) or lacks the file, or the
// file is not the one the README lists.
package realdocs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Env names the environment variable that holds the directory.
const Env = "FLOWREADER_REALDOCS"

// sums are the SHA-256 sums of the documents, as the README lists them.
var sums = map[string]string{
	"pdf/ca-warn-report.pdf":         "f52f80bd057313c8abec2e854c65c4d96658e72744c836e81d3048d8a5861046",
	"pdf/beamer-metropolis-demo.pdf": "81444cec758c23cac76305a99986de7032234c7635c0f8c962fd17f4095dccbc",
	"pdf/impress-export.pdf":         "5400452918f7a4fc4cdf895084c5f419ff5c80dd0d591cc8d3dd01b4794af1fb",
	"pdf/scanned-page.pdf":           "73f23122e9edbdb0a115b448e03c8064a0ea8bdc21d02917ce220cf032454f31",
}

// Read returns the bytes of the document name (a slash-separated path
// under the directory, such as "pdf/ca-warn-report.pdf"). It skips tb
// when the document cannot be had, and fails it when the file is there
// but is not the document the README lists.
func Read(tb testing.TB, name string) []byte {
	tb.Helper()
	dir := os.Getenv(Env)
	if dir == "" {
		tb.Skipf("real document %s: $%s is not set (graph/ingest/testdata/pdf/real/fetch.sh DIR fetches the documents)", name, Env)
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if errors.Is(err, fs.ErrNotExist) {
		tb.Skipf("real document %s is not in $%s=%s (graph/ingest/testdata/pdf/real/fetch.sh DIR fetches it)", name, Env, dir)
	}
	if err != nil {
		tb.Fatal(err)
	}
	if want, ok := sums[name]; ok {
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			tb.Fatalf("real document %s: SHA-256 %s, the README lists %s", name, got, want)
		}
	}
	return data
}
