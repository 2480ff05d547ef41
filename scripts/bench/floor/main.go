// Command floor is what scripts/bench.sh compares copse with: the least a program can do to
// give the same answer, so copse's ratio to it is its own overhead.
//
//	floor list DIR      runs git's worktree list, as copse list does, and prints it
//	floor status DIR    runs git's worktree list, then `git status` in every worktree on a
//	                    pool of as many workers as copse uses (2×CPUs, 4…16): the same git
//	                    commands with the same environment as copse list --status
//	floor screen        draws a static 24-line screen and waits to be killed: the time
//	                    tmux needs to show a program's first frame
//	floor listscreen DIR  runs git's worktree list as `floor list` does, then draws the
//	                    static screen: the least a picker can do, timed the way the
//	                    picker is (in a tmux pane, read with capture-pane)
//
// It imports as little as possible (no net, no cgo), so its start-up is a static Go
// binary's. It is a benchmark tool only and never part of the copse binary.
package main

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		os.Stderr.WriteString("usage: floor list DIR | status DIR | screen | listscreen DIR\n")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "list":
		out := git(os.Args[2], "worktree", "list", "--porcelain", "-z")
		os.Stdout.Write(out)
	case "status":
		status(os.Args[2])
	case "screen":
		screen()
	case "listscreen":
		if len(git(os.Args[2], "worktree", "list", "--porcelain", "-z")) == 0 {
			os.Exit(1)
		}
		screen()
	default:
		os.Exit(2)
	}
}

// git runs git in dir the way copse's gitx does: -C dir, its own process group, the
// read-only environment (no optional locks, C locale, no prompts), output captured.
func git(dir string, args ...string) []byte {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		os.Stderr.WriteString("floor: git " + strings.Join(args, " ") + ": " + err.Error() + "\n" + errb.String())
		os.Exit(1)
	}
	return out.Bytes()
}

func status(repo string) {
	var paths []string
	for _, f := range bytes.Split(git(repo, "worktree", "list", "--porcelain", "-z"), []byte{0}) {
		if p, ok := bytes.CutPrefix(f, []byte("worktree ")); ok {
			paths = append(paths, string(p))
		}
	}
	workers := min(max(2*runtime.NumCPU(), 4), 16)
	jobs := make(chan string)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range min(workers, len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				n := len(git(p, "status", "--porcelain=v2", "--branch", "-z"))
				mu.Lock()
				total += n
				mu.Unlock()
			}
		}()
	}
	for _, p := range paths {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	if total == 0 {
		os.Exit(1)
	}
}

// screen draws 24 numbered lines and the marker the bench waits for, then waits.
func screen() {
	var b strings.Builder
	b.WriteString("\x1b[?1049h\x1b[H\x1b[2J") // the alternate screen, as the picker uses
	for i := range 23 {
		b.WriteString("  static line " + string(rune('a'+i)) + "  ~/src/app.worktrees/static\r\n")
	}
	b.WriteString("FLOOR-SCREEN-READY")
	os.Stdout.WriteString(b.String())
	time.Sleep(time.Hour)
}
