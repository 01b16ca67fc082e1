package cputime_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/flowreader/flowreader/internal/lab/cputime"
)

// TestNowAdvances checks that busy work moves the clock forward where the
// platform has one.
func TestNowAdvances(t *testing.T) {
	t0 := cputime.Now()
	x := 0.0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		for i := 0; i < 1000; i++ {
			x += float64(i)
		}
	}
	t1 := cputime.Now()
	if t0 == 0 && t1 == 0 {
		t.Skipf("no CPU clock on %s", runtime.GOOS)
	}
	if t1 <= t0 {
		t.Fatalf("CPU time did not advance over 50 ms of work: %v then %v (%v)", t0, t1, x)
	}
}
