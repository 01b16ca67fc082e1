package reader

import (
	"context"
	"sync"

	"github.com/flowreader/flowreader/llm"
)

// tagSplitter passes a reasoner's reply on as it is written: the text
// inside <output>…</output> as the answer, the rest (the <thought> block)
// as thought, without the tags extractOutput removes —
// <output>, </output>, <thought>, </thought>, <answer>, </answer>, in any
// case, with spaces inside the brackets, at most maxTag bytes long. A tag
// cut across pieces is held back until it is complete. The answer's leading spaces are dropped
// and its trailing spaces held back until more answer text follows, so
// that for a reply with one <output> block the answer pieces joined are
// the block's text trimmed, as extractOutput takes it. Pieces are
// substrings of the reply's pieces; only a tag cut across pieces costs an
// allocation.
type tagSplitter struct {
	emit     func(piece string, thought bool)
	inOutput bool
	started  bool   // answer text was passed on in this <output> block
	held     string // the answer's trailing spaces, not yet passed on
	pending  []byte // the start of a possible tag
}

// maxTag bounds a tag's length with its inner spaces.
const maxTag = 32

func (s *tagSplitter) write(p string) {
	if len(s.pending) > 0 {
		s.pending = append(s.pending, p...)
		p = string(s.pending)
		s.pending = s.pending[:0]
	}
	for len(p) > 0 {
		lt := indexByte(p, '<')
		if lt < 0 {
			s.text(p)
			return
		}
		if lt > 0 {
			s.text(p[:lt])
			p = p[lt:]
		}
		n, state := tagAt(p)
		if state == tagIncomplete && len(p) < maxTag {
			s.pending = append(s.pending[:0], p...)
			return
		}
		switch state {
		case tagNone, tagIncomplete:
			s.text(p[:1])
			p = p[1:]
		default:
			s.tag(state)
			p = p[n:]
		}
	}
}

// flush passes on what is held back at the end of the reply: a tag cut
// short is text; the answer's trailing spaces are dropped.
func (s *tagSplitter) flush() {
	if len(s.pending) > 0 {
		buf := string(s.pending)
		s.pending = s.pending[:0]
		s.text(buf)
	}
	s.held = ""
}

func (s *tagSplitter) tag(state int) {
	switch state {
	case tagOpenOutput:
		s.inOutput, s.started, s.held = true, false, ""
	case tagCloseOutput:
		s.inOutput, s.held = false, ""
	}
}

func (s *tagSplitter) text(t string) {
	if t == "" {
		return
	}
	if !s.inOutput {
		s.emit(t, true)
		return
	}
	// Answer text: drop leading spaces, hold trailing ones.
	if !s.started {
		t = trimLeftSpace(t)
		if t == "" {
			return
		}
		s.started = true
	}
	body := trimRightSpace(t)
	if body == "" {
		s.held += t
		return
	}
	if s.held != "" {
		s.emit(s.held, false)
		s.held = ""
	}
	s.emit(body, false)
	if len(body) < len(t) {
		s.held = t[len(body):]
	}
}

const (
	tagNone = iota
	tagIncomplete
	tagOpenOutput
	tagCloseOutput
	tagOther
)

// tagAt reads a tag at the start of p (p[0] == '<'): its length and kind,
// tagIncomplete when p ends before it could be told, tagNone when p does
// not start with one.
func tagAt(p string) (int, int) {
	i := 1
	skip := func() {
		for i < len(p) && isSpace(p[i]) {
			i++
		}
	}
	skip()
	closing := false
	if i < len(p) && p[i] == '/' {
		closing = true
		i++
		skip()
	}
	start := i
	for i < len(p) && isLetter(p[i]) {
		i++
	}
	name := p[start:i]
	if i == len(p) {
		if isTagPrefix(name) {
			return 0, tagIncomplete
		}
		return 0, tagNone
	}
	if !isTagName(name) {
		return 0, tagNone
	}
	skip()
	if i == len(p) {
		return 0, tagIncomplete
	}
	if p[i] != '>' || i >= maxTag {
		return 0, tagNone
	}
	switch {
	case !equalFold(name, "output"):
		return i + 1, tagOther
	case closing:
		return i + 1, tagCloseOutput
	}
	return i + 1, tagOpenOutput
}

func isTagName(s string) bool {
	return equalFold(s, "output") || equalFold(s, "thought") || equalFold(s, "answer")
}

// isTagPrefix reports whether s can still grow into a tag name.
func isTagPrefix(s string) bool {
	for _, n := range [...]string{"output", "thought", "answer"} {
		if len(s) <= len(n) && equalFold(s, n[:len(s)]) {
			return true
		}
	}
	return false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// isSpace is regexp's \s: [\t\n\f\r ].
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func trimLeftSpace(s string) string {
	for len(s) > 0 && isUnicodeSpace(s[0]) {
		s = s[1:]
	}
	return s
}

func trimRightSpace(s string) string {
	for len(s) > 0 && isUnicodeSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// isUnicodeSpace is the ASCII white space strings.TrimSpace trims.
func isUnicodeSpace(c byte) bool { return isSpace(c) || c == '\v' }

// hooks serialises a Read's calls to its Input's OnDraft and OnText, and
// remembers whether the answer was passed on.
type hooks struct {
	mu       sync.Mutex
	onDraft  func(Draft)
	onText   func(piece string, thought bool)
	answered bool
}

// newHooks returns in's hooks, nil when it has none (a Read that nobody
// watches allocates nothing for them).
func newHooks(in *Input) *hooks {
	if in.OnDraft == nil && in.OnText == nil {
		return nil
	}
	return &hooks{onDraft: in.OnDraft, onText: in.OnText}
}

func (h *hooks) draft(d Draft) {
	if h == nil || h.onDraft == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.onDraft(d)
}

// text passes a piece on; answer pieces mark the answer as passed on.
func (h *hooks) text(piece string, thought bool) {
	if h == nil || h.onText == nil || piece == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !thought {
		h.answered = true
	}
	h.onText(piece, thought)
}

// answer passes the final answer on as one piece when none of it was
// passed on as it was written.
func (h *hooks) answer(text string) {
	if h == nil || h.onText == nil {
		return
	}
	h.mu.Lock()
	done := h.answered
	h.mu.Unlock()
	if !done {
		h.text(text, false)
	}
}

// stream makes a streamed model call when the model streams and the
// reader's caller wants the text, else a plain one.
func (t *meter) stream(ctx context.Context, kind string, req *llm.Request, onText func(string)) (*llm.Response, error) {
	s, ok := t.m.(llm.Streamer)
	if !ok || onText == nil {
		return t.generate(ctx, kind, req)
	}
	resp, err := s.GenerateStream(llm.WithPurpose(ctx, purposes[kind]), req, onText)
	t.add(kind, resp)
	if err == nil && resp == nil {
		resp = &llm.Response{}
	}
	return resp, err
}
