//go:build !linux

package pgtest

import (
	"os/exec"
	"syscall"
)

// dieWithParent is a no-op where the kernel offers no parent-death signal.
func dieWithParent(*exec.Cmd, syscall.Signal) {}
