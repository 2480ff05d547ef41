// Package tmuxtest starts a private tmux server for a test: its own socket in a fresh
// directory, never the user's server, killed when the test ends.
package tmuxtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Server is a private tmux server with one session.
type Server struct {
	Socket  string // -S path
	Session string // $N of the session
	Pane    string // %N of its first pane: the "client" copse runs in
	Window  string // @N of its first window
	t       testing.TB
}

// Start starts the server. Its windows run /bin/sh with a plain prompt, so an idle shell
// is an idle shell whatever the person's own shell is.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("these tests drive a real tmux on a private socket; install tmux:", err)
	}
	// Socket paths are limited to ~100 bytes: a short directory, not t.TempDir.
	dir, err := os.MkdirTemp("", "copse-tmux-")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Socket: filepath.Join(dir, "s"), t: t}
	t.Cleanup(func() {
		exec.Command("tmux", "-S", s.Socket, "kill-server").Run()
		os.RemoveAll(dir)
	})
	out := s.Run("-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "30", "-P", "-F", "#{session_id} #{window_id} #{pane_id}", "--", "/bin/sh")
	f := strings.Fields(out)
	if len(f) != 3 {
		t.Fatalf("new-session printed %q", out)
	}
	s.Session, s.Window, s.Pane = f[0], f[1], f[2]
	s.Run("set-option", "-g", "default-shell", "/bin/sh")
	s.Run("set-option", "-g", "default-command", "")
	return s
}

// Env is TMUX and TMUX_PANE as a pane of this server has them.
func (s *Server) Env() map[string]string {
	return map[string]string{"TMUX": s.Socket + ",1," + strings.TrimPrefix(s.Session, "$"), "TMUX_PANE": s.Pane}
}

// Run runs tmux on the server and returns its stdout; a failure fails the test.
func (s *Server) Run(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", s.Socket}, args...)...)
	cmd.Env = append(os.Environ(), "PS1=$ ", "ENV=")
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		s.t.Fatalf("tmux %v: %v: %s", args, err, stderr)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// Windows lists "@N\tMARK" for each window of the session.
func (s *Server) Windows() []string {
	s.t.Helper()
	out := s.Run("list-windows", "-t", s.Session, "-F", "#{window_id}\t#{@copse-worktree}")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// Active is the id of the session's current window.
func (s *Server) Active() string {
	s.t.Helper()
	return s.Run("display-message", "-p", "-t", s.Session, "#{window_id}")
}

// Capture is what window's first pane shows.
func (s *Server) Capture(window string) string {
	s.t.Helper()
	return s.Run("capture-pane", "-p", "-J", "-t", window)
}

// WaitFor waits until cond holds, failing the test after a generous bound (the machine
// may be loaded; nothing is asserted on time).
func (s *Server) WaitFor(what string, cond func() bool) {
	s.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(25 * time.Millisecond) {
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Idle waits until the shell of window's pane has read its profile and waits at its
// prompt with no child: it echoes a computed marker, so the echo's own text does not count.
func (s *Server) Idle(window string) {
	s.t.Helper()
	s.Run("send-keys", "-t", window, "echo idle-$((40+2))", "Enter")
	s.WaitFor("the shell of "+window+" to be idle", func() bool { return strings.Contains(s.Capture(window), "idle-42") })
}
