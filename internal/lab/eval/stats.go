package eval

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Interval is a paired comparison of a router against a baseline on the same
// questions: the mean difference (router − baseline) and its bootstrap 95%
// percentile interval.
type Interval struct {
	N         int
	Mean      float64
	Low, High float64
}

// Excludes0 reports whether the interval lies entirely above or below zero.
func (iv Interval) Excludes0() bool { return iv.Low > 0 || iv.High < 0 }

// PairedBootstrap returns the mean of a[i]−b[i] and its percentile interval
// at level (0.95 for 95%) from resamples bootstrap resamples of the
// questions, drawn with a PCG seeded by seed: deterministic for equal inputs.
// a and b must have equal lengths; empty input gives the zero Interval.
func PairedBootstrap(a, b []float64, resamples int, level float64, seed uint64) Interval {
	n := min(len(a), len(b))
	if n == 0 {
		return Interval{}
	}
	d := make([]float64, n)
	var sum float64
	for i := range d {
		d[i] = a[i] - b[i]
		sum += d[i]
	}
	iv := Interval{N: n, Mean: sum / float64(n)}
	if resamples <= 0 {
		iv.Low, iv.High = iv.Mean, iv.Mean
		return iv
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	means := make([]float64, resamples)
	for r := range means {
		var s float64
		for range n {
			s += d[rng.IntN(n)]
		}
		means[r] = s / float64(n)
	}
	sort.Float64s(means)
	alpha := (1 - level) / 2
	iv.Low = quantile(means, alpha)
	iv.High = quantile(means, 1-alpha)
	return iv
}

// quantile is the linear-interpolation quantile of sorted x (type 7).
func quantile(x []float64, p float64) float64 {
	if len(x) == 1 {
		return x[0]
	}
	h := p * float64(len(x)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[i] + (h-lo)*(x[i+1]-x[i])
}

// McNemar tests paired binary outcomes (a: router, b: baseline). It
// returns the discordant counts (onlyB: baseline right, router wrong; onlyA:
// the reverse) and the two-sided p-value: exact binomial when onlyA+onlyB <
// 25, else the continuity-corrected χ² with one degree of freedom. With no
// discordant pair p = 1.
func McNemar(a, b []bool) (onlyA, onlyB int, p float64) {
	for i := range min(len(a), len(b)) {
		switch {
		case a[i] && !b[i]:
			onlyA++
		case b[i] && !a[i]:
			onlyB++
		}
	}
	n := onlyA + onlyB
	if n == 0 {
		return onlyA, onlyB, 1
	}
	if n < 25 {
		k := min(onlyA, onlyB)
		// P(X ≤ k) for X ~ Bin(n, 1/2), doubled.
		var cdf float64
		for i := 0; i <= k; i++ {
			cdf += math.Exp(lchoose(n, i) - float64(n)*math.Ln2)
		}
		return onlyA, onlyB, math.Min(1, 2*cdf)
	}
	d := math.Abs(float64(onlyA-onlyB)) - 1
	chi2 := d * d / float64(n)
	// Survival of χ²(1) = erfc(sqrt(x/2)).
	return onlyA, onlyB, math.Erfc(math.Sqrt(chi2 / 2))
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
