// Package redistest starts a private redis-server for a test, on a free
// port of its own, so that a test may pause (SIGSTOP), resume (SIGCONT)
// or restart it without touching the Redis other tests share. A test that
// needs one fails, never skips, when redis-server is missing (.ci/run
// installs it).
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is a private redis-server.
type Server struct {
	t    testing.TB
	port int
	cmd  *exec.Cmd
}

// Start starts a redis-server on a free port of 127.0.0.1, without
// persistence; it is killed when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is required for this test (.ci/run installs it): %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &Server{t: t, port: port}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *Server) start() {
	s.t.Helper()
	s.cmd = exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("redis-server: %v", err)
	}
	for range 100 {
		if s.ping() == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("redis-server on port %d does not answer: %v", s.port, s.ping())
}

// ping sends PING and reads the answer.
func (s *Server) ping() error {
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

func (s *Server) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // a paused server cannot die
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Addr is host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL is the server's URL (database 0).
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Pause stops the server (SIGSTOP): connections stay open, nothing is
// answered.
func (s *Server) Pause() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatal(err)
	}
}

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		s.t.Fatal(err)
	}
}

// Restart kills the server and, after down, starts a new one on the same
// port: with persistence off, every key is gone.
func (s *Server) Restart(down time.Duration) {
	s.t.Helper()
	s.stop()
	time.Sleep(down)
	s.start()
}
