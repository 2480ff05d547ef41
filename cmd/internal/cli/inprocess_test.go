package cli_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/copse-dev/copse/cmd/internal/cli"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/spf13/cobra"
)

// testFactory runs commands in this process with a fake terminal on stdin.
func testFactory(r *coretest.Repo, in io.Reader, terminal bool) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	f := cli.NewFactory()
	f.In, f.Out, f.Err = in, &out, &errb
	f.Getenv = r.Getenv
	f.Env = coretest.Env(r.Home)
	f.StdinTerminal = func() bool { return terminal }
	f.OutTerminal = func() bool { return false }
	f.TermWidth = func() int { return 60 }
	return f, &out, &errb
}

// On a terminal, remove asks: the confirmation, one value a line, then [y/N]; only y/yes
// goes ahead, the default (enter, EOF, anything else) is No and changes nothing.
func TestConfirmationOnTerminal(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/x", "x")
	for _, answer := range []string{"\n", "", "n\n", "no\n", "yess\n", "Y es\n"} {
		before := r.Snapshot()
		f, out, errb := testFactory(r, strings.NewReader(answer), true)
		code := cli.Run(context.Background(), f, []string{"-C", r.Root, "remove", "feat/x"})
		if code != 1 || !strings.Contains(errb.String(), "not confirmed; nothing was changed") {
			t.Fatalf("answer %q: exit %d\n%s%s", answer, code, out, errb)
		}
		lines := strings.Split(errb.String(), "\n")
		if lines[0] != "Remove this worktree?" || !strings.HasPrefix(lines[1], "  branch  feat/x") ||
			!strings.HasPrefix(lines[2], "  path    ") || !strings.HasPrefix(lines[3], "Proceed? [y/N] ") {
			t.Fatalf("prompt:\n%s", errb)
		}
		r.Unchanged(before)
	}
	for _, answer := range []string{"y\n", " YES \n"} {
		wt := r.AddWorktree("feat/y"+strings.TrimSpace(answer), "y"+strings.TrimSpace(answer))
		f, out, errb := testFactory(r, strings.NewReader(answer), true)
		code := cli.Run(context.Background(), f, []string{"-C", r.Root, "remove", wt})
		if code != 0 || !strings.Contains(out.String(), "removed "+wt) {
			t.Fatalf("answer %q: exit %d\n%s%s", answer, code, out, errb)
		}
		if _, err := os.Stat(wt); !os.IsNotExist(err) {
			t.Fatal("not removed")
		}
	}
}

// A hostile value in the confirmation is shown escaped on its own line and cut to the
// terminal's width; it cannot forge the lines around it.
func TestConfirmationEscapesAndCuts(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	path := filepath.Join(r.Base, strings.Repeat("long-", 30))
	f, _, errb := testFactory(r, strings.NewReader("n\n"), true)
	code := cli.Run(context.Background(), f, []string{"-C", r.Root, "create", "ok", "--path", path})
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	for _, l := range strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n") {
		if n := len([]rune(l)); n > 60 && !strings.HasPrefix(l, "copse:") && !strings.HasPrefix(l, "  hint:") && !strings.HasPrefix(l, "Proceed?") {
			t.Fatalf("line of %d cells on a 60-cell terminal: %q", n, l)
		}
	}
	if !strings.Contains(errb.String(), "…") {
		t.Fatalf("long value not cut:\n%s", errb)
	}
}

// ^C at the prompt: exit 130, nothing changed.
func TestConfirmationCancelled(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/x", "x")
	before := r.Snapshot()
	pr, pw := io.Pipe() // never answers
	defer pw.Close()
	f, _, _ := testFactory(r, pr, true)
	errb := &syncBuffer{}
	f.Err = errb
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	onPrompt(t, errb, cancel) // ^C while copse waits for the answer
	code := cli.Run(ctx, f, []string{"-C", r.Root, "remove", "feat/x"})
	if code != 130 || !strings.Contains(errb.String(), "cancelled at the confirmation; nothing was changed") {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	r.Unchanged(before)
}

// The confirmation is bound to the worktree list it was shown with: if the list changed
// before the yes, nothing runs.
func TestConfirmationStale(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/x", "x")
	pr, pw := io.Pipe()
	f, _, _ := testFactory(r, pr, true)
	errb := &syncBuffer{}
	f.Err = errb
	onPrompt(t, errb, func() { // change the list, then say yes
		r.AddWorktree("other", "other")
		pw.Write([]byte("y\n"))
	})
	code := cli.Run(context.Background(), f, []string{"-C", r.Root, "remove", "feat/x"})
	if code != 1 || !strings.Contains(errb.String(), "changed after the confirmation was shown; nothing ran") {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	if _, err := os.Stat(filepath.Join(r.Base, "x")); err != nil {
		t.Fatal("removed despite a stale confirmation")
	}
}

// Flag parsing maps onto the request fields; runF sees the options and nothing else runs.
func TestFlagParsing(t *testing.T) {
	t.Parallel()
	f := cli.NewFactory()
	exec := func(cmd *cobra.Command, args ...string) error {
		cmd.SetArgs(args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		return cmd.Execute()
	}

	var c *cli.CreateOptions
	if err := exec(cli.NewCmdCreate(f, func(_ context.Context, o *cli.CreateOptions) error { c = o; return nil }),
		"feat/x", "--base", "main", "--path", "/abs/p", "--label", "L", "--focus", "--yes", "--dry-run"); err != nil {
		t.Fatal(err)
	}
	if c.Request.Branch != "feat/x" || *c.Request.Base != "main" || *c.Request.Path != "/abs/p" || *c.Request.Label != "L" ||
		!c.Request.Focus || !c.Yes || !c.DryRun {
		t.Fatalf("create options %+v", c)
	}
	// Absent stays absent; given-but-empty reaches the core, which refuses it.
	if err := exec(cli.NewCmdCreate(f, func(_ context.Context, o *cli.CreateOptions) error { c = o; return nil }), "b", "--base="); err != nil {
		t.Fatal(err)
	}
	if c.Request.Base == nil || *c.Request.Base != "" || c.Request.Path != nil || c.Request.Label != nil {
		t.Fatalf("create options %+v", c.Request)
	}

	var rm *cli.RemoveOptions
	if err := exec(cli.NewCmdRemove(f, func(_ context.Context, o *cli.RemoveOptions) error { rm = o; return nil }),
		"--workspace", "wG", "--force", "--delete-branch", "-y"); err != nil {
		t.Fatal(err)
	}
	if rm.Workspace == nil || *rm.Workspace != "wG" || rm.Target != "" || !rm.Force || !rm.DeleteBr || !rm.Yes {
		t.Fatalf("remove options %+v", rm)
	}

	var o *cli.OpenOptions
	if err := exec(cli.NewCmdOpen(f, func(_ context.Context, x *cli.OpenOptions) error { o = x; return nil }), "--branch", "b", "--focus"); err != nil {
		t.Fatal(err)
	}
	if o.Request.Path != nil || *o.Request.Branch != "b" || !o.Request.Focus {
		t.Fatalf("open options %+v", o.Request)
	}

	ran := false
	for _, args := range [][]string{{"a", "b"}, {}, {"--nope", "a"}} {
		if err := exec(cli.NewCmdSwitch(f, func(context.Context, *cli.SwitchOptions) error { ran = true; return nil }), args...); err == nil {
			t.Fatalf("switch %q parsed", args)
		}
	}
	if ran {
		t.Fatal("a command ran after a usage error")
	}
}

// Any error that does not come from the core is a usage error: exit 2, code "usage".
func TestRunMapsUsageErrors(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	f, out, _ := testFactory(r, strings.NewReader(""), false)
	if code := cli.Run(context.Background(), f, []string{"--json", "list", "--nope"}); code != 2 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), `{"error":{"code":"usage","message":"unknown flag: --nope","hint":"see `+"`copse list --help`"+`"}}`) {
		t.Fatalf("json error %s", out)
	}
}

// syncBuffer is a bytes.Buffer safe to read while copse writes to it.
// onPrompt runs do once errb shows the confirmation prompt, on its own goroutine; it gives
// up when the test ends (a run that never asked fails on its exit code instead).
func onPrompt(t *testing.T, errb *syncBuffer, do func()) {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		for !strings.Contains(errb.String(), "Proceed?") {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		do()
	}()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// --delete-branch is stated in the prompt, with what the branch holds.
func TestConfirmationStatesDeleteBranch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/x", "x")
	before := r.Snapshot()
	f, out, errb := testFactory(r, strings.NewReader("n\n"), true)
	code := cli.Run(context.Background(), f, []string{"-C", r.Root, "remove", "--delete-branch", "feat/x"})
	if code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	if !strings.Contains(errb.String(), "  delete branch  feat/x at ") || !strings.Contains(errb.String(), ": no commits only on it") {
		t.Fatalf("prompt does not state the branch deletion:\n%s", errb)
	}
	r.Unchanged(before)
}
