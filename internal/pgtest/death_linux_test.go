package pgtest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A test process that dies without its cleanups (here: SIGKILL, as a
// test timeout's panic or an impatient CI would) leaves no server behind.
func TestServerDiesWithTheTestProcess(t *testing.T) {
	if os.Getenv("PGTEST_DIE_CHILD") == "1" {
		s := Start(t)
		s.mu.Lock()
		fmt.Printf("postmaster %d %s\n", s.proc.Process.Pid, s.dir)
		s.mu.Unlock()
		syscall.Kill(os.Getpid(), syscall.SIGKILL) //nolint:errcheck // we are gone
		select {}
	}
	if _, err := Find(); err != nil {
		unavailable(t, err)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerDiesWithTheTestProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PGTEST_DIE_CHILD=1")
	out, _ := cmd.Output() // it ends by SIGKILL
	var pid int
	var dir string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "postmaster" {
			pid, _ = strconv.Atoi(f[1])
			dir = f[2]
		}
	}
	if pid == 0 || !strings.Contains(dir, "flowreader-pg-") {
		t.Fatalf("the child test printed no postmaster: %s", out)
	}
	defer os.RemoveAll(dir) // its cleanups never ran
	// The postmaster's PID is the postgres process on that folder until it
	// exits (a zombie no one has reaped yet counts as gone).
	alive := func() bool {
		cl, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil || !strings.Contains(string(cl), dir) {
			return false
		}
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
		return len(f) > 0 && f[0] != "Z"
	}
	hang := time.Now().Add(2 * time.Minute) // a hang detector
	for alive() {
		if time.Now().After(hang) {
			t.Fatalf("postmaster %d still runs 2 minutes after its test process was killed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
