package main

import (
	"github.com/flowreader/flowreader/internal/termsafe"

	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/flowreader/flowreader/graph/ingest"
)

// checkOutput checks, before any work starts, that out can be written: its
// folder exists and is writable, out is not a folder, and it is none of
// the inputs (a file given as PATH, or a document file inside a PATH
// folder), which the build would overwrite.
func checkOutput(flag, out string, inputs []string) error {
	dir := filepath.Dir(out)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s %s: folder %s does not exist", flag, termsafe.Text(out), termsafe.Text(dir))
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, termsafe.Text(out), err)
	case !st.IsDir():
		return fmt.Errorf("%s %s: %s is not a folder", flag, termsafe.Text(out), termsafe.Text(dir))
	}
	if st, err := os.Stat(out); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s %s is a folder: give a file name", flag, termsafe.Text(out))
		}
		for _, in := range inputs {
			ist, err := os.Stat(in)
			if err != nil {
				continue
			}
			if os.SameFile(st, ist) || ist.IsDir() && within(in, absOr(out)) && isDocument(out) {
				return fmt.Errorf("%s %s is an input file: it would overwrite it; give another output file: %w", flag, termsafe.Text(out), errUsage)
			}
		}
	}
	f, err := createTempFile(dir, "."+filepath.Base(out)+".check-")
	if err != nil {
		return fmt.Errorf("%s %s: cannot write in %s: %w", flag, termsafe.Text(out), termsafe.Text(dir), err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// isDocument reports whether ingest would read the file p (by its
// extension, or as a MinerU content list).
func isDocument(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".md", ".markdown", ".mdx", ".txt", ".text", ".pdf":
		return true
	}
	return strings.HasSuffix(p, "content_list.json") || strings.HasSuffix(p, "content_list_v2.json")
}

// createTempFile creates a new file in dir whose name starts with prefix,
// with mode 0666 less the umask (os.CreateTemp makes 0600 files whatever
// the umask, unlike every other tool's output).
func createTempFile(dir, prefix string) (*os.File, error) {
	for range 100 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		f, err := os.OpenFile(filepath.Join(dir, prefix+hex.EncodeToString(b[:])), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("%w: no free temporary name in %s", os.ErrExist, dir)
}

// maxOtherTypes is how many files of types ingest does not read the build
// names one by one.
const maxOtherTypes = 10

// foldedTail ends a summary line that stands for several warnings of one
// kind (ingest.FileReport.Summary).
var foldedTail = regexp.MustCompile(` \(and \d+ more like it\)$`)

// printReport prints the build report of one PATH to w: every file read
// with its reader and item count (unless quiet), its warnings (one line
// per kind repeated three times or more, unless verbose), and every file
// skipped with the reason. A warning that lost content is marked "lost:".
// It returns how many files count against --strict: skipped, or with
// content lost; files of other types and warnings that lose no content
// (a missing image, a guessed encoding, a page read by OCR) aside.
func printReport(w io.Writer, rep ingest.Report, quiet, verbose bool) (bad int) {
	others, shown := 0, 0
	for _, f := range rep.Files {
		switch {
		case f.Err != nil && f.Format == "" && errors.Is(f.Err, ingest.ErrUnsupported):
			others++
			if shown < maxOtherTypes {
				shown++
				fmt.Fprintf(w, "build: not read %s: %s\n", termsafe.Text(f.Path), termsafe.Text(f.Err.Error()))
			}
			continue
		case f.Err != nil:
			bad++
			format := ""
			if f.Format != "" {
				format = " (" + f.Format + ")"
			}
			fmt.Fprintf(w, "build: skipped %s: %s%s\n", termsafe.Text(f.Path), termsafe.Text(f.Err.Error()), format)
		default:
			if len(f.Lost) > 0 {
				bad++
			}
			if !quiet || len(f.Warnings) > 0 {
				fmt.Fprintf(w, "build: read %s as %s: %d items\n", termsafe.Text(f.Path), f.Format, f.Items)
			}
		}
		lost := map[string]bool{}
		for _, l := range f.Lost {
			lost[l] = true
		}
		list := f.Summary
		if verbose {
			list = f.Warnings
		}
		folded := false
		for _, warn := range list {
			first, isFold := strings.CutSuffix(warn, foldedTail.FindString(warn))
			kind := "warning"
			if lost[first] {
				kind = "lost"
			}
			folded = folded || isFold && foldedTail.MatchString(warn)
			fmt.Fprintf(w, "build:   %s: %s: %s\n", kind, termsafe.Text(f.Path), termsafe.Text(warn))
		}
		if folded {
			fmt.Fprintf(w, "build:   (--verbose lists every warning of %s)\n", termsafe.Text(f.Path))
		}
	}
	if others > shown {
		fmt.Fprintf(w, "build: not read: %d more files of types flowreader does not read\n", others-shown)
	}
	return bad
}
