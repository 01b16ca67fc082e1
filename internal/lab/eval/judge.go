package eval

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/jsonx"
	"github.com/flowreader/flowreader/internal/llmfunc"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/reader"
	"github.com/flowreader/flowreader/score"
)

// judgeTemplate is paper v3's Prompt P7, byte-identical to G2-Reader's
// config/prompts/eval.txt as the paper reproduces it (a test checks it
// against ../shared/paper/flowreader-v3.md). It is a Python format string.
//
//go:embed prompts/judge.txt
var judgeTemplate string

// ErrJudge is returned (wrapped) when the judge's reply holds no accuracy.
var ErrJudge = errors.New("eval: judge reply has no accuracy")

// JudgeTemplate returns the P7 template, unfilled.
func JudgeTemplate() string { return judgeTemplate }

// JudgePrompt fills P7 the way Python's str.format does: {question},
// {gold_answers} and {assistant_answer} are replaced and {{ }} become { }.
// Inserted values are not re-scanned.
func JudgePrompt(question, gold, answer string) string {
	vals := map[string]string{"question": question, "gold_answers": gold, "assistant_answer": answer}
	t := judgeTemplate
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		switch {
		case strings.HasPrefix(t[i:], "{{"):
			b.WriteByte('{')
			i++
		case strings.HasPrefix(t[i:], "}}"):
			b.WriteByte('}')
			i++
		case t[i] == '{':
			if j := strings.IndexByte(t[i:], '}'); j > 0 {
				if v, ok := vals[t[i+1:i+j]]; ok {
					b.WriteString(v)
					i += j
					continue
				}
			}
			b.WriteByte(t[i])
		default:
			b.WriteByte(t[i])
		}
	}
	return b.String()
}

// Verdict is the judge's decision on one answer.
type Verdict struct {
	Accuracy  int    `json:"accuracy"`
	Reasoning string `json:"reasoning"`
}

// Judge scores answer against the gold answers with P7 on m, with the
// paper's judge settings (temperature 0, at most 300 tokens). Several gold
// answers are joined with " | ".
func Judge(ctx context.Context, m llm.Model, question string, gold []string, answer string) (Verdict, error) {
	req := llmfunc.UserText(JudgePrompt(question, strings.Join(gold, " | "), answer))
	req.Temperature = 0
	req.MaxTokens = 300
	resp, err := m.Generate(ctx, req)
	if err != nil {
		return Verdict{}, fmt.Errorf("eval: judge: %w", err)
	}
	var v struct {
		Accuracy  *float64 `json:"accuracy"`
		Reasoning string   `json:"reasoning"`
	}
	if err := jsonx.Extract(resp.Text, &v); err != nil || v.Accuracy == nil {
		return Verdict{}, fmt.Errorf("%w: %q", ErrJudge, label(resp.Text, 120))
	}
	out := Verdict{Reasoning: v.Reasoning}
	if *v.Accuracy >= 0.5 {
		out.Accuracy = 1
	}
	return out, nil
}

// AnswerFunc answers a question from the chains one router read over its
// graph; s holds the scores the router routed with (the question's
// relevance h is s.H).
type AnswerFunc func(ctx context.Context, spec *RouterSpec, q *Question, g *graph.Graph, s *score.Scores, chains []flow.Chain) (string, error)

// VLMAnswerer answers with the pipeline's own reader, [reader.VLM] on m:
// one worker per chain, the question-type call and the reasoner (paper v3
// §3.4), so that a judged run measures what flowreader answers. The
// reasoner sees each chain's most relevant nodes by the question's h. A
// router of type *flow.Classic is read with paper v1's prompts, as the
// facade's Classic preset does; every other router with v3's. The runner
// knows no document folder, so nodes are read as text (no images).
func VLMAnswerer(m llm.Model) AnswerFunc {
	v3 := &reader.VLM{Model: m}
	v1 := &reader.VLM{Model: m, Classic: true}
	return func(ctx context.Context, spec *RouterSpec, q *Question, g *graph.Graph, s *score.Scores, chains []flow.Chain) (string, error) {
		rd := v3
		if _, ok := spec.Router.(*flow.Classic); ok {
			rd = v1
		}
		in := &reader.Input{Question: q.Text, Graph: g, Chains: chains}
		if s != nil && len(s.H) > 0 {
			in.Relevance = s.H
		}
		a, err := rd.Read(ctx, in)
		if err != nil {
			return "", fmt.Errorf("eval: answering: %w", err)
		}
		return a.Text, nil
	}
}
