package core

import (
	"errors"
	"strings"
	"testing"

	"github.com/copse-dev/copse/gitx"
)

func TestGitMessagePicksErrorLines(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ stderr, want string }{
		{"Preparing worktree (new branch 'x')\nerror: external filter 'false' failed 1\nerror: external filter 'false' failed\nfatal: a.txt: smudge filter bad failed\n",
			"fatal: a.txt: smudge filter bad failed"},
		{"Preparing worktree (checking out 'x')\nerror: one\nerror: one\nerror: two\n", "error: one; error: two"},
		{"Preparing worktree (new branch 'x')\nHEAD is now at 1234567 init\nhook says no\n", "hook says no"},
		{"fatal: only line", "fatal: only line"},
		{"\n\n", ""},
	} {
		if got := gitMessage(c.stderr); got != c.want {
			t.Errorf("gitMessage(%q) = %q, want %q", c.stderr, got, c.want)
		}
	}
	// gitFailure (every git failure core reports) uses it.
	err := &gitx.Error{Kind: gitx.ErrExit, ExitCode: 128, Stderr: "Preparing worktree (new branch 'x')\nfatal: could not create leading directories of 'x'\n"}
	e := GitFailure("create_failed", err, "git could not create the worktree")
	if !strings.HasSuffix(e.Message, ": fatal: could not create leading directories of 'x'") || !errors.Is(e, err) {
		t.Fatalf("gitFailure message %q", e.Message)
	}
}

// A branch git found already there was not made by this create: never taken back.
func TestBranchExistedForGit(t *testing.T) {
	t.Parallel()
	yes := &gitx.Error{Kind: gitx.ErrExit, ExitCode: 128, Stderr: "Preparing worktree (new branch 'x')\nfatal: a branch named 'x' already exists\n"}
	no := &gitx.Error{Kind: gitx.ErrExit, ExitCode: 128, Stderr: "fatal: a.txt: smudge filter bad failed\n"}
	if !BranchExistedForGit(yes) || BranchExistedForGit(no) || BranchExistedForGit(errors.New("other")) {
		t.Fatal("misread")
	}
}
