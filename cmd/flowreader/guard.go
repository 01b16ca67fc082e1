package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/flowreader/flowreader/internal/termsafe"
)

// envTimeout overrides the default per-request timeout (a Go duration such
// as 90s or 10m; 0 for none) when --timeout is not given.
const envTimeout = "FLOWREADER_TIMEOUT"

// defaultTimeout bounds one HTTP request to a model or embedding server
// (each attempt of a retried call): long enough for a vision-language model
// to write a long answer, short enough that a server which accepts the
// connection and never answers costs minutes, not the whole run.
const defaultTimeout = 5 * time.Minute

// sameFile reports whether paths a and b name one file: the same absolute
// path, or (when both exist) the same file through links.
func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// refuseOverwrite fails with a usage error when output (named by flag)
// would overwrite one of inputs, before any work is done.
func refuseOverwrite(flag, output string, inputs ...string) error {
	if output == "" {
		return nil
	}
	for _, in := range inputs {
		if in != "" && sameFile(output, in) {
			return fmt.Errorf("%s %s would overwrite the input %s: give another output file: %w", flag, termsafe.Text(output), termsafe.Text(in), errUsage)
		}
	}
	return nil
}

// optDuration is a duration flag that knows whether it was given.
type optDuration struct {
	d   time.Duration
	set bool
}

func (o *optDuration) String() string {
	if o == nil || !o.set {
		return ""
	}
	return o.d.String()
}

func (o *optDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a non-negative duration such as 90s or 10m", s)
	}
	o.d, o.set = d, true
	return nil
}
