package core_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// land --force-restart aborts the rebase a land left open only while nobody has worked in
// it: a conflict being resolved (the file edited, or staged), another file edited, a step
// continued are refused (rebase_changed, exit 1) before anything is aborted, and the
// refusal changes nothing: the rebase's state, the index and the files are as they were.
func TestLandForceRestartRefusesARebaseSomeoneWorkedInAndChangesNothing(t *testing.T) {
	t.Parallel()
	for name, work := range map[string]func(r *coretest.Repo, w string){
		"conflict edited": func(r *coretest.Repo, w string) {
			coretest.WriteFile(t, filepath.Join(w, "README.md"), "resolved by hand\n")
		},
		"conflict staged": func(r *coretest.Repo, w string) {
			coretest.WriteFile(t, filepath.Join(w, "README.md"), "resolved by hand\n")
			r.Git(w, "add", "README.md")
		},
		"other file edited": func(r *coretest.Repo, w string) {
			coretest.WriteFile(t, filepath.Join(w, "notes.txt"), "notes, edited during the rebase\n")
		},
		"other file staged": func(r *coretest.Repo, w string) {
			coretest.WriteFile(t, filepath.Join(w, "new.txt"), "new\n")
			r.Git(w, "add", "new.txt")
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := coretest.New(t)
			w := feature(t, r, "feat/fr", "notes.txt", "notes\n")
			commitOn(t, r, w, "README.md", "feature version\n")
			commitOn(t, r, r.Root, "README.md", "main version\n")
			s := open(t, r, r.Root)
			_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/fr")})
			wantCode(t, err, core.KindRefused, core.CodeRebaseConflict)
			work(r, w)
			index := r.Git(w, "rev-parse", "--path-format=absolute", "--git-path", "index")
			indexBefore, err := os.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			stagedBefore := r.Git(w, "ls-files", "-s")
			before := r.Snapshot()
			_, err = land(t, s, core.LandRequest{Path: core.Str(w), ForceRestart: true})
			wantCode(t, err, core.KindRefused, core.CodeRebaseChanged)
			if e := core.AsError(err); !strings.Contains(e.Message, "worked on since it stopped") || !strings.Contains(e.Hint, "rebase --abort") {
				t.Errorf("refusal %q (hint %q) does not say what it protects and how to proceed", e.Message, e.Hint)
			}
			if core.ExitCode(err) != 1 {
				t.Errorf("exit %d, want 1", core.ExitCode(err))
			}
			r.Unchanged(before) // the rebase-merge state, the files, the land records
			if after, _ := os.ReadFile(index); string(after) != string(indexBefore) {
				t.Error("the index changed")
			}
			if got := r.Git(w, "ls-files", "-s"); got != stagedBefore {
				t.Errorf("the staged entries changed:\n%s\nwant\n%s", got, stagedBefore)
			}
		})
	}
}

// Continuing the rebase one step (a commit made on the way) is work too.
func TestLandForceRestartRefusesARebaseContinuedSinceItStopped(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/two", "README.md", "feature one\n")
	commitOn(t, r, w, "README.md", "feature two\n")
	commitOn(t, r, r.Root, "README.md", "main version\n")
	s := open(t, r, r.Root)
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/two")})
	wantCode(t, err, core.KindRefused, core.CodeRebaseConflict)
	coretest.WriteFile(t, filepath.Join(w, "README.md"), "resolved one\n")
	r.Git(w, "add", "README.md")
	if _, err := r.TryGit(w, "-c", "core.editor=true", "rebase", "--continue"); err == nil {
		t.Fatal("expected the second step to conflict too")
	}
	before := r.Snapshot()
	_, err = land(t, s, core.LandRequest{Path: core.Str(w), ForceRestart: true})
	wantCode(t, err, core.KindRefused, core.CodeRebaseChanged)
	if !strings.Contains(err.Error(), "HEAD") {
		t.Errorf("refusal %v does not say HEAD moved", err)
	}
	r.Unchanged(before)
}
