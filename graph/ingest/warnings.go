package ingest

import "fmt"

// A file's warnings, in two classes: content lost (a page, an item or
// text not read: FileReport.Lost, what --strict fails on) and the rest
// (decoration missing, such as a figure's image, and repairs or guesses
// that keep the content, such as text decoded from Latin-1 or a page read
// by OCR). Warnings of one kind (one message format) repeated three times
// or more are folded into one line for FileReport.Summary: a MinerU
// download without its images has a warning per image.

// warning is one warning of a file.
type warning struct {
	text string
	kind string // the message's format: warnings of one kind fold together
	lost bool   // content was lost
}

// warnings collects the warnings of one file: the first maxWarnings kept
// in full, every one counted by kind.
type warnings struct {
	list  []warning
	more  int
	kinds []string            // in order of first appearance
	count map[string]int      // warnings of each kind
	some  map[string][]string // the first two texts of each kind
	lost  []string            // the texts of lost content, bounded too
	nlost int
}

func (w *warnings) add(kind string, lost bool, text string) {
	if w.count == nil {
		w.count, w.some = map[string]int{}, map[string][]string{}
	}
	if w.count[kind] == 0 {
		w.kinds = append(w.kinds, kind)
	}
	w.count[kind]++
	if len(w.some[kind]) < 2 {
		w.some[kind] = append(w.some[kind], text)
	}
	if lost {
		if w.nlost++; len(w.lost) < maxWarnings {
			w.lost = append(w.lost, text)
		}
	}
	if len(w.list) >= maxWarnings {
		w.more++
		return
	}
	w.list = append(w.list, warning{text, kind, lost})
}

// texts returns the warnings kept, the overflow counted in a last one.
func (w *warnings) texts() []string {
	out := make([]string, 0, len(w.list)+1)
	for _, x := range w.list {
		out = append(out, x.text)
	}
	if w.more > 0 {
		out = append(out, fmt.Sprintf("and %d more warnings", w.more))
	}
	return out
}

// lostTexts returns the warnings of lost content, the overflow counted.
func (w *warnings) lostTexts() []string {
	if n := w.nlost - len(w.lost); n > 0 {
		return append(w.lost, fmt.Sprintf("and %d more", n))
	}
	return w.lost
}

// summary returns one line per kind repeated three times or more ("the
// first (and 69 more like it)"), the others as they are.
func (w *warnings) summary() []string {
	var out []string
	for _, k := range w.kinds {
		if n := w.count[k]; n >= 3 {
			out = append(out, fmt.Sprintf("%s (and %d more like it)", w.some[k][0], n-1))
			continue
		}
		out = append(out, w.some[k]...)
	}
	return out
}
