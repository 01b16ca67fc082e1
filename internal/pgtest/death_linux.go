package pgtest

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the child killed when the test process dies, also
// when it dies without running its cleanups (a test timeout's panic).
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
