// Package liveproc answers "which processes are working inside these directory trees": a
// process counts when its working directory, or a file it holds open, is inside one. It
// only reads (on Linux, /proc); it never starts a program, so core may use it. Where the
// system offers no /proc it says it cannot tell (ErrUnknown) rather than "none".
package liveproc

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrUnknown: this system gives copse no way to tell which processes run where.
var ErrUnknown = errors.New("cannot tell which processes run there")

// Proc is one process found inside a tree.
type Proc struct {
	PID     int
	Cmdline []string // argv as the process set it; may be empty (a kernel thread, a zombie)
	Dir     string   // its working directory ("" when unreadable)
	// Inside is the first path of the process found inside the tree: its working
	// directory, or else a file it holds open.
	Inside string
	// OpenFile is true when Inside is an open file and the working directory is elsewhere.
	OpenFile bool
	Shell    bool // argv[0] names an interactive shell (sh, bash, zsh, fish, …)
	Children int  // how many processes name it as their parent
	// Ancestor is set for copse's own ancestors (the shell it was started from, the
	// terminal multiplexer above that shell): they count for every safety rule, and a
	// display that counts "other" processes leaves them out.
	Ancestor bool
	// Env is the value of each variable asked for in Scan's envKeys ("" when unset or
	// unreadable).
	Env map[string]string
}

// Scan is one read of every process this user may see.
type Scan struct {
	// Roots holds, per root passed to Read (same order), the processes inside it. A
	// process inside nested roots is given to the deepest one only.
	Roots [][]Proc
	// Hidden counts processes whose working directory and open files could not be read
	// (another user's, unless copse runs as root): they may be inside and are not listed.
	Hidden int
	parent map[int]int // every process's parent, as read
}

// Below is the first of tops that pid is, or descends from (0 when none): which pane's
// process a short-lived child belongs to.
func (s *Scan) Below(pid int, tops map[int]bool) int {
	seen := map[int]bool{}
	for p := pid; p > 0 && !seen[p]; p = s.parent[p] {
		if tops[p] {
			return p
		}
		seen[p] = true
	}
	return 0
}

// Parent is pid's parent as the scan read it (0 when unknown).
func (s *Scan) Parent(pid int) int { return s.parent[pid] }

// Ancestors are the processes above copse's own, nearest first (its shell, then what
// started that shell, …); nil where copse cannot tell.
func Ancestors() []int { return ancestors() }

// Read scans every process once and sorts what it finds into roots. copse's own process
// never counts, nor do the processes it started (git, run in the worktree), nor its ancestors (the shell and programs that started it) unless their
// own working directory is inside the root: a shell sitting in the worktree is work that a
// remove would pull the floor from, the shell that ran `copse -C … remove` from elsewhere
// is not. envKeys are read from the environment of each process found (Proc.Env).
func Read(roots []string, envKeys ...string) (*Scan, error) {
	return read(canonicalAll(roots), envKeys)
}

// rootSet finds the deepest root holding a path by looking the path and the directories
// above it up in a set, not by comparing it with every root: a listing passes hundreds of
// roots, and a scan asks about every process's directory and open files.
type rootSet map[string]int

func newRootSet(roots []string) rootSet {
	s := make(rootSet, len(roots))
	for i, r := range roots {
		if _, dup := s[r]; r != "" && !dup {
			s[r] = i
		}
	}
	return s
}

// deepest is the index of the longest root holding p (p itself or a directory above it),
// or -1. p is a path as the kernel reports it: absolute and clean.
func (s rootSet) deepest(p string) int {
	if len(s) == 0 || !strings.HasPrefix(p, "/") {
		return -1
	}
	for {
		if i, ok := s[p]; ok {
			return i
		}
		if p == "/" {
			return -1
		}
		p = filepath.Dir(p)
	}
}

// canonicalAll is canonical of each root. The roots of one listing share their parent
// directory (…/app.worktrees): it is resolved once, and then only each root's last element
// is looked at (and the root resolved in full only when that is itself a symbolic link or
// missing), where resolving each root in full would lstat every element of every path.
func canonicalAll(roots []string) []string {
	out := make([]string, len(roots))
	parents := map[string]string{}
	for i, r := range roots {
		if r == "" || !filepath.IsAbs(r) {
			out[i] = canonical(r)
			continue
		}
		r = filepath.Clean(r)
		dir := filepath.Dir(r)
		if dir == r {
			out[i] = r // the root directory
			continue
		}
		resolved, ok := parents[dir]
		if !ok {
			resolved = canonical(dir)
			parents[dir] = resolved
		}
		joined := filepath.Join(resolved, filepath.Base(r))
		if fi, err := os.Lstat(joined); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			out[i] = joined
			continue
		}
		out[i] = canonical(r)
	}
	return out
}

// canonical resolves symbolic links as the kernel reports paths in /proc (it always
// reports them resolved), falling back to the cleaned path.
func canonical(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	return filepath.Clean(p)
}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "fish": true, "dash": true, "ksh": true,
	"mksh": true, "tcsh": true, "csh": true, "nu": true, "elvish": true, "xonsh": true, "ash": true}

// isShell: argv[0] (a login shell's starts with "-") names a shell.
func isShell(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	return shells[filepath.Base(strings.TrimPrefix(argv[0], "-"))]
}

// Foreground is what runs from one process: a tmux pane's first process, typically.
type Foreground struct {
	Name     string // its command name, or that of the first program below it that is not a shell
	PID      int    // the process Name is of
	Children int    // how many processes it started (-1 where copse cannot tell)
	// Reading: it, or a process it started, is blocked reading its terminal, waiting for a
	// person to type (false where copse cannot tell, and for programs that wait in poll
	// rather than in read).
	Reading bool
}

// ForegroundOf describes what runs from pid (Linux only).
func ForegroundOf(pid int) Foreground { return foreground(pid) }

// IsShell reports whether a command name (argv[0], or tmux's pane_current_command) names
// an interactive shell.
func IsShell(name string) bool { return isShell([]string{name}) }

// Describe is a process on one line for people: its command line (each argument quoted
// only if needed, then cut) and where it is inside. esc escapes one value for display.
func (p Proc) Describe(esc func(string) string, maxCmd int) string {
	cmd := strings.Join(p.Cmdline, " ")
	if cmd == "" {
		cmd = "?"
	}
	if r := []rune(cmd); len(r) > maxCmd {
		cmd = string(r[:maxCmd-1]) + "…"
	}
	s := "pid " + itoa(p.PID) + " " + esc(cmd)
	if p.OpenFile {
		return s + " holds " + esc(p.Inside) + " open (cwd " + esc(p.Dir) + ")"
	}
	return s + " in " + esc(p.Dir)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// Marked lists every process this user may see that carries key=value in its environment,
// copse's own process aside, wherever it went since it started (another directory,
// another process group): what a land's test gate started, marked by copse. Dir and
// Inside are left empty. Without /proc it says it cannot tell (ErrUnknown).
func Marked(key, value string) ([]Proc, error) { return marked(key, value) }

// Stopped reports whether process pid is stopped (Ctrl-Z, SIGSTOP, SIGTSTP: state T, or t
// under a tracer): it holds what it holds and does nothing until continued. False where
// copse cannot tell, and for a process that is gone.
func Stopped(pid int) bool { return stopped(pid) }

// StartTicks is process pid's start time as the kernel counts it (clock ticks since
// boot, /proc/PID/stat field 22), ok false when it does not run or copse cannot tell: with
// the pid, it names one process (Alive takes it back).
func StartTicks(pid int) (uint64, bool) {
	id, ok := identify(pid)
	return id.Start, ok
}

// StartedAt is the wall-clock time of a start time StartTicks read (false where copse
// cannot tell).
func StartedAt(ticks uint64) (time.Time, bool) {
	t := startedAt(ticks)
	return t, !t.IsZero()
}

// StartTime is when process pid started (ok false when it does not run, or copse cannot
// tell): with the pid, it names one process, where a pid alone may have been reused.
func StartTime(pid int) (time.Time, bool) {
	id, ok := identify(pid)
	if !ok {
		return time.Time{}, false
	}
	t := id.StartedAt()
	return t, !t.IsZero()
}
