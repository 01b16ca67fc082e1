package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEvalCommand(t *testing.T) {
	out := t.TempDir()
	data := filepath.Join("..", "..", "internal", "lab", "eval", "testdata")
	var so, se bytes.Buffer
	code := run(context.Background(), []string{"eval", "--dataset", "fetaqa,qasper,papertab", "--data", data,
		"--budget", "2,4", "--routers", "aspects,topk,topk-dense", "--selector", "greedy,annealed",
		"--embedder", "hash", "--out", out, "--quiet"}, []command{evalCommand()}, &so, &se)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "dataset,router,selector,budget,questions,evidence_recall,all_gold_rate,doc_recall,distinct_nodes,node_reads,chains,dup_share" {
		t.Errorf("header %q", lines[0])
	}
	// (3 datasets + macro) × (aspects×2 selectors + topk + topk-dense) × 2 budgets.
	if len(lines) != 1+4*4*2 {
		t.Errorf("%d CSV lines", len(lines))
	}
	if !strings.Contains(so.String(), "Paired differences against `topk`") {
		t.Errorf("stdout lacks the comparison table:\n%s", so.String())
	}
	for _, f := range []string{"results.md", "recall_fetaqa.png", "recall_macro.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestEvalAnswerF1 runs --answer-f1 with each router's own selector: the
// presets' rows say annealed, answer_f1.csv appears and results.csv keeps
// its header.
func TestEvalAnswerF1(t *testing.T) {
	out := t.TempDir()
	data := filepath.Join("..", "..", "internal", "lab", "eval", "testdata")
	var so, se bytes.Buffer
	code := run(context.Background(), []string{"eval", "--dataset", "qasper,papertab", "--data", data,
		"--budget", "4", "--routers", "aspects,topk", "--answer-f1",
		"--embedder", "hash", "--out", out, "--quiet"}, []command{evalCommand()}, &so, &se)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "answer_f1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "qasper,aspects,annealed,4,") || !strings.Contains(string(b), "qasper,topk,rank,4,") {
		t.Errorf("answer_f1.csv:\n%s", b)
	}
	r, err := os.ReadFile(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if h, _, _ := strings.Cut(string(r), "\n"); h != "dataset,router,selector,budget,questions,evidence_recall,all_gold_rate,doc_recall,distinct_nodes,node_reads,chains,dup_share" {
		t.Errorf("header %q", h)
	}
	if !strings.Contains(so.String(), "Answer F1 of the extractive reader") {
		t.Errorf("stdout lacks the answer F1 table:\n%s", so.String())
	}
}

func TestEvalCommandUsage(t *testing.T) {
	cmds := []command{evalCommand()}
	for _, args := range [][]string{
		{"eval"},
		{"eval", "--dataset", "fetaqa", "--data", "x", "--out", "y", "--budget", "0"},
		{"eval", "--dataset", "fetaqa", "--data", "x", "--out", "y", "--routers", "nope"},
		{"eval", "--dataset", "fetaqa", "--data", "x", "--out", "y", "--embedder", "nope"},
		{"eval", "--dataset", "fetaqa,qasper", "--data", "x,y,z", "--out", "y"},
		{"eval", "--dataset", "fetaqa", "--data", "x", "--out", "y", "--routers", "aspects", "--baseline", "topk"},
	} {
		var so, se bytes.Buffer
		if code := run(context.Background(), args, cmds, &so, &se); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, se.String())
		}
	}
	var so, se bytes.Buffer
	if code := run(context.Background(), []string{"eval", "--help"}, cmds, &so, &se); code != 0 || !strings.Contains(se.String(), "topk-dense") {
		t.Errorf("--help: exit %d, %q", code, se.String())
	}
	// A missing data file is a failure, not a usage error.
	if code := run(context.Background(), []string{"eval", "--dataset", "fetaqa", "--data", filepath.Join(t.TempDir(), "none.jsonl"),
		"--out", t.TempDir(), "--embedder", "hash"}, cmds, &so, &se); code != 1 {
		t.Errorf("missing file: exit %d", code)
	}
}
