package core_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
	"github.com/copse-dev/copse/gitx/gitxtest"
)

// The branches of Execute that decide from git's answers after a mutation, which real git
// does not give on demand: git is faked for the one answer each test is about (checked
// argv), real git answers everything else.

// readOnlyGit is what prepare and the postconditions read, allowed through to real git.
func readOnlyGit(f *gitxtest.Fake) *gitxtest.Fake {
	for _, p := range [][]string{{"config"}, {"check-ref-format"}, {"remote"}, {"show-ref"}, {"rev-parse"},
		{"-c", "core.untrackedCache=false", "status"}, {"-c", "core.untrackedCache=false", "-c", "core.fsmonitor=false", "status"},
		{"-c", "core.untrackedCache=true", "status"}, {"status"}, {"ls-files"}, {"rev-list"}, {"diff-tree"}, {"for-each-ref"}} {
		f.Allow(p...)
	}
	return f
}

// withFake opens a service on r and prepares req with real git, then puts f in front of
// git for Execute.
func withFake(t *testing.T, r *coretest.Repo, req core.Request, f *gitxtest.Fake) (*core.Outcome, error) {
	t.Helper()
	ctx := context.Background()
	svc, err := core.Open(ctx, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.Prepare(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	core.SetGitExec(svc, f)
	return svc.Execute(ctx, p)
}

func wantUncertain(t *testing.T, err error, code, mentions string) {
	t.Helper()
	e := core.AsError(err)
	if e == nil || e.Kind != core.KindUncertain || e.Code != code || e.Hint == "" || !strings.Contains(e.Message, mentions) {
		t.Fatalf("got %v (%+v); want an uncertain %s naming %s, with a hint", err, e, code, mentions)
	}
}

func listArgs() []string { return []string{"worktree", "list", "--porcelain", "-z"} }

func createArgs(r *coretest.Repo, branch string) []string {
	head := r.Git(r.Root, "rev-parse", "HEAD")
	return []string{"worktree", "add", "-b", branch, "--", filepath.Join(r.Base, "app.worktrees", branch), head}
}

func TestCreatePostconditions(t *testing.T) {
	t.Parallel()
	t.Run("wrong commit", func(t *testing.T) {
		r := coretest.New(t)
		head := r.Git(r.Root, "rev-parse", "HEAD")
		r.Write("more", "x\n")
		r.Git(r.Root, "add", "more")
		r.Git(r.Root, "commit", "-q", "-m", "more")
		other := r.Git(r.Root, "rev-parse", "HEAD")
		r.Git(r.Root, "reset", "-q", "--hard", head)
		f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...)
		f.Expect(createArgs(r, "new")...).Real()
		// git made it, but lists it at another commit.
		f.Expect(listArgs()...).Rewritten(func(b []byte) []byte {
			return bytes.ReplaceAll(b, []byte("HEAD "+head), []byte("HEAD "+other))
		})
		_, err := withFake(t, r, core.CreateRequest{Branch: "new"}, f)
		wantUncertain(t, err, "create_wrong_commit", "app.worktrees/new")
	})
	t.Run("wrong branch", func(t *testing.T) {
		r := coretest.New(t)
		f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...)
		f.Expect(createArgs(r, "new")...).Real()
		f.Expect(listArgs()...).Rewritten(func(b []byte) []byte {
			return bytes.ReplaceAll(b, []byte("branch refs/heads/new"), []byte("branch refs/heads/elsewhere"))
		})
		_, err := withFake(t, r, core.CreateRequest{Branch: "new"}, f)
		wantUncertain(t, err, "create_wrong_branch", "branch new")
	})
	t.Run("no directory", func(t *testing.T) {
		r := coretest.New(t)
		path := filepath.Join(r.Base, "app.worktrees", "new")
		f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...)
		f.Expect(createArgs(r, "new")...).Real()
		// git lists the worktree, but its directory went away meanwhile.
		f.Expect(listArgs()...).Rewritten(func(b []byte) []byte {
			if err := os.RemoveAll(path); err != nil {
				t.Fatal(err)
			}
			return b
		})
		_, err := withFake(t, r, core.CreateRequest{Branch: "new"}, f)
		wantUncertain(t, err, "create_no_directory", path)
	})
	t.Run("upstream not set", func(t *testing.T) {
		r := coretest.New(t)
		r.Git(r.Root, "branch", "feat")
		r.Git(r.Root, "remote", "add", "origin", r.Root)
		r.Git(r.Root, "fetch", "-q", "origin")
		r.Git(r.Root, "branch", "-D", "-q", "feat")
		f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...).Allow("worktree", "add").Allow("for-each-ref")
		// git created the branch with --track, but its config does not show the upstream.
		f.Expect("config", "--get", "--end-of-options", "branch.feat.remote").Returns("", gitxtest.ExitError(nil, 1, ""))
		f.Expect("config", "--get", "--end-of-options", "branch.feat.merge").Real()
		_, err := withFake(t, r, core.CreateRequest{Branch: "feat"}, f)
		wantUncertain(t, err, "upstream_not_set", "origin/feat")
	})
	t.Run("claim not made", func(t *testing.T) {
		r := coretest.New(t)
		f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...)
		f.Expect(createArgs(r, "new")...).Real()
		f.ExpectPrefix("worktree", "lock", "--reason").Returns("", gitxtest.ExitError(nil, 128, "fatal: cannot lock"))
		_, err := withFake(t, r, core.CreateRequest{Branch: "new", Claim: true, Session: core.Str("agent-1")}, f)
		wantUncertain(t, err, "claim_after_create_failed", "agent-1")
		if got := r.Git(r.Root, "worktree", "list"); !strings.Contains(got, "app.worktrees/new") || strings.Contains(got, "locked") {
			t.Errorf("want the worktree created and not locked:\n%s", got)
		}
	})
	t.Run("failed and not taken back", func(t *testing.T) {
		r := coretest.New(t)
		path := filepath.Join(r.Base, "app.worktrees", "new")
		f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...).Allow("branch", "-D").Allow("update-ref")
		// git made the worktree but failed (a hook, say); taking it back fails too.
		f.Expect(createArgs(r, "new")...).RealButFails(gitxtest.ExitError(nil, 1, "error: the hook failed"))
		f.Expect("worktree", "remove", "--force", "--", path).Returns("", gitxtest.ExitError(nil, 128, "fatal: cannot remove"))
		_, err := withFake(t, r, core.CreateRequest{Branch: "new"}, f)
		wantUncertain(t, err, "create_not_taken_back", path)
		if e := core.AsError(err); !strings.Contains(e.Message, "remain") {
			t.Errorf("the message does not say what remains: %s", e.Message)
		}
		if got := r.Git(r.Root, "worktree", "list"); !strings.Contains(got, path) {
			t.Errorf("the worktree the fake kept is not listed:\n%s", got)
		}
	})
	t.Run("list unreadable after", func(t *testing.T) {
		r := coretest.New(t)
		f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...)
		f.Expect(createArgs(r, "new")...).Real()
		f.Expect(listArgs()...).Returns("", gitxtest.ExitError(nil, 128, "fatal: index file corrupt"))
		_, err := withFake(t, r, core.CreateRequest{Branch: "new"}, f)
		wantUncertain(t, err, "create_unverified", "app.worktrees/new")
	})
}

// snapshotGit is what a remove that records the worktree first runs (restore's record).
func snapshotGit(f *gitxtest.Fake) *gitxtest.Fake {
	for _, p := range [][]string{{"-c"}, {"write-tree"}, {"commit-tree"}, {"update-ref"}} {
		f.Allow(p...)
	}
	return f
}

func TestRemovePostconditions(t *testing.T) {
	t.Parallel()
	t.Run("branch not deleted", func(t *testing.T) {
		r := coretest.New(t)
		wt := r.AddWorktree("feat", "feat")
		f := snapshotGit(readOnlyGit(gitxtest.New(t))).Allow(listArgs()...)
		f.Expect("worktree", "remove", "--", wt).Real()
		f.Expect("branch", "-D", "--", "feat").Returns("", gitxtest.ExitError(nil, 1, "error: cannot lock ref 'refs/heads/feat'"))
		_, err := withFake(t, r, core.RemoveRequest{Path: core.Str(wt), DeleteBranch: true}, f)
		wantUncertain(t, err, "branch_not_deleted", "feat")
		if _, err := os.Stat(wt); !os.IsNotExist(err) {
			t.Errorf("the worktree should be gone (only the branch delete failed): %v", err)
		}
		if got := r.Git(r.Root, "branch", "--list", "feat"); got == "" {
			t.Error("the branch the fake refused to delete is gone")
		}
	})
	t.Run("list unreadable after", func(t *testing.T) {
		r := coretest.New(t)
		wt := r.AddWorktree("feat", "feat")
		f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...)
		f.Expect("worktree", "remove", "--", wt).Real()
		f.Expect(listArgs()...).Returns("", gitxtest.ExitError(nil, 128, "fatal: unable to read"))
		_, err := withFake(t, r, core.RemoveRequest{Path: core.Str(wt)}, f)
		wantUncertain(t, err, "remove_unverified", wt)
	})
	t.Run("git fails and nothing changed", func(t *testing.T) {
		r := coretest.New(t)
		wt := r.AddWorktree("feat", "feat")
		before := r.Snapshot()
		f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...)
		f.Expect("worktree", "remove", "--", wt).Returns("", gitxtest.ExitError(nil, 128, "fatal: something odd"))
		_, err := withFake(t, r, core.RemoveRequest{Path: core.Str(wt)}, f)
		if e := core.AsError(err); e == nil || e.Kind != core.KindFailed || e.Code != "remove_failed" || !strings.Contains(e.Message, "something odd") {
			t.Fatalf("got %v; want remove_failed with git's message", err)
		}
		r.Unchanged(before)
	})
	t.Run("git fails after removing", func(t *testing.T) {
		r := coretest.New(t)
		wt := r.AddWorktree("feat", "feat")
		f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...)
		f.Expect("worktree", "remove", "--", wt).RealButFails(gitxtest.ExitError(nil, -1, "killed"))
		_, err := withFake(t, r, core.RemoveRequest{Path: core.Str(wt)}, f)
		wantUncertain(t, err, "remove_interrupted", wt)
	})
	t.Run("git says dirty", func(t *testing.T) {
		r := coretest.New(t)
		wt := r.AddWorktree("feat", "feat")
		before := r.Snapshot()
		f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...)
		// Changed between the check and the remove: git refuses, copse says why.
		f.Expect("worktree", "remove", "--", wt).Returns("", gitxtest.ExitError(nil, 128, "fatal: '"+wt+"' contains modified or untracked files, use --force to delete it"))
		_, err := withFake(t, r, core.RemoveRequest{Path: core.Str(wt)}, f)
		if e := core.AsError(err); e == nil || e.Kind != core.KindRefused || e.Code != "dirty_worktree" || !e.ForceHelps {
			t.Fatalf("got %v; want a dirty_worktree refusal --force gets past", err)
		}
		r.Unchanged(before)
	})
}

// Git's list decides whether a worktree can be entered: one it lists as prunable (its
// directory gone) or bare is refused before anything runs.
func TestSwitchRefusesWhatGitListsAsGone(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		code string
		edit func(b []byte, wt string) []byte
	}{
		{"prunable_worktree", func(b []byte, _ string) []byte {
			// The record of feat ends at its "branch" line: the marker goes after it.
			rec := []byte("branch refs/heads/feat\x00")
			return bytes.Replace(b, rec, append(rec, []byte("prunable gitdir file points to non-existent location\x00")...), 1)
		}},
		{"bare_repository", func(b []byte, wt string) []byte {
			// feat's record becomes a bare one: its path and "bare", nothing else.
			start := bytes.Index(b, []byte("worktree "+wt+"\x00"))
			end := start + bytes.Index(b[start:], []byte("\x00\x00")) + 2
			return append(append(append([]byte{}, b[:start]...), "worktree "+wt+"\x00bare\x00\x00"...), b[end:]...)
		}},
	} {
		t.Run(c.code, func(t *testing.T) {
			r := coretest.New(t)
			wt := r.AddWorktree("feat", "feat")
			ctx := context.Background()
			svc, err := core.Open(ctx, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
			if err != nil {
				t.Fatal(err)
			}
			f := readOnlyGit(gitxtest.New(t))
			f.Expect(listArgs()...).Rewritten(func(b []byte) []byte { return c.edit(b, wt) })
			core.SetGitExec(svc, f)
			before := r.Snapshot()
			_, err = svc.Prepare(ctx, core.SwitchRequest{Path: core.Str(wt)})
			if e := core.AsError(err); e == nil || e.Kind != core.KindRefused || e.Code != c.code || !strings.Contains(e.Message, wt) {
				t.Fatalf("got %v; want %s naming %s", err, c.code, wt)
			}
			r.Unchanged(before)
		})
	}
}

func TestRestorePostconditions(t *testing.T) {
	t.Parallel()
	// removed makes feat, force-removes it (recording it) and returns the record's id.
	removed := func(t *testing.T) (*coretest.Repo, string, string) {
		r := coretest.New(t)
		wt := r.AddWorktree("feat", "feat")
		svc, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
		if err != nil {
			t.Fatal(err)
		}
		out, err := svc.Do(context.Background(), core.RemoveRequest{Path: core.Str(wt), Force: true}, true)
		if err != nil || out.RestoreID == "" {
			t.Fatalf("remove: %v, %+v", err, out)
		}
		return r, wt, out.RestoreID
	}
	restoreGit := func(t *testing.T, wt string) *gitxtest.Fake {
		f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...).Allow("for-each-ref")
		f.Expect("worktree", "add", "--no-checkout", "--", wt, "feat").Real()
		return f
	}
	t.Run("list unreadable after", func(t *testing.T) {
		r, wt, id := removed(t)
		f := restoreGit(t, wt)
		f.Expect(listArgs()...).Returns("", gitxtest.ExitError(nil, 128, "fatal: unable to read"))
		_, err := withFake(t, r, core.RestoreRequest{ID: core.Str(id)}, f)
		wantUncertain(t, err, "restore_unverified", wt)
	})
	t.Run("not listed", func(t *testing.T) {
		r, wt, id := removed(t)
		f := restoreGit(t, wt)
		f.Expect(listArgs()...).Rewritten(func(b []byte) []byte {
			start := bytes.Index(b, []byte("worktree "+wt+"\x00"))
			end := start + bytes.Index(b[start:], []byte("\x00\x00")) + 2
			return append(append([]byte{}, b[:start]...), b[end:]...)
		})
		_, err := withFake(t, r, core.RestoreRequest{ID: core.Str(id)}, f)
		wantUncertain(t, err, "restore_not_listed", wt)
	})
	t.Run("wrong commit", func(t *testing.T) {
		r, wt, id := removed(t)
		head := r.Git(r.Root, "rev-parse", "feat")
		r.Write("more", "x\n")
		r.Git(r.Root, "add", "more")
		r.Git(r.Root, "commit", "-q", "-m", "more")
		other := r.Git(r.Root, "rev-parse", "HEAD")
		f := restoreGit(t, wt)
		f.Expect(listArgs()...).Rewritten(func(b []byte) []byte {
			i := bytes.Index(b, []byte("worktree "+wt+"\x00"))
			return append(b[:i:i], bytes.Replace(b[i:], []byte("HEAD "+head), []byte("HEAD "+other), 1)...)
		})
		_, err := withFake(t, r, core.RestoreRequest{ID: core.Str(id)}, f)
		wantUncertain(t, err, "restore_wrong_commit", wt)
	})
	t.Run("wrong branch", func(t *testing.T) {
		r, wt, id := removed(t)
		f := restoreGit(t, wt)
		f.Expect(listArgs()...).Rewritten(func(b []byte) []byte {
			return bytes.Replace(b, []byte("branch refs/heads/feat"), []byte("branch refs/heads/elsewhere"), 1)
		})
		_, err := withFake(t, r, core.RestoreRequest{ID: core.Str(id)}, f)
		wantUncertain(t, err, "restore_wrong_branch", wt)
	})
}

func TestPrunePostconditions(t *testing.T) {
	t.Parallel()
	t.Run("list unreadable after forgetting", func(t *testing.T) {
		r := coretest.New(t)
		wt := r.AddWorktree("feat", "feat")
		if err := os.RemoveAll(wt); err != nil {
			t.Fatal(err)
		}
		f := snapshotGit(readOnlyGit(gitxtest.New(t))).Allow(listArgs()...).Allow("for-each-ref").Allow("rev-list").Allow("diff-index")
		f.Expect("worktree", "remove", "--", wt).Real()
		f.Expect(listArgs()...).Returns("", gitxtest.ExitError(nil, 128, "fatal: unable to read"))
		_, err := withFake(t, r, core.PruneRequest{}, f)
		wantUncertain(t, err, "prune_unverified", "could not be read back")
	})
	t.Run("gone from disk but still listed", func(t *testing.T) {
		r := coretest.New(t)
		wt := r.AddWorktree("feat", "feat")
		head := r.Git(wt, "rev-parse", "HEAD")
		f := snapshotGit(readOnlyGit(gitxtest.New(t))).Allow(listArgs()...).Allow("for-each-ref").Allow("rev-list").Allow("diff-index")
		f.Expect("worktree", "remove", "--", wt).Real()
		// git removed it, but its list still names it: half a removal, as far as copse can tell.
		f.Expect(listArgs()...).Rewritten(func(b []byte) []byte {
			return append(b, []byte("worktree "+wt+"\x00HEAD "+head+"\x00branch refs/heads/feat\x00\x00")...)
		})
		_, err := withFake(t, r, core.PruneRequest{OlderThan: core.Str("0s")}, f)
		wantUncertain(t, err, "prune_incomplete", wt)
	})
}
