//go:build unix

package graph_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system) this process has used, all
// threads included, or 0 when it cannot tell.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
