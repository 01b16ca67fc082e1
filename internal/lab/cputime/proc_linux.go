//go:build linux

package cputime

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// Of returns the CPU time (user + system) process pid has used so far,
// from /proc; ok is false when it cannot be read (the process is gone,
// or another platform).
func Of(pid int) (d time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3, utime 14 and stime 15 (proc(5)).
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	// Clock ticks: USER_HZ, which Linux fixes at 100 for user space.
	return time.Duration(u+k) * (time.Second / 100), true
}
