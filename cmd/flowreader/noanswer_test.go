package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const offTopic = "What is the capital of Japan?"

// An abstention prints the empty answer and its reason and exits 3; an
// answered question still exits 0 (TestAskQuickstart).
func TestAskNoAnswerExitCode(t *testing.T) {
	g := buildQuickstart(t)
	so, se, code := cli(t, nil, "ask", "-g", g, offTopic)
	if code != exitNoAnswer {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitNoAnswer, so, se)
	}
	if !strings.Contains(so, "Q: "+offTopic) || !strings.Contains(so, "citations: none") {
		t.Errorf("stdout:\n%s", so)
	}
	if !strings.Contains(se, "flowreader ask: no answer: no answer in the collection") {
		t.Errorf("stderr: %q", se)
	}

	so, _, code = cli(t, nil, "ask", "-g", g, "--json", offTopic)
	if code != exitNoAnswer {
		t.Fatalf("--json: exit %d", code)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(so), &out); err != nil {
		t.Fatalf("--json output is not one JSON object: %v\n%s", err, so)
	}
}

// The same through a real process: the status a shell script sees.
func TestAskNoAnswerExitCodeProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "flowreader")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	g := buildQuickstart(t)
	err := exec.Command(bin, "ask", "-g", g, offTopic).Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitNoAnswer {
		t.Fatalf("off-topic question: %v, want exit status %d", err, exitNoAnswer)
	}
	if err := exec.Command(bin, "ask", "-g", g, leaderQuestion).Run(); err != nil {
		t.Fatalf("answered question: %v, want exit status 0", err)
	}
	// Below the confidence threshold: exit status 4 (a superlative over a
	// table, which the extractive reader cannot rank).
	err = exec.Command(bin, "ask", "-g", g, "Which breakwater lost most nests in 2025?").Run()
	if !errors.As(err, &ee) || ee.ExitCode() != exitNotSure {
		t.Fatalf("unsure answer: %v, want exit status %d", err, exitNotSure)
	}
}

// leaderQuestion is answered with confidence by the extractive reader.
const leaderQuestion = "Who was the survey leader in 2025?"
