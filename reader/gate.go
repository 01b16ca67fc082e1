package reader

import (
	"fmt"
	"strings"
)

// Paper gate constants (v1 Table 5).
const (
	// DefaultTau is τ: the gate fires when consistency c < τ.
	DefaultTau = 0.65
	// DefaultXi is ξ: the gate fires when saturation σ < ξ.
	DefaultXi = 0.60
	// DefaultMaxPairs caps the consistency judge calls (proposed).
	DefaultMaxPairs = 10
)

// Gate configures the dual-process gate (METHOD A.6). Zero values mean the
// paper's constants.
type Gate struct {
	// Tau is the consistency threshold τ (0: 0.65).
	Tau float64
	// Xi is the saturation threshold ξ (0: 0.60).
	Xi float64
	// MaxPairs caps the judged answer pairs (0: 10).
	MaxPairs int
}

func (g Gate) tau() float64 {
	if g.Tau == 0 {
		return DefaultTau
	}
	return g.Tau
}

func (g Gate) xi() float64 {
	if g.Xi == 0 {
		return DefaultXi
	}
	return g.Xi
}

func (g Gate) maxPairs() int {
	if g.MaxPairs <= 0 {
		return DefaultMaxPairs
	}
	return g.MaxPairs
}

// Trigger is a reason for the gate to fire; each selects System-2 edits.
type Trigger string

// The three triggers, in the order their edits are applied.
const (
	// LowSaturation (T1): σ < ξ; bridge edges across the min cut.
	LowSaturation Trigger = "T1 low saturation"
	// LowConsistency (T2): c < τ; re-weight the top-flow edges.
	LowConsistency Trigger = "T2 low consistency"
	// NoSupport (T3): no worker found a supported answer; expand the sources.
	NoSupport Trigger = "T3 no supported answer"
)

// GateDecision is the gate's verdict on System 1.
type GateDecision struct {
	// Evaluated is false when the gate was not run (System 2 switched off).
	Evaluated bool
	// Fired is true when at least one trigger fired.
	Fired bool
	// Triggers fired, in the order T1, T2, T3.
	Triggers []Trigger
	// Reason explains the decision with the measured values.
	Reason string
}

// Has reports whether t fired.
func (d GateDecision) Has(t Trigger) bool {
	for _, x := range d.Triggers {
		if x == t {
			return true
		}
	}
	return false
}

// Decide applies the gate to consistency c, saturation sigma and the number
// of supported drafts.
func (g Gate) Decide(c, sigma float64, supported int) GateDecision {
	d := GateDecision{Evaluated: true}
	var why []string
	if sigma < g.xi() {
		d.Triggers = append(d.Triggers, LowSaturation)
		why = append(why, fmt.Sprintf("saturation %.3f < ξ %.2f", sigma, g.xi()))
	}
	if c < g.tau() {
		d.Triggers = append(d.Triggers, LowConsistency)
		why = append(why, fmt.Sprintf("consistency %.3f < τ %.2f", c, g.tau()))
	}
	if supported == 0 {
		d.Triggers = append(d.Triggers, NoSupport)
		why = append(why, "no supported answer")
	}
	d.Fired = len(d.Triggers) > 0
	if d.Fired {
		d.Reason = strings.Join(why, "; ")
	} else {
		d.Reason = fmt.Sprintf("passed: saturation %.3f ≥ %.2f, consistency %.3f ≥ %.2f, %d supported", sigma, g.xi(), c, g.tau(), supported)
	}
	return d
}
