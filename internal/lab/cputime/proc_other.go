//go:build !linux

package cputime

import "time"

// Of reads another process's CPU time only on Linux (from /proc).
func Of(pid int) (time.Duration, bool) { return 0, false }
