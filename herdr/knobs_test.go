package herdr

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/herdr/herdrdouble"
	"github.com/copse-dev/copse/internal/textsafe"
)

// Each knob of the double, and what the client makes of it.

func TestKnobForcedError(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, code := range []string{"worktree_operation_in_progress", "protocol_mismatch", "some_future_code"} {
		_, err := w.client(herdrdouble.Knobs{Error: code}).Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/x"})
		he := replyErr(t, err, code)
		if he.Message == "" {
			t.Fatal("no message")
		}
	}
	if len(w.WorktreePaths(t)) != 1 || len(w.state(t).Workspaces) != 0 {
		t.Fatal("a forced error changed something")
	}
}

func TestKnobServerDown(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	_, err := w.client(herdrdouble.Knobs{ServerDown: true}).List(bg, w.Repo)
	he := replyErr(t, err, "server_not_running")
	if !strings.Contains(he.Message, "no herdr server is running at") {
		t.Fatalf("message = %q", he.Message)
	}
}

// A Rust I/O error is plain text on stderr: tolerated, surfaced as ErrExec with the text.
func TestKnobIOError(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	_, err := w.client(herdrdouble.Knobs{IOError: true}).Remove(bg, "w1", false)
	he := herdrErr(t, err, ErrExec)
	if he.ExitCode != 1 || !strings.Contains(he.Stderr, "ConnectionReset") || !strings.Contains(err.Error(), "ConnectionReset") {
		t.Fatalf("err = %#v", he)
	}
}

func TestKnobLieNoGit(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r, err := w.client(herdrdouble.Knobs{Lie: herdrdouble.LieNoGit}).Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/x"})
	if err != nil {
		t.Fatalf("the lie should look like success: %v", err)
	}
	if w.gitHas(t, r.Worktree.Path) || len(w.state(t).Workspaces) != 0 {
		t.Fatal("no_git changed git or state")
	}
	if _, err := os.Stat(r.Worktree.Path); !os.IsNotExist(err) {
		t.Fatal("no_git created the checkout directory")
	}
}

// wrong_type: the work is done, the reply is of another type. The client cannot trust
// it, and says the outcome is uncertain (git did change).
func TestKnobLieWrongType(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.client(herdrdouble.Knobs{Lie: herdrdouble.LieWrongType})
	_, err := c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/x"})
	he := herdrErr(t, err, ErrWrongReply)
	if !he.Uncertain() || !strings.Contains(err.Error(), "worktree_opened") {
		t.Fatalf("err = %v", err)
	}
	if !w.gitHas(t, filepath.Join(w.Worktrees, "app", "feat-x")) {
		t.Fatal("wrong_type should still do the work")
	}
	calls := []func() error{ // in this order: remove last, open needs the worktree
		func() error { _, err := c.List(bg, w.Repo); return err },
		func() error { _, err := c.Open(bg, OpenArgs{Cwd: w.Repo, Branch: "feat/x"}); return err },
		func() error { _, err := c.Remove(bg, "w1", true); return err },
	}
	for _, call := range calls {
		herdrErr(t, call(), ErrWrongReply)
	}
}

// other_path: the reply names a checkout that is not the one created. The client passes
// the reply on (core compares it with git); the test shows the two disagree.
func TestKnobLieOtherPath(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	want := filepath.Join(w.Worktrees, "app", "feat-x")
	r, err := w.client(herdrdouble.Knobs{Lie: herdrdouble.LieOtherPath}).Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/x"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Worktree.Path == want || r.Workspace.Worktree.CheckoutPath == want || !w.gitHas(t, want) || w.gitHas(t, r.Worktree.Path) {
		t.Fatalf("reply path %s, created %s", r.Worktree.Path, want)
	}
}

// A delay before acting, past the client's timeout: killed, uncertain, and in fact nothing
// changed. The kill must come at the timeout, not when the double wakes up.
func TestKnobDelayBeforeTimeout(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.client(herdrdouble.Knobs{Delay: 30 * time.Second})
	c.Timeout = 500 * time.Millisecond
	start := time.Now()
	_, err := c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/x"})
	he := herdrErr(t, err, ErrTimeout)
	if !he.Uncertain() || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "unknown") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %s: the process group was not killed at the timeout", d)
	}
	if len(w.WorktreePaths(t)) != 1 {
		t.Fatal("killed before acting, yet git changed")
	}
}

// A delay after acting: killed, uncertain, but git did change, and listing (what core does
// to reconcile) shows the new worktree and its workspace.
func TestKnobDelayAfterTimeout(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.client(herdrdouble.Knobs{DelayAfter: 60 * time.Second})
	c.Timeout = 8 * time.Second // ample for git to finish first, even on a loaded machine
	_, err := c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/x"})
	if he := herdrErr(t, err, ErrTimeout); !he.Uncertain() {
		t.Fatal("a timeout must be uncertain")
	}
	path := filepath.Join(w.Worktrees, "app", "feat-x")
	l, err := w.client(herdrdouble.Knobs{}).List(bg, w.Repo)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, wt := range l.Worktrees {
		found = found || (wt.Path == path && wt.OpenWorkspaceID == "w1")
	}
	if !found || !w.gitHas(t, path) {
		t.Fatalf("reconcile list = %+v", l.Worktrees)
	}
}

func TestCancelWhileRunning(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, cancel := context.WithCancel(bg)
	// Cancel once the double is running (it logs on start), so the cancel hits a live process.
	go func() {
		for b, _ := os.ReadFile(w.log); len(b) == 0; b, _ = os.ReadFile(w.log) {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	_, err := w.client(herdrdouble.Knobs{Delay: 30 * time.Second}).Create(ctx, CreateArgs{Cwd: w.Repo, Branch: "feat/x"})
	he := herdrErr(t, err, ErrCanceled)
	if !he.Started || !he.Uncertain() || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %#v", he)
	}
	// Cancelled before it starts: certain that nothing ran.
	_, err = w.client(herdrdouble.Knobs{}).List(ctx, w.Repo)
	if he := herdrErr(t, err, ErrCanceled); he.Started || he.Uncertain() {
		t.Fatalf("err = %#v", he)
	}
}

// Exit 2 means copse built a command herdr does not take. The builder cannot make one, so
// the tests build the Cmd by hand: --trust-repository (0.9 only) and the --flag=value form.
func TestExitTwoIsUsage(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, bad := range [][]string{
		{"herdr", "worktree", "list", "--cwd", w.Repo, "--trust-repository"},
		{"herdr", "worktree", "create", "--cwd=" + w.Repo, "--no-focus"},
		{"herdr", "worktree", "open", "--cwd", w.Repo, "--no-focus"},
	} {
		_, err := w.client(herdrdouble.Knobs{}).Run(bg, Cmd{action: bad[2], argv: bad, dir: w.Repo})
		he := herdrErr(t, err, ErrUsage)
		if he.ExitCode != 2 || he.Uncertain() || !strings.Contains(err.Error(), "bug in copse") {
			t.Fatalf("err = %v", err)
		}
	}
	_, err := w.client(herdrdouble.Knobs{}).Run(bg, Cmd{action: "list", argv: []string{"herdr", "worktree", "list", "--branch=x"}, dir: w.Repo})
	if !strings.Contains(err.Error(), "unknown option: --branch=x") {
		t.Fatalf("err = %v", err)
	}
}

func TestExecFailures(t *testing.T) {
	t.Parallel()
	cmd, _ := ListCmd("/")
	// Missing binary: nothing started, certain.
	_, err := (&Client{Bin: filepath.Join(t.TempDir(), "herdr")}).Run(bg, cmd)
	if he := herdrErr(t, err, ErrExec); he.Started || he.Uncertain() {
		t.Fatalf("err = %#v", he)
	}
	_, err = (&Client{}).Run(bg, cmd)
	herdrErr(t, err, ErrExec)
	// Exit 1 and nothing on stderr: a failure with no error text.
	_, err = (&Client{Bin: writeScript(t, "#!/bin/sh\nexit 1\n")}).Run(bg, cmd)
	if he := herdrErr(t, err, ErrExec); he.ExitCode != 1 || !strings.Contains(err.Error(), "no error text") {
		t.Fatalf("err = %v", err)
	}
	// Killed by a signal it did not get from us.
	_, err = (&Client{Bin: writeScript(t, "#!/bin/sh\nkill -9 $$\n")}).Run(bg, cmd)
	if he := herdrErr(t, err, ErrExec); he.ExitCode != -1 {
		t.Fatalf("err = %#v", he)
	}
	// A working directory that does not exist is named as such, not blamed on the binary.
	missing, _ := ListCmd(filepath.Join(t.TempDir(), "gone"))
	_, err = (&Client{Bin: "/bin/true"}).Run(bg, missing)
	if he := herdrErr(t, err, ErrExec); !strings.Contains(he.Message, "cannot run in") {
		t.Fatalf("err = %v", err)
	}
}

// Past the output cap: a size limit, not a missing executable; the child is not blocked.
func TestOutputLimit(t *testing.T) {
	t.Parallel()
	cmd, _ := ListCmd("/")
	for _, script := range []string{
		"#!/bin/sh\nhead -c 3145728 /dev/zero\n",
		"#!/bin/sh\nhead -c 3145728 /dev/zero >&2\nexit 1\n",
	} {
		_, err := (&Client{Bin: writeScript(t, script)}).Run(bg, cmd)
		he := herdrErr(t, err, ErrOutputLimit)
		if !strings.Contains(err.Error(), "limit") || len(he.Stderr) > MaxOutput {
			t.Fatalf("err = %v (stderr %d bytes)", err, len(he.Stderr))
		}
	}
}

// Error text from herdr reaches terminals: hidden characters are escaped in Error().
func TestErrorMessageIsSanitized(t *testing.T) {
	t.Parallel()
	e := &Error{Kind: ErrReply, Code: "x\x1b[2J", Message: "bad\u202e\nthing\x07", Argv: []string{"herdr", "worktree", "list"}}
	msg := e.Error()
	for _, r := range msg {
		if textsafe.IsHidden(r) {
			t.Fatalf("Error() = %q carries a hidden character", msg)
		}
	}
	if !strings.Contains(msg, `\x1b`) || !strings.Contains(msg, `\u202e`) {
		t.Fatalf("Error() = %q, want escapes", msg)
	}
}
