package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/flowreader/flowreader"
)

// exitNoAnswer is ask's exit status when it printed no answer: the reader
// abstained ("no answer in the collection") or its answer is empty. A
// script can tell that from a failure (1) or a usage error (2).
const exitNoAnswer = 3

// errNoAnswer marks an empty answer; run maps it to exitNoAnswer.
var errNoAnswer = errors.New("no answer")

// noAnswer returns nil when res has an answer, else an error wrapping
// errNoAnswer that carries the reader's reason.
func noAnswer(res *flowreader.Result) error {
	if strings.TrimSpace(res.Text) != "" {
		return nil
	}
	why := "the reader returned an empty answer"
	if res.Answer != nil && res.Trace.Note != "" {
		why = res.Trace.Note
	}
	return fmt.Errorf("%w: %s", errNoAnswer, why)
}
