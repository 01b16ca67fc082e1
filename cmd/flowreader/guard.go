package main

import (
	"fmt"
	"time"
)

// envTimeout overrides the default per-request timeout (a Go duration such
// as 90s or 10m; 0 for none) when --timeout is not given.
const envTimeout = "FLOWREADER_TIMEOUT"

// defaultTimeout bounds one HTTP request to a model or embedding server
// (each attempt of a retried call): long enough for a vision-language model
// to write a long answer, short enough that a server which accepts the
// connection and never answers costs minutes, not the whole run.
const defaultTimeout = 5 * time.Minute

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
