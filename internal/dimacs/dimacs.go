// Package dimacs reads and writes minimum-cost flow problems and their
// solutions in the DIMACS text format of the First DIMACS Implementation
// Challenge:
//
//	c any comment
//	p min N M          (once, before any n or a line)
//	n ID SUPPLY        (node ids 1..N; at most one line per node)
//	a U V LOW CAP COST (exactly M arc lines)
//
// and, for a solution, "s COST" followed by "f U V FLOW" per arc.
//
// An arc with lower bound l is read by the standard transformation to one
// without: its flow is f = l + f′ with 0 ≤ f′ ≤ u − l, the tail's supply
// drops by l and the head's rises by l, and the cost gains the constant
// Σ c·l ([Problem] records l per arc and the constant as Offset). Solving
// the transformed [mcf.Network] and adding the lower bounds back gives an
// optimum of the original problem, since the two differ by a constant
// cost on a one-to-one map of their feasible flows.
package dimacs

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/flowreader/flowreader/flow/mcf"
)

// ErrSyntax reports input that is not a well-formed DIMACS minimum-cost
// flow problem; the wrapping error names the line.
var ErrSyntax = errors.New("dimacs: syntax error")

// Problem is a minimum-cost flow problem as read from DIMACS: the network
// with lower bounds removed (see the package documentation), plus what is
// needed to map a solution back and to name input lines in messages. The
// original flow on arc a is Lower[a] + Flow[a] of a solution of Network, and
// the original cost is Offset plus the solution's cost.
type Problem struct {
	// Network is the transformed problem (all lower bounds zero).
	Network *mcf.Network
	// Lower is each arc's lower bound l (nil means all zero).
	Lower []float64
	// Offset is Σ c·l, the cost of the flow forced by lower bounds.
	Offset float64
	// NodeLine[v] is the 1-based input line of node v's "n" descriptor, or 0.
	NodeLine []int
	// ArcLine[a] is the input line of arc a's "a" descriptor, or 0.
	ArcLine []int
	// ProblemLine is the line of the "p" descriptor, or 0.
	ProblemLine int
}

// lower returns arc a's lower bound.
func (p *Problem) lower(a int) float64 {
	if a < len(p.Lower) {
		return p.Lower[a]
	}
	return 0
}

// maxNodes bounds the node count a "p" line may declare, so that a
// hostile header cannot make the reader allocate without limit.
const maxNodes = 1 << 24

// Read reads a DIMACS minimum-cost flow problem. Numbers may be integers or
// decimals; blank lines are ignored. Errors wrap [ErrSyntax] and name the
// line. Supplies are not required to balance here: the solvers check that
// (with [mcf.ErrInvalid]).
func Read(r io.Reader) (*Problem, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	p := &Problem{}
	var net *mcf.Network
	var declaredArcs int
	var fields [8][]byte
	for line := 1; ; line++ {
		raw, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("dimacs: line %d: longer than %d bytes: %w", line, br.Size(), ErrSyntax)
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("dimacs: line %d: %w", line, err)
		}
		if len(raw) == 0 && err == io.EOF {
			break
		}
		nf := splitFields(raw, fields[:])
		switch {
		case nf == 0 || fields[0][0] == 'c':
			// blank line or comment
		case nf > len(fields):
			return nil, fmt.Errorf("dimacs: line %d: more than %d fields: %w", line, len(fields), ErrSyntax)
		default:
			if err := p.parseLine(line, fields[:nf], nf, &net, &declaredArcs); err != nil {
				return nil, err
			}
		}
		if err == io.EOF {
			break
		}
	}
	if net == nil {
		return nil, fmt.Errorf("dimacs: no \"p min\" line: %w", ErrSyntax)
	}
	if net.NumArcs() != declaredArcs {
		return nil, fmt.Errorf("dimacs: line %d: declares %d arcs, found %d: %w", p.ProblemLine, declaredArcs, net.NumArcs(), ErrSyntax)
	}
	p.Network = net
	return p, nil
}

// splitFields splits a line on spaces and tabs into at most len(out)+1
// fields, returning the count (a count above len(out) means too many).
func splitFields(b []byte, out [][]byte) int {
	n := 0
	i := 0
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
			i++
		}
		if i >= len(b) {
			return n
		}
		j := i
		for j < len(b) && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' && b[j] != '\n' {
			j++
		}
		if n == len(out) {
			return n + 1
		}
		out[n] = b[i:j]
		n++
		i = j
	}
}

func (p *Problem) parseLine(line int, f [][]byte, nf int, netp **mcf.Network, declared *int) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("dimacs: line %d: %s: %w", line, fmt.Sprintf(format, args...), ErrSyntax)
	}
	if len(f[0]) != 1 {
		return bad("unknown descriptor %q", f[0])
	}
	net := *netp
	switch f[0][0] {
	case 'p':
		if net != nil {
			return bad("second \"p\" line (first on line %d)", p.ProblemLine)
		}
		if nf != 4 || string(f[1]) != "min" {
			return bad("want \"p min NODES ARCS\"")
		}
		nodes, ok1 := parseCount(f[2])
		arcs, ok2 := parseCount(f[3])
		if !ok1 || !ok2 {
			return bad("bad node or arc count")
		}
		if nodes > maxNodes {
			return bad("%d nodes exceeds the limit %d", nodes, maxNodes)
		}
		if arcs > math.MaxInt32/2-nodes {
			return bad("%d arcs exceeds the limit", arcs)
		}
		*declared = arcs
		net = mcf.NewNetwork(nodes)
		prealloc := min(arcs, 1<<20)
		net.Grow(prealloc)
		p.Lower = make([]float64, 0, prealloc)
		p.ArcLine = make([]int, 0, prealloc)
		p.NodeLine = make([]int, nodes)
		p.ProblemLine = line
		*netp = net
	case 'n':
		if net == nil {
			return bad("\"n\" line before the \"p\" line")
		}
		if nf != 3 {
			return bad("want \"n ID SUPPLY\"")
		}
		v, err := p.node(f[1], net)
		if err != nil {
			return bad("%v", err)
		}
		b, err := parseNumber(f[2])
		if err != nil {
			return bad("supply: %v", err)
		}
		if p.NodeLine[v] != 0 {
			return bad("node %d already described on line %d", v+1, p.NodeLine[v])
		}
		p.NodeLine[v] = line
		net.SetSupply(v, net.Supply(v)+b)
	case 'a':
		if net == nil {
			return bad("\"a\" line before the \"p\" line")
		}
		if nf != 6 {
			return bad("want \"a FROM TO LOW CAP COST\"")
		}
		if net.NumArcs() >= *declared {
			return bad("more than the %d arcs declared on line %d", *declared, p.ProblemLine)
		}
		u, err := p.node(f[1], net)
		if err != nil {
			return bad("tail: %v", err)
		}
		v, err := p.node(f[2], net)
		if err != nil {
			return bad("head: %v", err)
		}
		var x [3]float64
		for i, name := range [3]string{"lower bound", "capacity", "cost"} {
			if x[i], err = parseNumber(f[3+i]); err != nil {
				return bad("%s: %v", name, err)
			}
		}
		low, capacity, cost := x[0], x[1], x[2]
		if capacity < low {
			return bad("capacity %g below lower bound %g", capacity, low)
		}
		net.AddArc(u, v, capacity-low, cost)
		p.Lower = append(p.Lower, low)
		p.ArcLine = append(p.ArcLine, line)
		if low != 0 {
			net.SetSupply(u, net.Supply(u)-low)
			net.SetSupply(v, net.Supply(v)+low)
			p.Offset += low * cost
		}
	default:
		return bad("unknown descriptor %q", f[0])
	}
	return nil
}

func (p *Problem) node(b []byte, net *mcf.Network) (int, error) {
	id, ok := parseCount(b)
	if !ok || id < 1 || id > net.NumNodes() {
		return 0, fmt.Errorf("node %q not in 1..%d", b, net.NumNodes())
	}
	return id - 1, nil
}

// parseCount parses a non-negative decimal integer below 2^31.
func parseCount(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= math.MaxInt32
}

// parseNumber parses a finite decimal number; plain integers take a fast
// path that is exact below 2^53.
func parseNumber(b []byte) (float64, error) {
	neg := false
	d := b
	if len(d) > 0 && (d[0] == '-' || d[0] == '+') {
		neg = d[0] == '-'
		d = d[1:]
	}
	if len(d) > 0 && len(d) <= 15 {
		n := int64(0)
		ok := true
		for _, c := range d {
			if c < '0' || c > '9' {
				ok = false
				break
			}
			n = n*10 + int64(c-'0')
		}
		if ok {
			if neg {
				return -float64(n), nil
			}
			return float64(n), nil
		}
	}
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", b)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("number %q is not finite", b)
	}
	return x, nil
}

// Write writes p in DIMACS form, restoring lower bounds and the original
// supplies, so that [Read] gives back an equal Problem. A network that no
// DIMACS text can describe (an arc joining a node that does not exist, a
// value that is not finite, a capacity below zero) is refused with an error
// wrapping [mcf.ErrInvalid].
func Write(w io.Writer, p *Problem) error {
	net := p.Network
	nn, m := net.NumNodes(), net.NumArcs()
	supply := make([]float64, nn)
	for v := range supply {
		supply[v] = net.Supply(v)
	}
	for a := 0; a < m; a++ {
		u, v, capacity, cost := net.Arc(a)
		if u < 0 || u >= nn || v < 0 || v >= nn {
			return fmt.Errorf("dimacs: arc %d (%d→%d) joins a node outside 0..%d: %w", a, u, v, nn-1, mcf.ErrInvalid)
		}
		if math.IsNaN(capacity) || math.IsInf(capacity, 0) || math.IsNaN(cost) || math.IsInf(cost, 0) || capacity < 0 {
			return fmt.Errorf("dimacs: arc %d capacity %v cost %v: %w", a, capacity, cost, mcf.ErrInvalid)
		}
		if l := p.lower(a); l != 0 {
			supply[u] += l
			supply[v] -= l
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	buf = append(buf, "c flowreader mcf\np min "...)
	buf = strconv.AppendInt(buf, int64(nn), 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(m), 10)
	buf = append(buf, '\n')
	for v, b := range supply {
		if b == 0 {
			continue
		}
		buf = append(buf, "n "...)
		buf = strconv.AppendInt(buf, int64(v+1), 10)
		buf = append(buf, ' ')
		buf = appendNumber(buf, b)
		buf = append(buf, '\n')
	}
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	for a := 0; a < m; a++ {
		u, v, capacity, cost := net.Arc(a)
		buf = append(buf[:0], "a "...)
		buf = strconv.AppendInt(buf, int64(u)+1, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(v)+1, 10)
		l := p.lower(a)
		for _, x := range [3]float64{l, capacity + l, cost} {
			buf = append(buf, ' ')
			buf = appendNumber(buf, x)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteSolution writes sol, a solution of p.Network, as a DIMACS solution
// of the original problem: "s COST" with the original cost (Offset
// included), then "f U V FLOW" for every arc whose original flow (lower
// bound included) is nonzero, in input order.
func WriteSolution(w io.Writer, p *Problem, sol *mcf.Solution) error {
	net := p.Network
	bw := bufio.NewWriterSize(w, 1<<16)
	buf := make([]byte, 0, 128)
	buf = append(buf, "s "...)
	buf = appendNumber(buf, sol.Cost+p.Offset)
	buf = append(buf, '\n')
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	for a, f := range sol.Flow {
		f += p.lower(a)
		if f == 0 {
			continue
		}
		u, v, _, _ := net.Arc(a)
		buf = append(buf[:0], "f "...)
		buf = strconv.AppendInt(buf, int64(u+1), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(v+1), 10)
		buf = append(buf, ' ')
		buf = appendNumber(buf, f)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendNumber appends x in the shortest decimal form that reads back to
// the same float64, without an exponent for integers below 1e15 (so integral
// DIMACS data stays integral text).
func appendNumber(buf []byte, x float64) []byte {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		if x == 0 {
			return append(buf, '0') // also for -0
		}
		return strconv.AppendInt(buf, int64(x), 10)
	}
	return strconv.AppendFloat(buf, x, 'g', -1, 64)
}
