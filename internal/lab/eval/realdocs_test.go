package eval

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/internal/realdocs"
)

func TestRealDocGrade(t *testing.T) {
	q := RealDocQuestion{Parts: [][]string{{"all metal", "all-metal"}, {"fiber lock"}}}
	for _, c := range []struct{ answer, want string }{
		{"the all-metal type and the fiber lock type", GradeRight},
		{"The all-metal type.", GradePartly},
		{"", GradeWrong},
		{"metal fiber", GradeWrong},
		{strings.Repeat("word ", 40) + "all metal fiber lock", GradePartly},
	} {
		if got := q.Grade(c.answer); got != c.want {
			t.Errorf("Grade(%q) = %s, want %s", c.answer, got, c.want)
		}
	}
	// Forms match whole words only: "8.9" is not in "18.95".
	if HasPart("costs 18.95", []string{"8.9"}) || !HasPart("capability 8.9.", []string{"8.9"}) {
		t.Error("HasPart matches inside words")
	}
}

func TestLoadRealDocQuestions(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "realdocs", "questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := LoadRealDocQuestions(f)
	if err != nil {
		t.Fatal(err)
	}
	held := 0
	for _, q := range qs {
		if q.Split == "heldout" {
			held++
		}
	}
	if len(qs) < 60 || held < len(qs)/4 {
		t.Errorf("%d questions, %d held out", len(qs), held)
	}
	for _, bad := range []string{`{"id":"x"}`, `{"id":"x","collection":"c","question":"q","parts":[[]],"split":"tune"}`,
		`{"id":"x","collection":"c","question":"q","parts":[["a"]],"split":"other"}`, `{`} {
		if _, err := LoadRealDocQuestions(strings.NewReader(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err %v, want ErrFormat", bad, err)
		}
	}
}

// TestRealDocs asks the real-document questions of the documents that
// testdata/realdocs/fetch.sh put in $FLOWREADER_REALDOCS/qa (one folder
// per collection, beside the other real documents the tests read),
// through the flowreader binary $FLOWREADER_BIN (default: built from this
// tree) with its defaults (no model: the extractive reader), one graph per
// collection, and reports right / partly / wrong per split. With
// $FLOWREADER_REALDOCS_OUT it writes one CSV row per question there. It
// skips, saying how to fetch them, without the documents.
//
//	internal/lab/eval/testdata/realdocs/fetch.sh /tmp/realdocs
//	FLOWREADER_REALDOCS=/tmp/realdocs go test -run TestRealDocs -v ./internal/lab/eval
func TestRealDocs(t *testing.T) {
	root := os.Getenv(realdocs.Env)
	if root == "" {
		t.Skipf("$%s is not set (internal/lab/eval/testdata/realdocs/fetch.sh DIR fetches the documents)", realdocs.Env)
	}
	docs := filepath.Join(root, "qa")
	if _, err := os.Stat(docs); err != nil {
		t.Skipf("%s: %v (internal/lab/eval/testdata/realdocs/fetch.sh %s fetches the documents)", docs, err, root)
	}
	f, err := os.Open(filepath.Join("testdata", "realdocs", "questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := LoadRealDocQuestions(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := os.Getenv("FLOWREADER_BIN")
	if bin == "" {
		bin = filepath.Join(tmp, "flowreader")
		out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/flowreader").CombinedOutput()
		if err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	budget := os.Getenv("FLOWREADER_REALDOCS_BUDGET")
	graphs := map[string]string{}
	ctx := context.Background()
	type row struct {
		q          RealDocQuestion
		grade      string
		holds      bool
		confidence float64
		confident  bool
		answer     string
	}
	var rows []row
	for _, q := range qs {
		g, ok := graphs[q.Collection]
		if !ok {
			g = filepath.Join(tmp, q.Collection+".frg")
			out, err := exec.CommandContext(ctx, bin, "build", "-o", g, filepath.Join(docs, q.Collection)).CombinedOutput()
			if err != nil {
				t.Fatalf("build %s: %v\n%s", q.Collection, err, out)
			}
			graphs[q.Collection] = g
		}
		args := []string{"ask", "-g", g, "--json"}
		if budget != "" {
			args = append(args, "--budget", budget)
		}
		cmd := exec.CommandContext(ctx, bin, append(args, q.Question)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		// 3: no answer, 4: not sure (below the confidence threshold).
		if err != nil && !(errors.As(err, &ee) && (ee.ExitCode() == 3 || ee.ExitCode() == 4)) {
			t.Fatalf("%s: ask: %v\n%s", q.ID, err, stderr.String())
		}
		var res struct {
			Answer     string   `json:"answer"`
			Confidence *float64 `json:"confidence"`
			Chains     []struct {
				Nodes []struct {
					Text string `json:"text"`
				} `json:"nodes"`
			} `json:"chains"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("%s: %v", q.ID, err)
		}
		var ev strings.Builder
		for _, c := range res.Chains {
			for _, n := range c.Nodes {
				ev.WriteString(n.Text)
				ev.WriteByte('\n')
			}
		}
		r := row{q: q, grade: q.Grade(res.Answer), holds: q.Holds(ev.String()), answer: res.Answer, confidence: 1, confident: true}
		if res.Confidence != nil {
			r.confidence = *res.Confidence
			// ask exits with status 4 below the threshold.
			r.confident = err == nil
		}
		rows = append(rows, r)
	}
	// Per split: right / partly / wrong, and among the questions whose
	// evidence holds the answer, the confident answers that are not right.
	for _, split := range []string{"tune", "heldout", "all"} {
		n := map[string]int{}
		total, holds, confident, confWrong := 0, 0, 0, 0
		for _, r := range rows {
			if split != "all" && r.q.Split != split {
				continue
			}
			total++
			n[r.grade]++
			if r.holds {
				holds++
				if r.confident {
					confident++
					if r.grade != GradeRight {
						confWrong++
					}
				}
			}
		}
		t.Logf("%-7s %2d questions: right %2d (%.0f%%), partly %2d, wrong %2d; evidence holds the answer %d; of those answered confidently %d, not right %d",
			split, total, n[GradeRight], 100*float64(n[GradeRight])/float64(max(total, 1)), n[GradePartly], n[GradeWrong], holds, confident, confWrong)
	}
	kinds := map[string][2]int{}
	for _, r := range rows {
		k := kinds[r.q.Kind]
		k[1]++
		if r.grade == GradeRight {
			k[0]++
		}
		kinds[r.q.Kind] = k
	}
	var names []string
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Logf("kind %-10s right %d of %d", k, kinds[k][0], kinds[k][1])
	}
	if out := os.Getenv("FLOWREADER_REALDOCS_OUT"); out != "" {
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		_ = w.Write([]string{"id", "split", "kind", "collection", "grade", "evidence_holds", "confidence", "confident", "question", "answer"})
		for _, r := range rows {
			_ = w.Write([]string{r.q.ID, r.q.Split, r.q.Kind, r.q.Collection, r.grade, strconv.FormatBool(r.holds),
				strconv.FormatFloat(r.confidence, 'f', 3, 64), strconv.FormatBool(r.confident), r.q.Question, r.answer})
		}
		w.Flush()
		if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(os.Stderr, "wrote %s\n", out)
	}
}
