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
	"github.com/flowreader/flowreader/llm"
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
	req := llm.UserText(JudgePrompt(question, strings.Join(gold, " | "), answer))
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

// AnswerFunc answers a question from the chains read over its graph.
type AnswerFunc func(ctx context.Context, q *Question, g *graph.Graph, chains []flow.Chain) (string, error)

// maxEvidenceChars bounds the evidence in one answer prompt (16 workers ×
// 6,000 characters in the paper; here one call, so the reasoner's bound of
// 4 × 2,000 per chain is applied to the whole context).
const maxEvidenceChars = 24000

// ModelAnswerer is a plain single-call reader for accuracy runs without
// the full reader: the chains' node texts in routed order, then the
// question. It is a baseline reader, not the paper's worker/reasoner
// pipeline.
func ModelAnswerer(m llm.Model) AnswerFunc {
	return func(ctx context.Context, q *Question, g *graph.Graph, chains []flow.Chain) (string, error) {
		var b strings.Builder
		b.WriteString("Answer the question using only the evidence below. If the evidence does not contain the answer, say \"Not answerable\". Answer briefly.\n\nEvidence:\n")
		seen := map[int]bool{}
		for _, c := range chains {
			for _, v := range c.Nodes {
				if seen[v] || v < 0 || v >= g.Len() {
					continue
				}
				seen[v] = true
				n := &g.Nodes[v]
				t := n.Content
				if n.Caption != "" && n.Caption != t {
					t = n.Caption + "\n" + t
				}
				if b.Len()+len(t) > maxEvidenceChars {
					continue
				}
				fmt.Fprintf(&b, "[%s] %s\n", n.ID, t)
			}
		}
		fmt.Fprintf(&b, "\nQuestion: %s\nAnswer:", q.Text)
		req := llm.UserText(b.String())
		resp, err := m.Generate(ctx, req)
		if err != nil {
			return "", fmt.Errorf("eval: answering: %w", err)
		}
		return strings.TrimSpace(resp.Text), nil
	}
}
