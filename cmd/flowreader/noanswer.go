package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/reader"
)

// exitNoAnswer is ask's exit status when it printed no answer: the reader
// abstained ("no answer in the collection") or its answer is empty. A
// script can tell that from a failure (1) or a usage error (2).
const exitNoAnswer = 3

// errNoAnswer marks an empty answer; run maps it to exitNoAnswer.
var errNoAnswer = errors.New("no answer")

// exitNotSure is ask's exit status when the answer's confidence is below
// reader.ConfidenceThreshold: ask printed the best passage with the span the
// reader would answer with, not an answer line (with --json, the answer
// with "low_confidence": true).
const exitNotSure = 4

// errNotSure marks a low-confidence answer; run maps it to exitNotSure.
var errNotSure = errors.New("not sure")

// noAnswer returns nil when res has an answer, an error wrapping errNotSure
// when its confidence is low, else an error wrapping errNoAnswer that
// carries the reader's reason.
func noAnswer(res *flowreader.Result) error {
	if res.Answer != nil && res.LowConfidence() {
		return fmt.Errorf("%w: confidence %.2f is below %.2f: the answer is a hint; check the passage it cites", errNotSure, res.Confidence, reader.ConfidenceThreshold)
	}
	if strings.TrimSpace(res.Text) != "" {
		return nil
	}
	why := "the reader returned an empty answer"
	if res.Answer != nil && res.Trace.Note != "" {
		why = res.Trace.Note
	}
	return fmt.Errorf("%w: %s", errNoAnswer, why)
}
