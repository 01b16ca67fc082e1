//go:build unix && !linux

package main

import "time"

// cpu is not read outside Linux; tests that compare work skip the comparison.
func (p *serveProcess) cpu() (time.Duration, bool) { return 0, false }
