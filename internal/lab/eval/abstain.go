package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/graph"
)

// Abstention counts how often a pipeline's answer is empty (an abstention)
// on QASPER questions that every annotator marked unanswerable, on those
// that no annotator did, and on an off-topic question asked of every paper.
// Questions whose annotators disagree are left out.
type Abstention struct {
	Papers                     int
	Unanswerable, Abstained    int
	Answerable, FalseAbstained int
	// Refused names the answerable questions answered with nothing
	// (question ID and text).
	Refused                     []string
	OffTopic, OffTopicAbstained int
	// Answered holds, per answered unanswerable question, its ID and the
	// answer given (for inspection).
	Answered [][2]string
}

// OffTopicQuestion is the question Abstention asks of every paper.
const OffTopicQuestion = "What is the capital of Japan?"

// QASPERAbstention builds one graph per paper of the QASPER file at path
// (the documents LoadQASPER makes) with cfg's pipeline and asks each
// question, unanswerable ones included (LoadQASPER skips those: they have
// no evidence). An empty answer text is an abstention.
func QASPERAbstention(ctx context.Context, path string, cfg flowreader.Config) (*Abstention, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: qasper: %w", err)
	}
	defer f.Close()
	var papers map[string]qasperPaper
	if err := json.NewDecoder(f).Decode(&papers); err != nil {
		return nil, fmt.Errorf("eval: qasper %s: %w: %v", path, ErrFormat, err)
	}
	ids := make([]string, 0, len(papers))
	for id := range papers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	p, err := flowreader.New(cfg)
	if err != nil {
		return nil, err
	}
	out := &Abstention{}
	for _, id := range ids {
		paper := papers[id]
		doc, _, _ := qasperDoc(id, paper)
		g, err := p.Build(ctx, []graph.Document{doc})
		if err != nil {
			return nil, fmt.Errorf("eval: qasper %s: build: %w", id, err)
		}
		ix, err := p.Open(ctx, g)
		if err != nil {
			return nil, fmt.Errorf("eval: qasper %s: %w", id, err)
		}
		out.Papers++
		ask := func(q string) (string, error) {
			res, err := ix.Ask(ctx, q, flowreader.Options{})
			if err != nil {
				return "", fmt.Errorf("eval: qasper %s: %q: %w", id, q, err)
			}
			return res.Text, nil
		}
		for _, qa := range paper.QAs {
			un := 0
			for _, a := range qa.Answers {
				if a.Answer.Unanswerable {
					un++
				}
			}
			if len(qa.Answers) == 0 || (un > 0 && un < len(qa.Answers)) {
				continue
			}
			text, err := ask(qa.Question)
			if err != nil {
				return nil, err
			}
			if un > 0 {
				out.Unanswerable++
				if text == "" {
					out.Abstained++
				} else {
					out.Answered = append(out.Answered, [2]string{qa.ID, text})
				}
			} else {
				out.Answerable++
				if text == "" {
					out.FalseAbstained++
					out.Refused = append(out.Refused, qa.ID+" "+qa.Question)
				}
			}
		}
		text, err := ask(OffTopicQuestion)
		if err != nil {
			return nil, err
		}
		out.OffTopic++
		if text == "" {
			out.OffTopicAbstained++
		}
	}
	return out, nil
}
