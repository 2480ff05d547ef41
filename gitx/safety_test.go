package gitx

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSafetyStatusIgnoresConfigAndFindsNestedRepos(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("r")
	s.commit(repo, ".gitignore", "build/\n*.log\nnm/\n", "ignore")
	// The user's config hides untracked files from git status; copse must still see them.
	s.git(repo, "config", "status.showUntrackedFiles", "no")
	s.write(filepath.Join(repo, "notes", "todo.txt"), "x")
	s.write(filepath.Join(repo, "build", "out.bin"), "x")
	s.write(filepath.Join(repo, "app.log"), "x")
	s.git(s.root, "init", "-q", filepath.Join(repo, "vendor", "lib"))
	s.git(s.root, "init", "-q", filepath.Join(repo, "nm", "pkg"))

	plain, err := s.runner().Status(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Untracked != 0 {
		t.Fatalf("precondition: the configured status should hide untracked files, got %+v", plain)
	}
	st, op, err := s.runner().SafetyStatus(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if op != "" {
		t.Fatalf("operation = %q, want none", op)
	}
	// notes/todo.txt and the nested repo vendor/lib/ are untracked entries.
	if st.Untracked != 2 {
		t.Fatalf("Untracked = %d, want 2 (%+v)", st.Untracked, st)
	}
	if !reflect.DeepEqual(st.UntrackedDirs, []string{"vendor/lib/"}) || !reflect.DeepEqual(st.IgnoredDirs, []string{"nm/pkg/"}) {
		t.Fatalf("UntrackedDirs = %q, IgnoredDirs = %q", st.UntrackedDirs, st.IgnoredDirs)
	}
	if st.Ignored != 3 || !sameSet(st.IgnoredSample, []string{"app.log", "build/out.bin", "nm/pkg/"}) {
		t.Fatalf("Ignored = %d %q", st.Ignored, st.IgnoredSample)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestHiddenChanges(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("r")
	for _, f := range []string{"same", "edited", "gone", "sparse-absent", "sparse-edited", "mode"} {
		s.write(filepath.Join(repo, f), f+"\n")
	}
	if err := os.Symlink("same", filepath.Join(repo, "link")); err != nil {
		t.Fatal(err)
	}
	s.git(repo, "add", ".")
	s.git(repo, "commit", "-q", "-m", "files")
	s.git(repo, "update-index", "--assume-unchanged", "same", "edited", "gone", "mode", "link")
	s.git(repo, "update-index", "--skip-worktree", "sparse-absent", "sparse-edited")
	s.write(filepath.Join(repo, "edited"), "changed\n")
	s.write(filepath.Join(repo, "sparse-edited"), "changed\n")
	for _, f := range []string{"gone", "sparse-absent"} {
		if err := os.Remove(filepath.Join(repo, f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(repo, "mode"), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := s.runner().Status(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if st.Dirty() {
		t.Fatalf("precondition: git status should not show flagged files, got %+v", st)
	}
	got, err := s.runner().HiddenChanges(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"edited", "gone", "mode", "sparse-edited"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("HiddenChanges = %q, want %q", got, want)
	}
}

func TestUnreachableCommitsAndOperation(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("r")
	s.git(repo, "checkout", "-q", "--detach")
	s.commit(repo, "a", "1", "one")
	s.commit(repo, "b", "2", "two")
	head := strings.TrimSpace(s.git(repo, "rev-parse", "HEAD"))
	n, err := s.runner().UnreachableCommits(context.Background(), repo, head)
	if err != nil || n != 2 {
		t.Fatalf("UnreachableCommits = %d, %v; want 2", n, err)
	}
	s.git(repo, "tag", "keep")
	if n, err = s.runner().UnreachableCommits(context.Background(), repo, head); err != nil || n != 0 {
		t.Fatalf("after tagging: %d, %v; want 0", n, err)
	}

	// A conflicting cherry-pick leaves CHERRY_PICK_HEAD in the worktree's git dir.
	s.git(repo, "checkout", "-q", "-b", "side", "main")
	s.commit(repo, "a", "other", "conflict")
	if out, err := s.gitErr(repo, "cherry-pick", head+"~1"); err == nil {
		t.Fatalf("cherry-pick should conflict: %s", out)
	}
	op, err := OperationInProgress(repo)
	if err != nil || op != OpCherryPick {
		t.Fatalf("OperationInProgress = %q, %v; want %q", op, err, OpCherryPick)
	}
	s.git(repo, "cherry-pick", "--abort")
	s.git(repo, "bisect", "start")
	if op, _ = OperationInProgress(repo); op != OpBisect {
		t.Fatalf("during bisect: %q", op)
	}
}

func TestRecordFilterKeepsSplitRecords(t *testing.T) {
	t.Parallel()
	var got []string
	var buf strings.Builder
	f := &recordFilter{keep: func(r []byte) bool { got = append(got, string(r)); return r[0] == 'k' }, out: &buf}
	for _, chunk := range []string{"kee", "p1\x00drop\x00k", "2\x00"} {
		if n, err := f.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	if buf.String() != "keep1\x00k2\x00" || !reflect.DeepEqual(got, []string{"keep1", "drop", "k2"}) {
		t.Fatalf("kept %q from %q", buf.String(), got)
	}
}
