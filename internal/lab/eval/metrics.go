package eval

import (
	"hash/fnv"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
)

// Metrics are one question's figures for one router at one budget.
type Metrics struct {
	// EvidenceRecall is the best annotator's share of gold units covered;
	// meaningful only when HasEvidence.
	EvidenceRecall float64
	// AllGold reports whether some annotator's units are all covered.
	AllGold     bool
	HasEvidence bool
	// DocRecall is the share of gold documents with a node read; meaningful
	// only when HasDoc.
	DocRecall float64
	HasDoc    bool
	// Distinct, Reads and Chains count distinct nodes, node reads (with
	// repeats across chains) and chains.
	Distinct, Reads, Chains int
	// Dups counts the distinct nodes read that duplicate another node read
	// before them: a copy of the same item (Question.CopyOf: an Augment
	// copy and its original, or two copies) or a node of the same
	// normalised text. Distinct − Dups is the number of distinct contents
	// read.
	Dups int
	// Judged reports whether the answer was scored (accuracy mode) and
	// Correct the judge's verdict.
	Judged, Correct bool
	// HasF1 reports that the question is extractive and was answered by the
	// runner's Extract answerer; F1 is QASPER's answer F1 of that answer.
	HasF1 bool
	F1    float64
	// Heldout marks a question of the held-out part (HeldOut).
	Heldout bool
}

// Measure computes q's metrics for the chains read over g, a graph built from
// q.Docs whose nodes carry Doc = document ID and Order = item index.
func Measure(q *Question, g *graph.Graph, chains []flow.Chain) Metrics {
	var m Metrics
	read := map[ItemRef]bool{}
	docs := map[string]bool{}
	origins := map[ItemRef]bool{}
	texts := map[string]bool{}
	for _, c := range chains {
		if len(c.Nodes) == 0 {
			continue
		}
		m.Chains++
		m.Reads += len(c.Nodes)
		for _, v := range c.Nodes {
			if v < 0 || v >= len(g.Nodes) {
				continue
			}
			n := &g.Nodes[v]
			doc := n.Doc
			if o, ok := q.CopyOf[doc]; ok {
				doc = o
			}
			docs[doc] = true
			r := ItemRef{Doc: n.Doc, Item: n.Order}
			if read[r] {
				continue
			}
			read[r] = true
			m.Distinct++
			o, t := ItemRef{Doc: doc, Item: n.Order}, normText(n.Content)
			if origins[o] || (t != "" && texts[t]) {
				m.Dups++
			}
			origins[o] = true
			if t != "" {
				texts[t] = true
			}
		}
	}
	for _, units := range q.Gold {
		if len(units) == 0 {
			continue
		}
		covered := 0
		for _, u := range units {
			for _, it := range u.Items {
				if read[it] {
					covered++
					break
				}
			}
		}
		rec := float64(covered) / float64(len(units))
		if !m.HasEvidence || rec > m.EvidenceRecall {
			m.EvidenceRecall = rec
		}
		m.HasEvidence = true
		if covered == len(units) {
			m.AllGold = true
		}
	}
	if len(q.MainDocs) > 0 {
		m.HasDoc = true
		hit := 0
		for _, d := range q.MainDocs {
			if docs[d] {
				hit++
			}
		}
		m.DocRecall = float64(hit) / float64(len(q.MainDocs))
	}
	return m
}

// Summary aggregates Metrics over questions.
type Summary struct {
	Questions int
	// EvidenceQuestions and DocQuestions count the questions where each
	// recall is defined; the means below are over those.
	EvidenceQuestions, DocQuestions        int
	EvidenceRecall, AllGoldRate, DocRecall float64
	// Distinct, Reads and Chains are means per question; ChainLength is
	// reads per chain (0 without chains).
	Distinct, Reads, Chains, ChainLength float64
	// DupShare is the share of the distinct nodes read that duplicate
	// another node read (Σ Dups / Σ Distinct; 0 when nothing was read).
	DupShare float64
	// JudgedQuestions counts the questions with a judged answer and
	// Accuracy is the judge's mean over them (accuracy mode only).
	JudgedQuestions int
	Accuracy        float64
	// F1Questions counts the extractive questions answered by the runner's
	// Extract answerer and AnswerF1 is their mean QASPER answer F1.
	F1Questions int
	AnswerF1    float64
	// HeldF1Questions and HeldAnswerF1 are the same over the held-out
	// part of the questions (HeldOut); the rest is the tuning part.
	HeldF1Questions int
	HeldAnswerF1    float64
}

// Summarize averages ms.
func Summarize(ms []Metrics) Summary {
	var s Summary
	s.Questions = len(ms)
	var reads, chains float64
	for _, m := range ms {
		if m.HasEvidence {
			s.EvidenceQuestions++
			s.EvidenceRecall += m.EvidenceRecall
			if m.AllGold {
				s.AllGoldRate++
			}
		}
		if m.HasDoc {
			s.DocQuestions++
			s.DocRecall += m.DocRecall
		}
		if m.Judged {
			s.JudgedQuestions++
			if m.Correct {
				s.Accuracy++
			}
		}
		if m.HasF1 {
			s.F1Questions++
			s.AnswerF1 += m.F1
			if m.Heldout {
				s.HeldF1Questions++
				s.HeldAnswerF1 += m.F1
			}
		}
		s.Distinct += float64(m.Distinct)
		s.DupShare += float64(m.Dups)
		reads += float64(m.Reads)
		chains += float64(m.Chains)
	}
	if s.EvidenceQuestions > 0 {
		s.EvidenceRecall /= float64(s.EvidenceQuestions)
		s.AllGoldRate /= float64(s.EvidenceQuestions)
	}
	if s.DocQuestions > 0 {
		s.DocRecall /= float64(s.DocQuestions)
	}
	if s.JudgedQuestions > 0 {
		s.Accuracy /= float64(s.JudgedQuestions)
	}
	if s.F1Questions > 0 {
		s.AnswerF1 /= float64(s.F1Questions)
	}
	if s.Distinct > 0 {
		s.DupShare /= s.Distinct
	}
	if s.HeldF1Questions > 0 {
		s.HeldAnswerF1 /= float64(s.HeldF1Questions)
	}
	if s.Questions > 0 {
		n := float64(s.Questions)
		s.Distinct /= n
		s.Reads = reads / n
		s.Chains = chains / n
	}
	if chains > 0 {
		s.ChainLength = reads / chains
	}
	return s
}

// Macro averages dataset summaries with equal weight per dataset (each
// figure over the summaries where it is defined).
func Macro(ss []Summary) Summary {
	var out Summary
	ne, nd, nj, nf, n := 0, 0, 0, 0, 0
	for _, s := range ss {
		out.Questions += s.Questions
		if s.EvidenceQuestions > 0 {
			ne++
			out.EvidenceQuestions += s.EvidenceQuestions
			out.EvidenceRecall += s.EvidenceRecall
			out.AllGoldRate += s.AllGoldRate
		}
		if s.DocQuestions > 0 {
			nd++
			out.DocQuestions += s.DocQuestions
			out.DocRecall += s.DocRecall
		}
		if s.JudgedQuestions > 0 {
			nj++
			out.JudgedQuestions += s.JudgedQuestions
			out.Accuracy += s.Accuracy
		}
		if s.F1Questions > 0 {
			nf++
			out.F1Questions += s.F1Questions
			out.AnswerF1 += s.AnswerF1
			out.HeldF1Questions += s.HeldF1Questions
			out.HeldAnswerF1 += s.HeldAnswerF1
		}
		if s.Questions > 0 {
			n++
			out.Distinct += s.Distinct
			out.Reads += s.Reads
			out.Chains += s.Chains
			out.ChainLength += s.ChainLength
			out.DupShare += s.DupShare
		}
	}
	if ne > 0 {
		out.EvidenceRecall /= float64(ne)
		out.AllGoldRate /= float64(ne)
	}
	if nd > 0 {
		out.DocRecall /= float64(nd)
	}
	if nj > 0 {
		out.Accuracy /= float64(nj)
	}
	if nf > 0 {
		out.AnswerF1 /= float64(nf)
		out.HeldAnswerF1 /= float64(nf)
	}
	if n > 0 {
		out.Distinct /= float64(n)
		out.Reads /= float64(n)
		out.Chains /= float64(n)
		out.ChainLength /= float64(n)
		out.DupShare /= float64(n)
	}
	return out
}

// HeldOut reports whether the question with this ID is in the held-out
// part of a dataset: FNV-1a (32 bits) of the ID is 0 modulo 3, a split
// fixed before the extractive reader was tuned, so that its answer F1 on
// the held-out part is a figure on questions it was not tuned on.
func HeldOut(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%3 == 0
}

// TuneF1 is the mean answer F1 of the tuning part (the questions not held
// out), and how many there are.
func (s Summary) TuneF1() (float64, int) {
	n := s.F1Questions - s.HeldF1Questions
	if n <= 0 {
		return 0, 0
	}
	return (s.AnswerF1*float64(s.F1Questions) - s.HeldAnswerF1*float64(s.HeldF1Questions)) / float64(n), n
}
