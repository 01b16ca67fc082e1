package cputime_test

import (
	"os"
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

// TestOfSelf reads this process's CPU time from /proc where Linux has it:
// it agrees with Now to a few clock ticks, and a process that does not
// exist is not ok.
func TestOfSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, ok := cputime.Of(os.Getpid()); ok {
			t.Fatal("Of read a process's CPU time off Linux")
		}
		t.Skip("/proc is Linux's")
	}
	x := 0.0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		for i := 0; i < 1000; i++ {
			x += float64(i)
		}
	}
	before := cputime.Now()
	d, ok := cputime.Of(os.Getpid())
	after := cputime.Now()
	if !ok || d <= 0 {
		t.Fatalf("Of(self) = %v, %v after 50 ms of work (%v)", d, ok, x)
	}
	// /proc counts in ticks of 10 ms and may lag getrusage by a tick a thread.
	if slack := 10 * time.Millisecond * time.Duration(runtime.NumCPU()+2); d > after+slack || d < before-slack {
		t.Fatalf("Of(self) = %v, getrusage %v..%v", d, before, after)
	}
	if _, ok := cputime.Of(-1); ok {
		t.Fatal("Of(-1) is ok")
	}
}
