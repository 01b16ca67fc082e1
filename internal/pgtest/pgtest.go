// Package pgtest starts throwaway PostgreSQL servers for tests: a primary
// made with initdb in a fresh folder on a free loopback port, and streaming
// standbys of it made with pg_basebackup -R. The server binaries are
// Debian's (package postgresql-15), found under /usr/lib/postgresql or on
// PATH, or in $FLOWREADER_PG_BIN. PostgreSQL refuses to run as root, so
// under root the binaries run as the "postgres" user and the folder is
// handed to it.
//
// The server runs as a child of the test process (postgres itself, not
// pg_ctl, which would detach it), and on Linux the kernel stops it when
// the test process dies without its cleanups: a timed-out or killed test
// leaves no server behind.
//
// When no binaries are found the test is skipped with a message that says
// how to install them, except under CI (CI set in the environment), where
// the test fails: CI must run what it claims to.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// TB is the part of testing.TB the helpers use.
type TB interface {
	Helper()
	Logf(format string, args ...any)
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Server is one running PostgreSQL server. Its methods are safe for
// concurrent use.
type Server struct {
	bin  string // folder of initdb, postgres, pg_basebackup
	dir  string // data folder
	port int
	cred *syscall.Credential // nil: run as ourselves

	mu     sync.Mutex
	proc   *exec.Cmd     // the running postmaster; nil when stopped
	exited chan struct{} // closed when proc has exited
}

// ErrUnavailable is returned by Find when no PostgreSQL binaries are found.
var ErrUnavailable = errors.New("pgtest: PostgreSQL server binaries not found (install Debian's postgresql-15, or set FLOWREADER_PG_BIN to the folder of initdb and pg_ctl)")

// Find returns the folder of the PostgreSQL server binaries.
func Find() (string, error) {
	if d := os.Getenv("FLOWREADER_PG_BIN"); d != "" {
		if isExec(filepath.Join(d, "pg_ctl")) {
			return d, nil
		}
		return "", fmt.Errorf("%w: FLOWREADER_PG_BIN=%s has no pg_ctl", ErrUnavailable, d)
	}
	if ms, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl"); len(ms) > 0 {
		// The highest version: the folders are named by major version.
		sort.Slice(ms, func(i, j int) bool { return version(ms[i]) > version(ms[j]) })
		return filepath.Dir(ms[0]), nil
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return filepath.Dir(p), nil
	}
	return "", ErrUnavailable
}

func version(pgctl string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(pgctl))))
	return v
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// unavailable skips t, or fails it under CI.
func unavailable(t TB, err error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("pgtest: CI is set but %v", err)
	}
	t.Skipf("pgtest: skipped: %v", err)
}

// Start starts a primary server for the test and stops it (and removes its
// folder) at the test's cleanup. It skips the test when PostgreSQL is not
// installed (fails under CI). Each of settings is a postgresql.conf line
// added after pgtest's own (a later line wins), such as
// "shared_buffers = '2GB'": the server otherwise has PostgreSQL's
// defaults, shared_buffers 128 MB among them.
func Start(t TB, settings ...string) *Server {
	t.Helper()
	bin, err := Find()
	if err != nil {
		unavailable(t, err)
		return nil
	}
	s, err := start(bin, settings)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(s.remove)
	return s
}

// start makes and starts a primary in a new folder.
func start(bin string, settings []string) (*Server, error) {
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := newDir(cred)
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir, cred: cred}
	data := filepath.Join(dir, "data")
	out, err := s.run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	if err != nil {
		s.remove()
		return nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	// Throwaway servers: no fsync (a crash loses the server, not data
	// anyone keeps); streaming replication on (the defaults allow it).
	conf := "fsync = off\nfull_page_writes = off\nsynchronous_commit = off\n" +
		"listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\n" +
		"max_connections = 200\nwal_level = replica\nmax_wal_senders = 8\nhot_standby = on\n"
	for _, l := range settings {
		if strings.ContainsAny(l, "\n\r") {
			s.remove()
			return nil, fmt.Errorf("a setting of more than one line: %q", l)
		}
		conf += l + "\n"
	}
	if err := s.appendConf(conf); err != nil {
		s.remove()
		return nil, err
	}
	if err := s.startFree(); err != nil {
		s.remove()
		return nil, err
	}
	return s, nil
}

// Standby makes a streaming standby of s with pg_basebackup -R, starts it
// and stops it at the test's cleanup. It is read-only and follows s.
func (s *Server) Standby(t TB) *Server {
	t.Helper()
	dir, err := newDir(s.cred)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	sb := &Server{bin: s.bin, dir: dir, cred: s.cred}
	t.Cleanup(sb.remove)
	out, err := sb.run("pg_basebackup", "-D", filepath.Join(dir, "data"), "-R", "-X", "stream",
		"-h", "127.0.0.1", "-p", strconv.Itoa(s.Port()), "-U", "postgres", "--no-sync")
	if err != nil {
		t.Fatalf("pgtest: pg_basebackup: %v: %s", err, out)
	}
	if err := sb.startFree(); err != nil {
		t.Fatalf("pgtest: standby: %v", err)
	}
	return sb
}

// URL is the server's connection URL as the superuser, database postgres.
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.Port())
}

// Port is the server's loopback port.
func (s *Server) Port() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.port
}

// Stop stops the server (fast shutdown: sessions are ended, what was
// committed stays).
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return nil
	}
	p, exited := s.proc, s.exited
	s.proc, s.exited = nil, nil
	if err := p.Process.Signal(syscall.SIGINT); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("pgtest: stop: %w", err)
	}
	// A hang detector, not a timing assumption: a fast shutdown of a
	// throwaway server takes well under a second.
	select {
	case <-exited:
		return nil
	case <-time.After(2 * time.Minute):
		p.Process.Kill() //nolint:errcheck // it may have exited since
		<-exited
		return errors.New("pgtest: stop: postgres had not stopped 2 minutes after SIGINT, and was killed")
	}
}

// Start starts a stopped server again on the same port.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return nil
	}
	return s.startLocked(s.port)
}

// startFree starts the server on a free loopback port, trying again on
// another when the one picked was taken in between.
func (s *Server) startFree() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	for try := 0; try < 5; try++ {
		var port int
		if port, err = freePort(); err != nil {
			return err
		}
		if err = s.startLocked(port); err == nil {
			return nil
		}
	}
	return err
}

func (s *Server) startLocked(port int) error {
	data := filepath.Join(s.dir, "data")
	logf, err := os.OpenFile(filepath.Join(s.dir, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	cmd := s.command(context.Background(), "postgres", "-D", data, "-p", strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = logf, logf
	// Immediate shutdown when the test process is gone: nobody is left to
	// use what a clean one would keep.
	dieWithParent(cmd, syscall.SIGQUIT)
	err = cmd.Start()
	logf.Close() // the child has its own descriptor
	if err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait() //nolint:errcheck // its exit is all Stop needs
		close(exited)
	}()
	if err := waitReady(data, cmd.Process.Pid, exited); err != nil {
		cmd.Process.Signal(syscall.SIGQUIT) //nolint:errcheck // it may have exited
		<-exited
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		return fmt.Errorf("pgtest: postgres on port %d: %w\n%s", port, err, tail(string(log), 2000))
	}
	s.port, s.proc, s.exited = port, cmd, exited
	return nil
}

// waitReady waits until the postmaster of pid says in its postmaster.pid
// that it accepts connections ("ready", or "standby" for a hot standby),
// as pg_ctl -w does, or until it exits.
func waitReady(data string, pid int, exited <-chan struct{}) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	hang := time.NewTimer(2 * time.Minute) // a hang detector
	defer hang.Stop()
	for {
		if b, err := os.ReadFile(filepath.Join(data, "postmaster.pid")); err == nil {
			// Line 1 is the PID, line 8 the status (LOCK_FILE_LINE_PM_STATUS).
			l := strings.Split(string(b), "\n")
			if len(l) >= 8 && strings.TrimSpace(l[0]) == strconv.Itoa(pid) {
				if st := strings.TrimSpace(l[7]); st == "ready" || st == "standby" {
					return nil
				}
			}
		}
		select {
		case <-exited:
			return errors.New("exited before accepting connections")
		case <-hang.C:
			return errors.New("not accepting connections after 2 minutes")
		case <-tick.C:
		}
	}
}

// remove stops the server and deletes its folder.
func (s *Server) remove() {
	_ = s.Stop()
	_ = os.RemoveAll(s.dir)
}

// Log returns the end of the server's log, for a failing test's message.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "log"))
	return tail(string(b), 4000)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// run runs one of the server's programs to its end, with a bounded time.
func (s *Server) run(prog string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return s.command(ctx, prog, args...).CombinedOutput()
}

// command makes a command of one of the server's programs, to run as the
// postgres user when we are root.
func (s *Server) command(ctx context.Context, prog string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, prog), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "PGTZ=UTC")
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
		cmd.Env = append(cmd.Env, "HOME="+s.dir, "USER=postgres")
	}
	return cmd
}

func (s *Server) appendConf(text string) error {
	f, err := os.OpenFile(filepath.Join(s.dir, "data", "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// credential is the postgres user's when we are root, else nil.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root needs the postgres user (Debian's postgresql package makes it): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// newDir makes a folder the server's user owns.
func newDir(cred *syscall.Credential) (string, error) {
	dir, err := os.MkdirTemp("", "flowreader-pg-")
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("pgtest: %w", err)
		}
	}
	return dir, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
