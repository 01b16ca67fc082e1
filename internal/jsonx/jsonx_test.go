package jsonx

import (
	"errors"
	"testing"

	"github.com/flowreader/flowreader/llm"
)

type verdict struct {
	Answer string   `json:"answer"`
	Nodes  []int    `json:"nodes"`
	Score  *float64 `json:"score"`
}

func TestExtract(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", `{"answer":"a"}`, "a"},
		{"prose", `Sure! Here it is: {"answer":"b","nodes":[1,2]} Hope that helps.`, "b"},
		{"fence", "Result:\n```json\n{\"answer\": \"c\"}\n```\n", "c"},
		{"fence no tag", "```\n{\"answer\": \"d\"}\n```", "d"},
		{"think", "<think>maybe {\"answer\":\"no\"}</think>\n{\"answer\":\"e\"}", "e"},
		{"only closing think", "reasoning here {\"answer\":\"no\"} </think> {\"answer\":\"f\"}", "f"},
		{"brackets in strings", `x {"answer":"g } ]","nodes":[]} y`, "g } ]"},
		{"array first then object", `[1,2] then {"answer":"h"}`, "h"},
		{"trailing comma", `{"answer":"i","nodes":[1,2,],}`, "i"},
		{"unclosed fence", "```json\n{\"answer\":\"j\"}", "j"},
		{"nested", `note: {"answer":"k","nodes":[3],"extra":{"deep":[{"x":1}]}}`, "k"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v verdict
			if err := Extract(tc.in, &v); err != nil {
				t.Fatal(err)
			}
			if v.Answer != tc.want {
				t.Fatalf("answer %q, want %q", v.Answer, tc.want)
			}
		})
	}
}

func TestExtractFailures(t *testing.T) {
	for _, in := range []string{"", "no json here", "{broken", `{"answer": 3}`, "<think>{\"answer\":\"x\"}"} {
		v := verdict{Answer: "keep"}
		err := Extract(in, &v)
		if !errors.Is(err, ErrNoJSON) || !errors.Is(err, llm.ErrInvalidOutput) {
			t.Errorf("%q: err = %v", in, err)
		}
		if v.Answer != "keep" {
			t.Errorf("%q: target written on failure", in)
		}
	}
	if err := Extract("{}", verdict{}); err == nil {
		t.Fatal("non-pointer accepted")
	}
}

func TestExtractArrayAndScalar(t *testing.T) {
	var xs []int
	if err := Extract("the ids are [4, 5, 6].", &xs); err != nil || len(xs) != 3 || xs[2] != 6 {
		t.Fatal(xs, err)
	}
	var b bool
	if err := Extract(" true ", &b); err != nil || !b {
		t.Fatal(b, err)
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		`{"answer":"a"}`, "```json\n{\"a\":[1,2,]}\n```", "<think>x</think>[1]", `"{\"`, "{[}]", "```", "<think>",
		`text {"answer":"x","nodes":[1,{"y":"]"}]} more`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if err := Extract(s, &v); err != nil && !errors.Is(err, llm.ErrInvalidOutput) {
			t.Fatalf("error %v does not wrap ErrInvalidOutput", err)
		}
		var w verdict
		_ = Extract(s, &w)
	})
}
