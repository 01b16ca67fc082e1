package eval

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// CSVHeader is the header of results.csv, an interface other tools rely on.
var CSVHeader = []string{"dataset", "router", "selector", "budget", "questions", "evidence_recall", "all_gold_rate", "doc_recall", "distinct_nodes", "node_reads", "chains", "dup_share"}

// WriteCSV writes rows under CSVHeader: rates in [0,1] with 4 decimals,
// empty where undefined; distinct_nodes, node_reads and chains are means per
// question, dup_share the share of distinct nodes read that duplicate
// another node read (Summary.DupShare).
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.Dataset, r.Router, r.Selector, strconv.Itoa(r.Budget), strconv.Itoa(r.Questions),
			rate(r.EvidenceRecall, r.EvidenceQuestions), rate(r.AllGoldRate, r.EvidenceQuestions), rate(r.DocRecall, r.DocQuestions),
			num(r.Distinct), num(r.Reads), num(r.Chains), strconv.FormatFloat(r.DupShare, 'f', 4, 64)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func rate(x float64, n int) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatFloat(x, 'f', 4, 64)
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// WriteMarkdown writes the results table (one per budget) and, when
// comparisons are given, the paired differences against the baseline.
func WriteMarkdown(w io.Writer, rows []Row, cmps []Comparison, notes []string) error {
	var b strings.Builder
	budgets := []int{}
	seen := map[int]bool{}
	for _, r := range rows {
		if !seen[r.Budget] {
			seen[r.Budget] = true
			budgets = append(budgets, r.Budget)
		}
	}
	sort.Ints(budgets)
	for _, bud := range budgets {
		fmt.Fprintf(&b, "## Budget %d distinct nodes\n\n", bud)
		b.WriteString("| dataset | router | selector | questions | evidence recall | all-gold | doc recall | distinct | reads | chains | chain length | duplicates read |\n")
		b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range rows {
			if r.Budget != bud {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s | %s | %.1f | %.1f | %.1f | %.2f | %.1f%% |\n", r.Dataset, r.Router, r.Selector,
				r.Questions, pct(r.EvidenceRecall, r.EvidenceQuestions), pct(r.AllGoldRate, r.EvidenceQuestions),
				pct(r.DocRecall, r.DocQuestions), r.Distinct, r.Reads, r.Chains, r.ChainLength, 100*r.DupShare)
		}
		b.WriteString("\n")
		writeAccuracy(&b, rows, bud)
		writeF1(&b, rows, bud)
		var bases []string
		for _, c := range cmps {
			if c.Budget == bud && !slices.Contains(bases, c.Baseline) {
				bases = append(bases, c.Baseline)
			}
		}
		for _, base := range bases {
			var cs []Comparison
			for _, c := range cmps {
				if c.Budget == bud && c.Baseline == base {
					cs = append(cs, c)
				}
			}
			if base == OriginalBaseline {
				b.WriteString("Paired differences of each augmented set against the original set, router by router (points; bootstrap 95% interval; McNemar on all-gold):\n\n")
			} else {
				fmt.Fprintf(&b, "Paired differences against `%s` (points; bootstrap 95%% interval; McNemar on all-gold):\n\n", base)
			}
			f1 := false
			for _, c := range cs {
				f1 = f1 || c.AnswerF1.N > 0
			}
			b.WriteString("| dataset | router | selector | Δ evidence recall [95% CI] | all-gold only router / only baseline (p) | Δ doc recall [95% CI] |")
			if f1 {
				b.WriteString(" Δ answer F1 [95% CI] |\n|---|---|---|---|---|---|---|\n")
			} else {
				b.WriteString("\n|---|---|---|---|---|---|\n")
			}
			for _, c := range cs {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %d / %d (p=%.3g) | %s |", c.Dataset, c.Router, c.Selector,
					ci(c.Recall), c.OnlyRouter, c.OnlyBaseline, c.P, ci(c.DocRecall))
				if f1 {
					fmt.Fprintf(&b, " %s |", ci(c.AnswerF1))
				}
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
	}
	if len(notes) > 0 {
		b.WriteString("Notes:\n\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func pct(x float64, n int) string {
	if n == 0 {
		return "–"
	}
	return strconv.FormatFloat(100*x, 'f', 1, 64)
}

func ci(iv Interval) string {
	if iv.N == 0 {
		return "–"
	}
	mark := ""
	if iv.Excludes0() {
		mark = " *"
	}
	return fmt.Sprintf("%+.1f [%+.1f, %+.1f]%s", 100*iv.Mean, 100*iv.Low, 100*iv.High, mark)
}

// PlotRecall draws evidence recall against the node budget, one line per
// router and selector, for one dataset name (MacroName for the macro
// rows), as a PNG.
func PlotRecall(rows []Row, dataset string) ([]byte, error) {
	p := plot.New()
	p.Title.Text = "Evidence recall vs node budget: " + dataset
	p.X.Label.Text = "distinct nodes read"
	p.Y.Label.Text = "evidence recall"
	p.Y.Min, p.Y.Max = 0, 1
	// The legend gets its own column to the right: with a dozen routers it
	// would cover the lines inside the plot.
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	type key struct{ router, selector string }
	var keys []key
	pts := map[key]plotter.XYs{}
	for _, r := range rows {
		if r.Dataset != dataset || r.EvidenceQuestions == 0 {
			continue
		}
		k := key{r.Router, r.Selector}
		if _, ok := pts[k]; !ok {
			keys = append(keys, k)
		}
		pts[k] = append(pts[k], plotter.XY{X: float64(r.Budget), Y: r.EvidenceRecall})
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: no evidence rows for %q", ErrNoQuestions, dataset)
	}
	for i, k := range keys {
		xy := pts[k]
		sort.Slice(xy, func(a, b int) bool { return xy[a].X < xy[b].X })
		l, s, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		c := palette[i%len(palette)]
		l.Color, s.Color = c, c
		l.Dashes = dashes[(i/len(palette))%len(dashes)]
		p.Add(l, s)
		name := k.router
		if k.selector != "" {
			name += " (" + k.selector + ")"
		}
		leg.Add(name, l, s)
	}
	const plotW, legW, h = 7 * vg.Inch, 2.6 * vg.Inch, 5 * vg.Inch
	img := vgimg.New(plotW+legW, h)
	dc := draw.New(img)
	p.Draw(draw.Crop(dc, 0, -legW, 0, 0))
	leg.Draw(draw.Crop(dc, plotW+0.1*vg.Inch, 0, 0, -0.4*vg.Inch))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var palette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff}, color.RGBA{0x2c, 0xa0, 0x2c, 0xff},
	color.RGBA{0xff, 0x7f, 0x0e, 0xff}, color.RGBA{0x94, 0x67, 0xbd, 0xff}, color.RGBA{0x8c, 0x56, 0x4b, 0xff},
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, color.RGBA{0x7f, 0x7f, 0x7f, 0xff}, color.RGBA{0x17, 0xbe, 0xcf, 0xff},
}

var dashes = [][]vg.Length{nil, {vg.Points(4), vg.Points(2)}}

// WriteFileAtomic writes data to path through a temporary file in the same
// folder and a rename, so a reader never sees a partial file.
func WriteFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return werr
	}
	return nil
}

// WriteReport writes results.csv, results.md and one recall-vs-budget PNG
// per dataset (recall_<dataset>.png; "/" in subset names becomes "_") into
// dir, each atomically.
func WriteReport(dir string, rows []Row, cmps []Comparison, notes []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var csvBuf, mdBuf bytes.Buffer
	if err := WriteCSV(&csvBuf, rows); err != nil {
		return err
	}
	if err := WriteMarkdown(&mdBuf, rows, cmps, notes); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, "results.csv"), csvBuf.Bytes()); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, "results.md"), mdBuf.Bytes()); err != nil {
		return err
	}
	for _, r := range rows {
		if r.F1Questions > 0 {
			var f1 bytes.Buffer
			if err := WriteAnswerF1CSV(&f1, rows); err != nil {
				return err
			}
			if err := WriteFileAtomic(filepath.Join(dir, "answer_f1.csv"), f1.Bytes()); err != nil {
				return err
			}
			break
		}
	}
	for _, r := range rows {
		if r.JudgedQuestions > 0 {
			var acc bytes.Buffer
			if err := WriteAccuracyCSV(&acc, rows); err != nil {
				return err
			}
			if err := WriteFileAtomic(filepath.Join(dir, "accuracy.csv"), acc.Bytes()); err != nil {
				return err
			}
			break
		}
	}
	var names []string
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Dataset] && r.EvidenceQuestions > 0 {
			seen[r.Dataset] = true
			names = append(names, r.Dataset)
		}
	}
	for _, n := range names {
		png, err := PlotRecall(rows, n)
		if err != nil {
			return err
		}
		if err := WriteFileAtomic(filepath.Join(dir, "recall_"+strings.ReplaceAll(n, "/", "_")+".png"), png); err != nil {
			return err
		}
	}
	return nil
}

// writeAccuracy adds the judge's accuracy per dataset and router when the
// run was in accuracy mode.
func writeAccuracy(b *strings.Builder, rows []Row, budget int) {
	judged := false
	for _, r := range rows {
		judged = judged || (r.Budget == budget && r.JudgedQuestions > 0)
	}
	if !judged {
		return
	}
	b.WriteString("Answer accuracy (judge: paper v3 Prompt P7):\n\n| dataset | router | selector | judged | accuracy |\n|---|---|---|---:|---:|\n")
	for _, r := range rows {
		if r.Budget == budget && r.JudgedQuestions > 0 {
			fmt.Fprintf(b, "| %s | %s | %s | %d | %s |\n", r.Dataset, r.Router, r.Selector, r.JudgedQuestions, pct(r.Accuracy, r.JudgedQuestions))
		}
	}
	b.WriteString("\n")
}

// WriteAccuracyCSV writes accuracy-mode rows: dataset, router, selector,
// budget, judged, accuracy.
func WriteAccuracyCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"dataset", "router", "selector", "budget", "judged", "accuracy"}); err != nil {
		return err
	}
	for _, r := range rows {
		if r.JudgedQuestions == 0 {
			continue
		}
		if err := cw.Write([]string{r.Dataset, r.Router, r.Selector, strconv.Itoa(r.Budget), strconv.Itoa(r.JudgedQuestions), rate(r.Accuracy, r.JudgedQuestions)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteQuestions writes one CSV line per question, router, selector and
// budget (dataset, question, router, selector, budget, evidence_recall,
// all_gold, doc_recall, distinct_nodes, node_reads, chains, dup_nodes: the
// distinct nodes read that duplicate another node read), for looking at
// the questions where routers differ. Undefined figures are empty.
func WriteQuestions(w io.Writer, res *Results) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"dataset", "question", "router", "selector", "budget", "evidence_recall", "all_gold", "doc_recall", "distinct_nodes", "node_reads", "chains", "answer_f1", "split", "dup_nodes"}); err != nil {
		return err
	}
	for qi, q := range res.Questions {
		ds := res.Datasets[res.DatasetOf[qi]].Name
		if q.Subset != "" {
			ds += "/" + q.Subset
		}
		for ri, spec := range res.Routers {
			for bi, b := range res.Budgets {
				m := res.Metrics[ri][bi][qi]
				ev, all, doc := "", "", ""
				if m.HasEvidence {
					ev = strconv.FormatFloat(m.EvidenceRecall, 'f', 4, 64)
					all = "0"
					if m.AllGold {
						all = "1"
					}
				}
				if m.HasDoc {
					doc = strconv.FormatFloat(m.DocRecall, 'f', 4, 64)
				}
				f1 := ""
				if m.HasF1 {
					f1 = strconv.FormatFloat(m.F1, 'f', 4, 64)
				}
				split := "tune"
				if HeldOut(q.ID) {
					split = "heldout"
				}
				if err := cw.Write([]string{ds, q.ID, spec.Name, spec.Selector, strconv.Itoa(b), ev, all, doc,
					strconv.Itoa(m.Distinct), strconv.Itoa(m.Reads), strconv.Itoa(m.Chains), f1, split, strconv.Itoa(m.Dups)}); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeF1 adds the extractive reader's answer F1 next to evidence recall
// when the run scored answers (Runner.Extract).
func writeF1(b *strings.Builder, rows []Row, budget int) {
	has := false
	for _, r := range rows {
		has = has || (r.Budget == budget && r.F1Questions > 0)
	}
	if !has {
		return
	}
	b.WriteString("Answer F1 of the extractive reader over each router's evidence (QASPER answer F1, extractive questions):\n\n")
	b.WriteString("| dataset | router | selector | extractive questions | answer F1 | tuning part | held-out part | evidence recall (all questions) |\n|---|---|---|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		if r.Budget == budget && r.F1Questions > 0 {
			tf, tn := r.TuneF1()
			fmt.Fprintf(b, "| %s | %s | %s | %d | %s | %s (%d) | %s (%d) | %s |\n", r.Dataset, r.Router, r.Selector, r.F1Questions,
				pct(r.AnswerF1, r.F1Questions), pct(tf, tn), tn, pct(r.HeldAnswerF1, r.HeldF1Questions), r.HeldF1Questions,
				pct(r.EvidenceRecall, r.EvidenceQuestions))
		}
	}
	b.WriteString("\n")
}

// WriteAnswerF1CSV writes the rows with extractive answers: dataset, router,
// selector, budget, extractive_questions, answer_f1, evidence_recall.
func WriteAnswerF1CSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"dataset", "router", "selector", "budget", "extractive_questions", "answer_f1", "evidence_recall", "answer_f1_tune", "answer_f1_heldout", "heldout_questions"}); err != nil {
		return err
	}
	for _, r := range rows {
		if r.F1Questions == 0 {
			continue
		}
		tf, tn := r.TuneF1()
		if err := cw.Write([]string{r.Dataset, r.Router, r.Selector, strconv.Itoa(r.Budget), strconv.Itoa(r.F1Questions),
			rate(r.AnswerF1, r.F1Questions), rate(r.EvidenceRecall, r.EvidenceQuestions), rate(tf, tn),
			rate(r.HeldAnswerF1, r.HeldF1Questions), strconv.Itoa(r.HeldF1Questions)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
