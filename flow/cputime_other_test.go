//go:build !unix

package flow_test

import "time"

// cpuTime is unavailable here; the CPU-time metrics then read 0.
func cpuTime() time.Duration { return 0 }
