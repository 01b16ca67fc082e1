package dimacs

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flow/mcf"
	"github.com/flowreader/flowreader/internal/lab/mcftest"
)

const smallDIMACS = `c a small problem with a lower bound
p min 4 5
n 1 4
n 4 -4
a 1 2 0 4 2
a 1 3 1 2 2
a 2 3 0 2 1
a 2 4 0 3 3
a 3 4 0 5 1
`

func TestReadLowerBounds(t *testing.T) {
	p, err := Read(strings.NewReader(smallDIMACS))
	if err != nil {
		t.Fatal(err)
	}
	if p.Network.NumNodes() != 4 || p.Network.NumArcs() != 5 || p.ProblemLine != 2 {
		t.Fatalf("got %d nodes %d arcs p-line %d", p.Network.NumNodes(), p.Network.NumArcs(), p.ProblemLine)
	}
	// Arc 1 (1→3, lower 1): capacity 1 left, node 1 supplies 3 more, node 3 receives 1.
	if _, _, c, _ := p.Network.Arc(1); c != 1 {
		t.Fatalf("transformed capacity %g, want 1", c)
	}
	if p.Network.Supply(0) != 3 || p.Network.Supply(2) != 1 || p.Offset != 2 {
		t.Fatalf("supplies %g %g offset %g", p.Network.Supply(0), p.Network.Supply(2), p.Offset)
	}
	if p.NodeLine[0] != 3 || p.NodeLine[3] != 4 || p.ArcLine[4] != 9 {
		t.Fatalf("lines %v %v", p.NodeLine, p.ArcLine)
	}
	sol, err := (&mcf.SSP{}).Solve(context.Background(), p.Network)
	if err != nil {
		t.Fatal(err)
	}
	flow := make([]float64, len(sol.Flow))
	for a, f := range sol.Flow {
		flow[a] = f + p.lower(a)
	}
	// Optimum: 1→3 carries 2 (lower bound 1 included) at cost 2+1 per unit,
	// 1→2 carries 2: both 2→3→4 (cost 2+1+1) and 2→4 (cost 2+3) compete;
	// 2→3 costs 4 per unit total, 2→4 costs 5: send 2→3 up to 2 more.
	want := []float64{2, 2, 2, 0, 4}
	if !reflect.DeepEqual(flow, want) {
		t.Fatalf("flow %v, want %v", flow, want)
	}
	if c := sol.Cost + p.Offset; c != 2*2+2*2+2*1+4*1 {
		t.Fatalf("cost %g", c)
	}
}

func TestReadErrorsNameLine(t *testing.T) {
	cases := []struct {
		in, line string
		sentinel error
	}{
		{"p min 2 1\na 1 3 0 1 1\n", "line 2", ErrSyntax},
		{"c x\n\np min 2 1\nn 1 x\n", "line 4", ErrSyntax},
		{"a 1 2 0 1 1\n", "line 1", ErrSyntax},
		{"p min 2 1\np min 2 1\n", "line 2", ErrSyntax},
		{"p min 2 2\na 1 2 0 1 1\n", "line 1", ErrSyntax},
		{"p min 2 1\na 1 2 0 1 1\na 1 2 0 1 1\n", "line 3", ErrSyntax},
		{"p min 2 1\na 1 2 3 1 1\n", "line 2", ErrSyntax},
		{"p min 2 1\na 1 2 0 1 NaN\n", "line 2", ErrSyntax},
		{"p min 2 1\na 1 2 0 1 1e999\n", "line 2", ErrSyntax},
		{"p max 2 1\n", "line 1", ErrSyntax},
		{"p min 2 1\nn 1 1\nn 1 2\n", "line 3", ErrSyntax},
		{"p min 2 1\nx 1 2\n", "line 2", ErrSyntax},
		{"p min 2 1\na 1 2 0 1\n", "line 2", ErrSyntax},
		{"", "no \"p min\"", ErrSyntax},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.line) || !errors.Is(err, c.sentinel) {
			t.Errorf("%q: got %v, want %q and %v", c.in, err, c.line, c.sentinel)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 50; it++ {
		n := mcftest.RandomNetwork(rng, mcftest.Kind(it%int(mcftest.NumKinds)), 2+rng.IntN(20), 30, it%2 == 0, false, false)
		lower := make([]float64, n.NumArcs())
		for a := range lower {
			if rng.IntN(3) == 0 {
				_, _, c, _ := n.Arc(a)
				lower[a] = math.Floor(c / 2)
			}
		}
		// Build the original problem text, read it, write it, read again.
		var buf bytes.Buffer
		if err := Write(&buf, &Problem{Network: n}); err != nil {
			t.Fatal(err)
		}
		p1, err := Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		p1.Lower = lower // pretend these lower bounds were part of the transformed problem
		var buf2 bytes.Buffer
		if err := Write(&buf2, p1); err != nil {
			t.Fatal(err)
		}
		p2, err := Read(bytes.NewReader(buf2.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		for a := 0; a < n.NumArcs(); a++ {
			u1, v1, c1, k1 := p1.Network.Arc(a)
			u2, v2, c2, k2 := p2.Network.Arc(a)
			if u1 != u2 || v1 != v2 || math.Abs(c1-c2) > 1e-12*math.Max(1, c1) || k1 != k2 || p2.Lower[a] != lower[a] {
				t.Fatalf("it %d arc %d: %v %v %v %v / %v %v %v %v", it, a, u1, v1, c1, k1, u2, v2, c2, k2)
			}
		}
		for v := 0; v < n.NumNodes(); v++ {
			if math.Abs(p1.Network.Supply(v)-p2.Network.Supply(v)) > 1e-9 {
				t.Fatalf("it %d node %d supply %v vs %v", it, v, p1.Network.Supply(v), p2.Network.Supply(v))
			}
		}
	}
}

// FuzzReadDIMACS checks that the reader never panics, that whatever it
// accepts survives a write/read round trip, and that SSP solves small
// accepted inputs to a feasible, certificate-optimal flow (or reports a
// clear error).
func FuzzRead(f *testing.F) {
	f.Add([]byte(smallDIMACS))
	f.Add([]byte("p min 3 2\nn 1 1.5\nn 3 -1.5\na 1 2 0 2 -1\na 2 3 0.5 2 3\n"))
	f.Add([]byte("p min 2 2\nn 1 5\nn 2 -5\na 1 2 0 3 1\na 2 1 0 3 -2\n"))
	f.Add([]byte("c empty\np min 1 0\n"))
	f.Add([]byte("p min 3 3\nn 1 2\nn 3 -2\na 1 2 0 1 0\na 2 3 0 1 0\na 1 3 0 0 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("unexpected error mcftest.Kind: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, p); err != nil {
			t.Fatalf("write: %v", err)
		}
		q, err := Read(&buf)
		if err != nil {
			t.Fatalf("re-read: %v\n%s", err, buf.Bytes())
		}
		if q.Network.NumNodes() != p.Network.NumNodes() || q.Network.NumArcs() != p.Network.NumArcs() {
			t.Fatalf("round trip changed the size")
		}
		n := p.Network
		if n.NumNodes() > 60 || n.NumArcs() > 300 {
			return
		}
		sol, err := (&mcf.SSP{}).Solve(context.Background(), n)
		if err != nil {
			// Read leaves the balance of the supplies to the solver.
			var cycle *mcf.NegativeCycleError
			if !errors.As(err, &cycle) && !errors.Is(err, mcf.ErrInvalid) {
				t.Fatalf("solve: %v", err)
			}
			return
		}
		for a, x := range sol.Flow {
			_, _, c, _ := n.Arc(a)
			if x < 0 || x > c || math.IsNaN(x) {
				t.Fatalf("arc %d flow %v capacity %v", a, x, c)
			}
		}
		// Magnitudes from fuzzed text can be extreme; check the certificate
		// only where Eps-level tolerances are meaningful.
		for v := 0; v < n.NumNodes(); v++ {
			if math.Abs(n.Supply(v)) > 1e6 {
				return
			}
		}
		for a := 0; a < n.NumArcs(); a++ {
			_, _, c, k := n.Arc(a)
			if c > 1e6 || math.Abs(k) > 1e6 || (c > 0 && c < 1e-6) {
				return
			}
		}
		mcftest.CheckFeasible(t, n, sol, "fuzz")
		mcftest.CheckCertificate(t, n, sol, "fuzz")
	})
}

func TestAppendNumber(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{3, "3"}, {-0.5, "-0.5"}, {1e20, "1e+20"}, {2.0 / 3, "0.6666666666666666"}, {math.Copysign(0, -1), "0"}} {
		if got := string(appendNumber(nil, c.x)); got != c.want {
			t.Errorf("appendNumber(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

// TestWriteSolution checks the solution text of the lower-bound problem:
// the original cost and flows, zero flows left out.
func TestWriteSolution(t *testing.T) {
	p, err := Read(strings.NewReader(smallDIMACS))
	if err != nil {
		t.Fatal(err)
	}
	sol, err := (&mcf.SSP{}).Solve(context.Background(), p.Network)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSolution(&buf, p, sol); err != nil {
		t.Fatal(err)
	}
	if want := "s 14\nf 1 2 2\nf 1 3 2\nf 2 3 2\nf 3 4 4\n"; buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
	}
}
