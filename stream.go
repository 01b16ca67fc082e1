package flowreader

import (
	"encoding/json"
	"fmt"

	"github.com/flowreader/flowreader/reader"
)

// Event is one step of an answer as it is made, told to [Options].Stream:
//
//  1. "evidence": Evidence, the chains about to be read (before any model
//     call of the reading is made);
//  2. "draft": Draft, one worker's reading of one chain, as each worker
//     finishes (in the order they finish);
//  3. "delta": Text, a piece of the answer as the reasoner writes it; with
//     Thought set, a piece of its reasoning (its <thought> block) instead.
//     A reader whose model does not stream, and the extractive reader,
//     give the answer as one delta;
//  4. "citations": Citations, the nodes that support the answer;
//  5. "done": Result, what Ask returns.
//
// Drafts and deltas of System 2's re-read (paper v1 §3.5) come after those
// of the first reading, with Pass 2. The deltas are the answer as written,
// before it is checked: the answer is Result.Text (it differs when the
// reasoner's reply has no <output> block or several, or when System 2
// replaces it). A failure is not an event: Ask returns it, and "done" does
// not come.
type Event struct {
	// Kind is "evidence", "draft", "delta", "citations" or "done".
	Kind string
	// Pass is 1 for the first reading and 2 for System 2's re-read.
	Pass      int
	Evidence  *Evidence
	Draft     *reader.Draft
	Text      string
	Thought   bool
	Citations []reader.Citation
	Result    *Result
}

// streamer tells one question's steps to Options.Stream.
type streamer struct {
	fn       func(Event)
	rd       *read // the reading, whose drafts name nodes of rd.g
	answered bool  // a delta of the answer (not its thought) was told
}

func newStreamer(fn func(Event), rd *read) *streamer {
	if fn == nil {
		return nil
	}
	return &streamer{fn: fn, rd: rd}
}

func (s *streamer) evidence(ev *Evidence) {
	if s != nil {
		s.fn(Event{Kind: "evidence", Pass: 1, Evidence: ev})
	}
}

// hook makes in tell its drafts and text as pass.
func (s *streamer) hook(in *reader.Input, pass int) {
	if s == nil {
		return
	}
	in.OnDraft = func(d reader.Draft) {
		// A draft names nodes of the index's graph, as Result's do.
		a := reader.Answer{Drafts: []reader.Draft{d}}
		s.rd.toIndex(&a)
		s.fn(Event{Kind: "draft", Pass: pass, Draft: &a.Drafts[0]})
	}
	in.OnText = func(piece string, thought bool) {
		if !thought {
			s.answered = true
		}
		s.fn(Event{Kind: "delta", Pass: pass, Text: piece, Thought: thought})
	}
}

// read is told the answer of a reading: a reader that passed none of it on
// (one of another package that ignores Input.OnText) gives it as one delta.
func (s *streamer) read(a *reader.Answer, pass int) {
	if s == nil || a == nil {
		return
	}
	if !s.answered && a.Text != "" {
		s.answered = true
		s.fn(Event{Kind: "delta", Pass: pass, Text: a.Text})
	}
	s.answered = false
}

// done tells the citations and the result; their Pass is the pass whose
// answer stands.
func (s *streamer) done(res *Result) {
	if s == nil {
		return
	}
	pass := 1
	if res.System2 != nil && res.System2.System1 != nil {
		pass = 2
	}
	s.fn(Event{Kind: "citations", Pass: pass, Citations: res.Citations})
	s.fn(Event{Kind: "done", Pass: pass, Result: res})
}

// eventJSON is an Event's JSON form.
type eventJSON struct {
	Event     string          `json:"event"`
	Pass      int             `json:"pass"`
	Evidence  *Evidence       `json:"evidence,omitempty"`
	Draft     *draftJSON      `json:"draft,omitempty"`
	Text      *string         `json:"text,omitempty"`
	Thought   bool            `json:"thought,omitempty"`
	Citations *[]citationJSON `json:"citations,omitempty"`
	Result    *Result         `json:"result,omitempty"`
}

// MarshalJSON writes the event in the JSON contract ([SchemaVersion]):
// {"event": kind, "pass": n} and the kind's value: "evidence" (the
// Evidence's JSON), "draft" (a draft as in a Result's drafts), "text" and
// "thought" (a delta), "citations" (as in a Result), "result" (the
// Result's JSON). The server's event stream and ask --stream --json write
// it.
func (e Event) MarshalJSON() ([]byte, error) {
	j := eventJSON{Event: e.Kind, Pass: e.Pass}
	switch e.Kind {
	case "evidence":
		j.Evidence = e.Evidence
	case "draft":
		if e.Draft != nil {
			d := draftOf(*e.Draft)
			j.Draft = &d
		}
	case "delta":
		j.Text, j.Thought = &e.Text, e.Thought
	case "citations":
		c := citationsOf(e.Citations)
		j.Citations = &c
	case "done":
		j.Result = e.Result
	default:
		return nil, fmt.Errorf("flowreader: event kind %q", e.Kind)
	}
	return json.Marshal(j)
}
