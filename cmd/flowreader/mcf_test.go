package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, commands(), &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.min")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMCFOutputFormat(t *testing.T) {
	in := writeFile(t, `c lower bound on arc 3
p min 4 5
n 1 4
n 4 -4
a 1 2 0 4 2
a 1 3 1 2 2
a 2 3 0 2 1
a 2 4 0 3 3
a 3 4 0 5 1
`)
	code, out, errs := runCLI(t, "mcf", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{"s 14", "f 1 2 2", "f 1 3 2", "f 2 3 2", "f 3 4 4"}
	if len(lines) != len(want)+1 {
		t.Fatalf("got %q", out)
	}
	for i, w := range want {
		if lines[i] != w {
			t.Fatalf("line %d: %q, want %q", i, lines[i], w)
		}
	}
	if !regexp.MustCompile(`^c solve-seconds [0-9]+\.[0-9]+$`).MatchString(lines[len(lines)-1]) {
		t.Fatalf("last line %q", lines[len(lines)-1])
	}
	// The LP solver agrees.
	code, out2, _ := runCLI(t, "mcf", "-solver", "lp", in)
	if code != 0 || !strings.HasPrefix(out2, "s 14\n") {
		t.Fatalf("lp: exit %d %q", code, out2)
	}
}

func TestMCFErrorsNameLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"p min 2 1\nn 1 3\nn 2 -3\na 1 2 0 1 1\n", "line 2: infeasible"},
		{"p min 2 1\nn 1 3\na 1 2 0 1 1\n", "line 1 (problem line)"},
		{"p min 2 1\na 1 2 0 x 1\n", "line 2"},
		{"p min 3 3\nn 1 1\nn 3 -1\na 1 2 0 1 -5\na 2 1 0 1 1\na 2 3 0 1 1\n", "line 4: negative-cost cycle (cost -4) through the arcs on lines 4, 5"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, "mcf", writeFile(t, c.in))
		if code != 1 || out != "" || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 1 and %q on one line", c.in, code, out, errs, c.want)
		}
	}
}

func TestDispatch(t *testing.T) {
	if code, out, _ := runCLI(t, "help"); code != 0 || !strings.Contains(out, "mcf") {
		t.Fatalf("help: %d %q", code, out)
	}
	if code, _, errs := runCLI(t, "nope"); code != 2 || !strings.Contains(errs, "unknown command") {
		t.Fatalf("unknown: %d %q", code, errs)
	}
	if code, _, _ := runCLI(t); code != 2 {
		t.Fatalf("no args: %d", code)
	}
	if code, _, errs := runCLI(t, "mcf", "--help"); code != 0 || !strings.Contains(errs, "usage: flowreader mcf") {
		t.Fatalf("mcf --help: %d %q", code, errs)
	}
	if code, _, _ := runCLI(t, "mcf"); code != 2 {
		t.Fatalf("mcf without file: %d", code)
	}
	if code, _, _ := runCLI(t, "mcf", "/nonexistent/file.min"); code != 1 {
		t.Fatalf("missing file: %d", code)
	}
}
