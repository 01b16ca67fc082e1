package reader

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
)

// piece is one call of OnText.
type piece struct {
	text    string
	thought bool
}

func (p piece) String() string {
	if p.thought {
		return "thought:" + strconv.Quote(p.text)
	}
	return "answer:" + strconv.Quote(p.text)
}

// runs joins consecutive pieces of the same kind.
func runs(ps []piece) []piece {
	var out []piece
	for _, p := range ps {
		if p.text == "" {
			continue
		}
		if n := len(out); n > 0 && out[n-1].thought == p.thought {
			out[n-1].text += p.text
			continue
		}
		out = append(out, p)
	}
	return out
}

// oracleTag is the splitter's tag grammar as a regular expression.
var oracleTag = regexp.MustCompile(`(?i)<\s*(/?)\s*(output|thought|answer)\s*>`)

// splitOracle is what the splitter passes on, computed over the whole
// reply: text outside <output> blocks as thought, each block's text (tags
// removed) trimmed as the answer.
func splitOracle(reply string) []piece {
	var out []piece
	inOutput := false
	var block strings.Builder
	endBlock := func() {
		if t := strings.Trim(block.String(), " \t\n\r\f\v"); t != "" {
			out = append(out, piece{t, false})
		}
		block.Reset()
	}
	pos := 0
	for _, m := range oracleTag.FindAllStringSubmatchIndex(reply, -1) {
		if m[1]-m[0] > maxTag {
			continue
		}
		seg := reply[pos:m[0]]
		if inOutput {
			block.WriteString(seg)
		} else if seg != "" {
			out = append(out, piece{seg, true})
		}
		pos = m[1]
		if strings.EqualFold(reply[m[4]:m[5]], "output") {
			closing := m[3] > m[2]
			if inOutput {
				endBlock()
			}
			inOutput = !closing
		}
	}
	if inOutput {
		block.WriteString(reply[pos:])
		endBlock()
	} else if pos < len(reply) {
		out = append(out, piece{reply[pos:], true})
	}
	return runs(out)
}

// split runs the splitter over reply cut at the given sizes.
func split(reply string, cuts []byte) []piece {
	var got []piece
	s := &tagSplitter{emit: func(p string, thought bool) { got = append(got, piece{p, thought}) }}
	k := 0
	for len(reply) > 0 {
		n := len(reply)
		if len(cuts) > 0 {
			n = min(n, int(cuts[k%len(cuts)])%9+1)
			k++
		}
		s.write(reply[:n])
		reply = reply[n:]
	}
	s.flush()
	return runs(got)
}

func TestTagSplitter(t *testing.T) {
	for _, c := range []struct {
		reply string
		want  []piece
	}{
		{"<thought>The table gives 248.</thought><output>The North Mole had 248 nests.</output>",
			[]piece{{"The table gives 248.", true}, {"The North Mole had 248 nests.", false}}},
		{"< Thought >x</ THOUGHT>\n< output >\n  248 nests \n</output>\n", []piece{{"x\n", true}, {"248 nests", false}, {"\n", true}}},
		{"no tags at all", []piece{{"no tags at all", true}}},
		{"a < b and <outputs> <out", []piece{{"a < b and <outputs> <out", true}}},
		{"<output>a <answer>b</answer> c", []piece{{"a b c", false}}},
	} {
		for _, cuts := range [][]byte{nil, {0}, {1, 3}, {6, 2, 0}} {
			got := split(c.reply, cuts)
			if len(got) != len(c.want) {
				t.Fatalf("%q cut %v: %q, want %q", c.reply, cuts, got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("%q cut %v: %q, want %q", c.reply, cuts, got, c.want)
				}
			}
			if o := splitOracle(c.reply); len(o) != len(c.want) {
				t.Fatalf("oracle %q disagrees with the table", o)
			}
		}
	}
}

// The answer pieces of a reply with one <output> block are the answer
// extractOutput takes.
func TestTagSplitterMatchesExtractOutput(t *testing.T) {
	for _, reply := range []string{
		defaultScript().Reasoner,
		"<thought>\nTwo workers agree.\n</thought>\n<output>\nYes, the survey counted 248 nests.\n</output>",
		"<output>Paris</output>",
		"<thought>unclosed thought <output> late answer",
	} {
		want, _ := extractOutput(reply)
		var ans strings.Builder
		for _, p := range split(reply, []byte{2, 5}) {
			if !p.thought {
				ans.WriteString(p.text)
			}
		}
		if ans.String() != want {
			t.Errorf("%q: streamed answer %q, extractOutput %q", reply, ans.String(), want)
		}
	}
}

// FuzzTagSplitter checks the splitter against splitOracle for any reply
// and any cut into pieces.
func FuzzTagSplitter(f *testing.F) {
	for _, s := range []string{
		"<thought>x</thought><output>y</output>", "< / OUTPUT >", "<<output>>a</output", "<output>  </output>",
		"<output> a </output> b <output> c ", "<thought" + strings.Repeat(" ", 30) + ">", "x<answ",
	} {
		f.Add(s, []byte{1, 2, 3})
	}
	f.Fuzz(func(t *testing.T, reply string, cuts []byte) {
		got, want := split(reply, cuts), splitOracle(reply)
		if len(got) != len(want) {
			t.Fatalf("%q, want %q", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q, want %q", got, want)
			}
		}
	})
}

// A VLM read tells OnDraft of every draft as it is read and OnText the
// reasoner's reply as it streams; the answer pieces make the answer.
func TestReadStreams(t *testing.T) {
	m := defaultScript().Model()
	in := input(t, 6, 0.1)
	var drafts []Draft
	var pieces []piece
	in.OnDraft = func(d Draft) { drafts = append(drafts, d) }
	in.OnText = func(p string, thought bool) {
		if len(drafts) != 6 {
			t.Errorf("text before every draft was told (%d of 6)", len(drafts))
		}
		pieces = append(pieces, piece{p, thought})
	}
	ans, err := (&VLM{Model: m}).Read(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, d := range drafts {
		seen[d.Chain] = true
		if d.Status == "" {
			t.Errorf("draft %d told before it was read", d.Chain)
		}
	}
	if len(drafts) != 6 || len(seen) != 6 {
		t.Fatalf("%d drafts told for 6 chains", len(drafts))
	}
	r := runs(pieces)
	if len(r) != 2 || !r[0].thought || r[0].text != "The table gives 248." || r[1].text != ans.Text {
		t.Fatalf("pieces %q for answer %q", r, ans.Text)
	}
	if len(pieces) < 4 {
		t.Errorf("%d pieces: the reply was not streamed", len(pieces))
	}
}

// A model that does not stream, and the extractive reader, tell OnText the
// answer once, whole.
func TestReadWithoutStreamingModel(t *testing.T) {
	fm := defaultScript().Model()
	plain := llmfunc.Model(fm.Generate)
	for _, rd := range []Reader{&VLM{Model: plain}, &Extractive{}} {
		in := input(t, 4, 0.1)
		var pieces []piece
		in.OnText = func(p string, thought bool) { pieces = append(pieces, piece{p, thought}) }
		ans, err := rd.Read(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if ans.Text == "" || len(pieces) != 1 || pieces[0] != (piece{ans.Text, false}) {
			t.Fatalf("%T: pieces %q for answer %q", rd, pieces, ans.Text)
		}
	}
}

// BenchmarkTagSplitter streams a reasoner reply of 600 pieces through the
// splitter: allocations come only from the few tags cut across pieces.
func BenchmarkTagSplitter(b *testing.B) {
	var ps []string
	ps = append(ps, "<", "thought", ">")
	for i := 0; i < 200; i++ {
		ps = append(ps, " the", " table")
	}
	ps = append(ps, "</", "thought", ">", "<", "output", ">")
	for i := 0; i < 194; i++ {
		ps = append(ps, " nests")
	}
	ps = append(ps, "</", "output", ">")
	n := 0
	s := &tagSplitter{emit: func(p string, thought bool) { n += len(p) }}
	b.ReportAllocs()
	for b.Loop() {
		*s = tagSplitter{emit: s.emit, pending: s.pending}
		for _, p := range ps {
			s.write(p)
		}
		s.flush()
	}
	b.ReportMetric(float64(len(ps)), "pieces/op")
}

// tokenModel answers workers and the question type with canned text and
// streams a reasoner reply of n pieces made beforehand, so that what a
// benchmark counts is the reader's own work per piece.
type tokenModel struct {
	worker, qtype *llm.Response
	pieces        []string
	reply         *llm.Response
}

func newTokenModel(n int) *tokenModel {
	m := &tokenModel{
		worker: &llm.Response{Text: `{"status":"supported","answer":"248","evidence":"North Mole 248"}`, FinishReason: "stop"},
		qtype:  &llm.Response{Text: `{"type":"value","length":"short"}`, FinishReason: "stop"},
	}
	m.pieces = append(m.pieces, "<", "thought", ">", "ok", "</", "thought", ">", "<", "output", ">")
	for i := 0; i < n; i++ {
		m.pieces = append(m.pieces, " nests")
	}
	m.pieces = append(m.pieces, "</", "output", ">")
	m.reply = &llm.Response{Text: strings.Join(m.pieces, ""), FinishReason: "stop"}
	return m
}

func (m *tokenModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	p := req.Messages[0].Parts[0].Text
	switch {
	case strings.Contains(p, mQType):
		return m.qtype, nil
	case strings.Contains(p, mReasoner):
		return m.reply, nil
	}
	return m.worker, nil
}

func (m *tokenModel) GenerateStream(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	for _, p := range m.pieces {
		onText(p)
	}
	return m.reply, nil
}

// BenchmarkReadStreamPieces reads 16 chains with a reasoner reply of n
// pieces, streamed to OnText and not. The allocations per piece are
// (allocs(n=4096) − allocs(n=256)) / 3840: zero means streaming costs
// nothing per piece in the reader beyond the piece the model made.
func BenchmarkReadStreamPieces(b *testing.B) {
	for _, streamed := range []bool{false, true} {
		for _, n := range []int{256, 4096} {
			b.Run(fmt.Sprintf("streamed=%v/pieces=%d", streamed, n), func(b *testing.B) {
				m := newTokenModel(n)
				v := &VLM{Model: m}
				in := input(b, 16, 1)
				got := 0
				if streamed {
					in.OnText = func(p string, thought bool) { got += len(p) }
					in.OnDraft = func(Draft) {}
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := v.Read(context.Background(), in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
