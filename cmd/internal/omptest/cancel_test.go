package omptest

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// proc is a live process as /proc shows it.
type proc struct {
	pid, ppid int
	argv      []string
}

// processes lists the live processes (zombies, which only wait for their reaper, left out).
func processes() []proc {
	var out []proc
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) STATE PPID ...: the fields after the last ')'.
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		cmdline, _ := os.ReadFile(d + "/cmdline")
		out = append(out, proc{pid, ppid, strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")})
	}
	return out
}

// descendants lists the live processes below root.
func descendants(root int) []proc {
	all := processes()
	below := map[int]bool{root: true}
	var out []proc
	for grew := true; grew; {
		grew = false
		for _, p := range all {
			if below[p.ppid] && !below[p.pid] {
				below[p.pid] = true
				out = append(out, p)
				grew = true
			}
		}
	}
	return out
}

func running(pid int) bool {
	return slices.ContainsFunc(processes(), func(p proc) bool { return p.pid == pid })
}

// pid is the pid of the process the pane runs (omp).
func (p *pane) pid() int {
	p.T.Helper()
	out, err := p.Tmux("display-message", "-p", "-t", "omp", "#{pane_pid}")
	pid, perr := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || perr != nil {
		p.T.Fatalf("tmux pane_pid: %v %v\n%s", err, perr, out)
	}
	return pid
}

// Cancelling a herdr_worktree call in omp (escape: omp aborts the call's signal) ends copse
// and the herdr it runs, and leaves nothing half-done. The Herdr double's create sleeps
// before it acts, so the call is still running, copse waiting on herdr, when escape comes.
func TestHerdrWorktreeCancelEndsCopseAndHerdr(t *testing.T) {
	w := newWorld(t, true)
	w.knobs.Delay = 10 * time.Minute
	w.herdr = filepath.Join(t.TempDir(), "herdr")
	// Only the create sleeps: the session check and copse's reads answer at once.
	script := "#!/bin/sh\nif [ \"$1\" != worktree ] || [ \"$2\" != create ]; then unset FAKE_HERDR_DELAY; fi\nexec " +
		shq(w.s.Bin) + " \"$@\"\n"
	if err := os.WriteFile(w.herdr, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := w.startOmp()
	omp := p.pid()
	// A list first: the Herdr session is confirmed and the double has written its state.
	p.send(`call herdr_worktree {"operation":"list"}`)
	if r := w.answered(p, 1); r.isError {
		t.Fatalf("list: %s", r.text)
	}
	before := w.snapshot()

	p.send(`call herdr_worktree {"operation":"create","branch":"feat"}`)
	var copse, herdr proc
	p.WaitFor("copse running herdr worktree create", func(string) bool {
		below := descendants(omp)
		for _, h := range below {
			if len(h.argv) < 3 || h.argv[0] != w.s.Bin || h.argv[1] != "worktree" || h.argv[2] != "create" {
				continue
			}
			for _, c := range below {
				if c.pid == h.ppid && filepath.Base(c.argv[0]) == "copse" && slices.Contains(c.argv, "tool") {
					copse, herdr = c, h
					return true
				}
			}
		}
		return false
	})
	if len(w.results()) != 1 {
		t.Fatal("the create answered before it was cancelled")
	}

	p.Keys("Escape")
	p.WaitFor("copse and herdr to end", func(string) bool { return !running(copse.pid) && !running(herdr.pid) })
	// The extension's state reports (copse hook omp EVENT, one at a time, each bounded to
	// well under a second) end on their own.
	p.WaitFor("the state reports to end", func(string) bool {
		return !slices.ContainsFunc(descendants(omp), func(c proc) bool { return len(c.argv) > 1 && c.argv[1] == "hook" })
	})
	// Nothing copse started is left anywhere under omp.
	for _, c := range descendants(omp) {
		if c.argv[0] == w.s.Bin || filepath.Base(c.argv[0]) == "copse" || filepath.Base(c.argv[0]) == "git" {
			t.Fatalf("after the cancel, %v (pid %d) still runs under omp", c.argv, c.pid)
		}
	}
	if r := w.answered(p, 2); !r.isError {
		t.Fatalf("a cancelled create reads as done: %s", r.text)
	}
	if after := w.snapshot(); after != before {
		t.Fatalf("a cancelled create changed something:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if calls := w.herdrCalls(); !strings.Contains(calls, `"worktree","create"`) {
		t.Fatalf("the create never reached herdr, so the test cancelled nothing:\n%s", calls)
	}
}
