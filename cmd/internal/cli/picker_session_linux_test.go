package cli_test

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
)

// The picker as a person meets it, on a terminal, with no session known: c on a worktree
// asks for the session in the picker (no "--session" in sight), and the id typed there
// claims it, as git's worktree list then shows.
func TestPickerClaimAsksForSessionOnATerminal(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/pty", "pty")
	master, slave := openPTY(t)
	screen := readAll(master)
	cmd := exec.Command(copseBin)
	cmd.Dir, cmd.Env = r.Root, cleanEnv(r.Home, "TERM=xterm-256color")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	waitScreen := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(screen.String(), what); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the terminal never showed %q; terminal: %q", what, screen.String())
			}
		}
	}
	waitScreen("feat/pty")
	before := r.Snapshot()
	master.Write([]byte("G")) // the linked worktree sorts after main
	master.Write([]byte("c"))
	waitScreen("for which session?")
	if strings.Contains(screen.String(), "--session") {
		t.Errorf("the picker names a CLI flag: %q", screen.String())
	}
	r.Unchanged(before)
	master.Write([]byte("agent-7\r"))
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), "locked copse claim: session=agent-7") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was never claimed for agent-7; terminal: %q", wt, screen.String())
		}
	}
	// git shows the claim before the picker has its answer, and while the claim runs the
	// picker drops every key but ctrl+c and movement: q is sent again until it quits.
	for deadline := time.Now().Add(20 * time.Second); ; {
		master.Write([]byte("q"))
		select {
		case <-done:
			return
		case <-time.After(time.Second):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the picker did not quit; terminal: %q", screen.String())
		}
	}
}
