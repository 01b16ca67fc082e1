package reader

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseWorker(t *testing.T) {
	cases := []struct {
		name, in     string
		status       Status
		answer, evid string
		ok           bool
	}{
		{"plain", `{"status":"supported","answer":"248","evidence":"North Mole 248"}`, StatusSupported, "248", "North Mole 248", true},
		{"fenced", "Here you go:\n```json\n{\"status\": \"supported\", \"answer\": \"Dr Ilse Marrow\", \"evidence\": \"survey leader\"}\n```\nDone.", StatusSupported, "Dr Ilse Marrow", "survey leader", true},
		{"prose around", `I read the table. {"status":"supported","answer":"31","evidence":"East Arm 31"} Hope that helps!`, StatusSupported, "31", "East Arm 31", true},
		{"not reported", `{"status":"not_reported","answer":"","evidence":""}`, StatusNotReported, "", "", true},
		{"not reported spaced", `{"status":"Not Reported","answer":"n/a"}`, StatusNotReported, "", "", true},
		{"single quotes", `{'status': 'supported', 'answer': 'kittiwake', 'evidence': 'Main species'}`, StatusSupported, "kittiwake", "Main species", true},
		{"single quotes with apostrophe", `{'status': 'supported', 'answer': "the survey's leader", 'evidence': 'x'}`, StatusSupported, "the survey's leader", "x", true},
		{"trailing comma", `{"status":"supported","answer":"66","evidence":"Spit 66",}`, StatusSupported, "66", "Spit 66", true},
		{"numeric answer", `{"status":"supported","answer":248,"evidence":"row"}`, StatusSupported, "248", "row", true},
		{"list answer", `{"status":"supported","answer":["North Mole","East Arm"],"evidence":"table"}`, StatusSupported, "North Mole; East Arm", "table", true},
		{"null evidence", `{"status":"supported","answer":"yes","evidence":null}`, StatusSupported, "yes", "", true},
		{"truncated", `{"status":"supported","answer":"The East Arm lost its tern col`, StatusSupported, "The East Arm lost its tern col", "", true},
		{"unescaped quote", `{"status":"supported","answer":"the "North" Mole","evidence":"x"}`, StatusSupported, `the "North" Mole`, "x", true},
		{"think block", `<think>maybe {"status":"not_reported"}</think>{"status":"supported","answer":"2.1 metres","evidence":"2.1 metres"}`, StatusSupported, "2.1 metres", "2.1 metres", true},
		{"supported but empty", `{"status":"supported","answer":"","evidence":"x"}`, StatusNotReported, "", "", true},
		{"supported says not reported", `{"status":"supported","answer":"Not reported.","evidence":""}`, StatusNotReported, "", "", true},
		{"unknown status", `{"status":"maybe","answer":"x"}`, StatusNotReported, "", "", true},
		{"missing status", `{"answer":"248"}`, StatusSupported, "248", "", true},
		{"capital keys", `{"Status":"supported","Answer":"248"}`, StatusSupported, "248", "", true},
		{"braces in strings", `{"status":"supported","answer":"a {b} c","evidence":"}"}`, StatusSupported, "a {b} c", "}", true},
		{"second object", `{"note":"ignore"} {"status":"supported","answer":"7"}`, StatusSupported, "7", "", true},
		{"no json", `The answer is 248.`, StatusNotReported, "", "", false},
		{"empty", ``, StatusNotReported, "", "", false},
		{"garbage", `{{{{]]]`, StatusNotReported, "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := parseWorker(c.in)
			if got.Status != c.status || got.Answer != c.answer || got.Evidence != c.evid || ok != c.ok {
				t.Errorf("parseWorker(%q) = %+v, %v; want %s %q %q %v", c.in, got, ok, c.status, c.answer, c.evid, c.ok)
			}
		})
	}
}

func FuzzParseWorker(f *testing.F) {
	for _, s := range []string{
		`{"status":"supported","answer":"248","evidence":"North Mole 248"}`,
		"```json\n{\"status\":\"not_reported\",\"answer\":\"\",\"evidence\":\"\"}\n```",
		`{'status': 'supported', 'answer': 'x',}`,
		`{"status":"supported","answer":"cut`,
		`<think>{</think>{"answer":[1,2,{"a":null}]}`,
		`"status": "supported" "answer": 'a\'b'`,
		"{\"status\":\"supported\",\"answer\":\"\xff\xfe\"}",
		`{"status":"supported","answer":"\u00e9\ud800"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, ok := parseWorker(s)
		switch out.Status {
		case StatusSupported:
			if out.Answer == "" || !ok {
				t.Fatalf("supported without answer: %+v %v", out, ok)
			}
		case StatusNotReported:
			if out.Answer != "" || out.Evidence != "" {
				t.Fatalf("not_reported with content: %+v", out)
			}
		default:
			t.Fatalf("status %q", out.Status)
		}
		// Determinism.
		again, ok2 := parseWorker(s)
		if again != out || ok2 != ok {
			t.Fatal("not deterministic")
		}
	})
}

func TestExtractOutput(t *testing.T) {
	cases := []struct{ in, text, fb string }{
		{"<thought>Reasoning.</thought> <output>The North Mole had 248 nests.</output>", "The North Mole had 248 nests.", ""},
		{"<thought>x</thought><output>\n  Yes, it did. \n</output>\nextra", "Yes, it did.", ""},
		{"<output>draft</output> <thought>no</thought> <output>final</output>", "final", ""},
		{"<thought>x</thought><OUTPUT>unclosed answer", "unclosed answer", ""},
		{"<thought>we think</thought> Plain answer.", "Plain answer.", "no_output_tag"},
		{"Just an answer.", "Just an answer.", "no_output_tag"},
		{"<thought>only thinking, cut off", "", "no_output_tag"},
		{"<output></output>", "", "no_output_tag"},
	}
	for _, c := range cases {
		text, fb := extractOutput(c.in)
		if text != c.text || fb != c.fb {
			t.Errorf("extractOutput(%q) = %q, %q; want %q, %q", c.in, text, fb, c.text, c.fb)
		}
	}
}

func TestReasonerFallbackToBestDraft(t *testing.T) {
	s := defaultScript()
	s.Reasoner = "<thought>I ran out of tokens"
	v := &VLM{Model: s.Model()}
	ans, err := v.Read(t.Context(), input(t, 3, 1))
	if err != nil {
		t.Fatal(err)
	}
	if ans.Text != "248" || ans.Trace.ReasonerFallback != "best_draft" {
		t.Errorf("answer %q, fallback %q", ans.Text, ans.Trace.ReasonerFallback)
	}
}

func TestParseQuestionType(t *testing.T) {
	cases := []struct {
		in   string
		want questionType
		ok   bool
		k    int
	}{
		{`{"type":"list","length":"sentence"}`, questionType{"list", "sentence"}, true, 4},
		{`{"type":"value","length":"short"}`, questionType{"value", "short"}, true, 2},
		{`{"type":"Yes/No","length":"paragraph"}`, questionType{"yes_no", "paragraph"}, true, 4},
		{"```\n{\"type\": \"choice\", \"length\": \"short\"}\n```", questionType{"choice", "short"}, true, 2},
		{`{"type":"poem","length":"epic"}`, questionType{}, false, 4},
		{`nothing`, questionType{}, false, 4},
	}
	for _, c := range cases {
		got, ok := parseQuestionType(c.in)
		if got != c.want || ok != c.ok || got.KeyNodes() != c.k {
			t.Errorf("parseQuestionType(%q) = %+v %v (K=%d)", c.in, got, ok, got.KeyNodes())
		}
	}
}

func TestParseJudge(t *testing.T) {
	for in, want := range map[string][2]bool{
		"YES": {true, true}, "no": {false, true}, "**NO**.": {false, true}, " Yes, they conflict": {true, true},
		"Maybe": {false, false}, "": {false, false},
	} {
		c, ok := parseJudge(in)
		if c != want[0] || ok != want[1] {
			t.Errorf("ParseJudge(%q) = %v %v", in, c, ok)
		}
	}
}

func TestParseScorers(t *testing.T) {
	for in, want := range map[string]float64{
		"EXISTS: YES\nSCORE: 0.7": 0.7, "EXISTS: NO\nSCORE: 0.9": 0, "exists: yes score: 1.5": 1,
		"EXISTS: **YES** SCORE: .35": 0.35, "SCORE: 0.5": math.NaN(), "EXISTS: YES": math.NaN(),
	} {
		got := parseBridge(in)
		if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("ParseBridge(%q) = %v, want %v", in, got, want)
		}
	}
	for in, want := range map[string]float64{"0.85": 0.85, "Score: 0.3.": 0.3, "-1": 0, "7": 1, "useless": math.NaN()} {
		got := parseEdgeScore(in)
		if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("ParseEdgeScore(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{{"hello", 10, "hello"}, {"hello", 5, "hello"}, {"hello", 4, "hel…"}, {"héllo", 2, "h…"}, {"abc", 0, ""}, {"abc", 1, "…"}} {
		got := truncate(c.s, c.n)
		if got != c.want || utf8.RuneCountInString(got) > max(c.n, 0) {
			t.Errorf("truncate(%q, %d) = %q", c.s, c.n, got)
		}
	}
	if strings.Count(truncate(strings.Repeat("x", 100), 10), "x") != 9 {
		t.Error("truncate length")
	}
}

// FuzzReplyParsers feeds arbitrary model replies to every other reply
// parser: none may panic, and their results stay in range.
func FuzzReplyParsers(f *testing.F) {
	for _, s := range []string{
		"<thought>x</thought><output>y</output>", "<output>", "EXISTS: YES SCORE: 0.5", "0.7", "YES", `{"type":"list","length":"short"}`,
		"<thought><output></thought></output>", "SCORE: 1e400", "EXISTS:NO",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text, _ := extractOutput(s)
		if strings.Contains(strings.ToLower(text), "<output>") {
			t.Fatalf("tag left in %q", text)
		}
		for _, v := range []float64{parseBridge(s), parseEdgeScore(s)} {
			if !math.IsNaN(v) && (v < 0 || v > 1) {
				t.Fatalf("score %v out of [0,1]", v)
			}
		}
		parseJudge(s)
		qt, _ := parseQuestionType(s)
		if k := qt.KeyNodes(); k != 2 && k != 4 {
			t.Fatalf("key nodes %d", k)
		}
	})
}
