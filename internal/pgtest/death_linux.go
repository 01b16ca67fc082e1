package pgtest

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel send sig to the child when the test
// process dies, also when it dies without running its cleanups (a test
// timeout's panic or SIGKILL), so that no server outlives its test. The
// signal is tied to the thread that started the child (prctl(2)); the Go
// runtime keeps its threads unless a goroutine exits while locked to one,
// which nothing here does.
func dieWithParent(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = sig
}
