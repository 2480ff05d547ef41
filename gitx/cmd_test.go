package gitx

import (
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

const oid = "4cc7d522521fb6ba89548a225c884aa960d98902"

func TestBuildersArgv(t *testing.T) {
	t.Parallel()
	must := func(c Cmd, err error) Cmd {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tests := []struct {
		name string
		cmd  Cmd
		want []string
		read bool
	}{
		{"MergeTreeBatchCmd", must(MergeTreeBatchCmd("/repo", [][2]string{{oid, oid}})),
			[]string{"git", "-C", "/repo", "merge-tree", "--stdin", "--write-tree", "--name-only", "--no-messages", "-z"}, false},
		{"ForkChangesCmd", must(ForkChangesCmd("/repo", oid, oid)),
			[]string{"git", "-C", "/repo", "diff", "--no-color", "--no-ext-diff", "--no-relative", "--no-renames",
				"--ignore-submodules=none", "--name-status", "-z", oid + "..." + oid, "--"}, true},
		{"StackCommitCmd", must(StackCommitCmd("/repo", oid, oid, "m")),
			[]string{"git", "-C", "/repo", "commit-tree", "--no-gpg-sign", "-p", oid, "-m", "m", oid}, false},
		{"WorktreeAddScratchCmd", must(WorktreeAddScratchCmd("/repo", "/s", oid, "why")),
			[]string{"git", "-C", "/repo", "-c", "submodule.recurse=false", "-c", "core.hooksPath=/dev/null",
				"worktree", "add", "--detach", "--lock", "--reason", "why", "--", "/s", oid}, false},
		{"WorktreeList", must(WorktreeList("/repo")),
			[]string{"git", "-C", "/repo", "worktree", "list", "--porcelain", "-z"}, true},
		{"WorktreeAddNew", must(WorktreeAddNew("/repo", "/p", "feat/x", oid)),
			[]string{"git", "-C", "/repo", "worktree", "add", "-b", "feat/x", "--", "/p", oid}, false},
		{"WorktreeAddExisting", must(WorktreeAddExisting("/repo", "/p", "feat/x")),
			[]string{"git", "-C", "/repo", "worktree", "add", "--", "/p", "feat/x"}, false},
		{"WorktreeRemove", must(WorktreeRemove("/repo", "/p", false, false)),
			[]string{"git", "-C", "/repo", "worktree", "remove", "--", "/p"}, false},
		{"WorktreeRemove locked without force", must(WorktreeRemove("/repo", "/p", false, true)),
			[]string{"git", "-C", "/repo", "worktree", "remove", "--", "/p"}, false},
		{"WorktreeRemove force", must(WorktreeRemove("/repo", "/p", true, false)),
			[]string{"git", "-C", "/repo", "worktree", "remove", "--force", "--", "/p"}, false},
		{"WorktreeRemove force locked", must(WorktreeRemove("/repo", "/p", true, true)),
			[]string{"git", "-C", "/repo", "worktree", "remove", "--force", "--force", "--", "/p"}, false},
		{"StatusCmd", must(StatusCmd("/repo/wt")),
			[]string{"git", "-C", "/repo/wt", "-c", "core.untrackedCache=false", "status", "--porcelain=v2", "--branch", "-z"}, true},
		{"DisplayStatusCmd on", must(DisplayStatusCmd("/repo/wt", UntrackedCacheOn)),
			[]string{"git", "-C", "/repo/wt", "-c", "core.untrackedCache=true", "status", "--porcelain=v2", "--branch", "-z"}, true},
		{"DisplayStatusCmd as configured", must(DisplayStatusCmd("/repo/wt", UntrackedCacheAsConfigured)),
			[]string{"git", "-C", "/repo/wt", "status", "--porcelain=v2", "--branch", "-z"}, true},
		{"DirtyNames", must(DirtyNames("/repo/wt")),
			[]string{"git", "-C", "/repo/wt", "-c", "core.untrackedCache=false", "status", "--porcelain", "-z", "-uall"}, true},
		{"StatusWithIgnoredCmd", must(StatusWithIgnoredCmd("/repo/wt")),
			[]string{"git", "-C", "/repo/wt", "-c", "core.untrackedCache=false", "status", "--porcelain", "-z", "--untracked-files=all",
				"--ignored=matching", "--ignore-submodules=none"}, true},
		{"CheckRefFormatBranch", must(CheckRefFormatBranch("/repo", "@{-1}")),
			[]string{"git", "-C", "/repo", "check-ref-format", "--branch", "@{-1}"}, true},
		{"RevParseCommit", must(RevParseCommit("/repo", "origin/main")),
			[]string{"git", "-C", "/repo", "rev-parse", "--verify", "--end-of-options", "origin/main^{commit}"}, true},
		{"RevParseCommonDir", must(RevParseCommonDir("/repo")),
			[]string{"git", "-C", "/repo", "rev-parse", "--path-format=absolute", "--git-common-dir"}, true},
		{"ConfigGet", must(ConfigGet("/repo", "copse.root")),
			[]string{"git", "-C", "/repo", "config", "--get", "--end-of-options", "copse.root"}, true},
		{"LocalBranchExists", must(LocalBranchExists("/repo", "feat/x")),
			[]string{"git", "-C", "/repo", "show-ref", "--verify", "--quiet", "--", "refs/heads/feat/x"}, true},
		{"LocalBranches", must(LocalBranches("/repo")),
			[]string{"git", "-C", "/repo", "for-each-ref", "--format=%(refname:lstrip=2)", "refs/heads/"}, true},
		{"BranchDelete", must(BranchDelete("/repo", "feat/x", false)),
			[]string{"git", "-C", "/repo", "branch", "-d", "--", "feat/x"}, false},
		{"BranchDelete force", must(BranchDelete("/repo", "feat/x", true)),
			[]string{"git", "-C", "/repo", "branch", "-D", "--", "feat/x"}, false},
		{"IsAncestor", must(IsAncestor("/repo", "feat/x", oid)),
			[]string{"git", "-C", "/repo", "merge-base", "--is-ancestor", "--end-of-options", "feat/x", oid}, true},
		{"UniqueCommitCount", must(UniqueCommitCount("/repo", "feat/x")),
			[]string{"git", "-C", "/repo", "rev-list", "--count", "refs/heads/feat/x", "--not", "--exclude=feat/x", "--branches", "--remotes"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cmd.Argv(); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("argv\n got %q\nwant %q", got, tt.want)
			}
			if tt.cmd.ReadOnly() != tt.read {
				t.Fatalf("ReadOnly() = %v, want %v", tt.cmd.ReadOnly(), tt.read)
			}
		})
	}
}

// TestBuildersReject feeds each bad value into every builder position that
// takes a value of that kind.
func TestBuildersReject(t *testing.T) {
	t.Parallel()
	type builder func(v string) (Cmd, error)
	paths := map[string]builder{
		"MergeTreeBatchCmd.dir":      func(v string) (Cmd, error) { return MergeTreeBatchCmd(v, [][2]string{{oid, oid}}) },
		"ForkChangesCmd.dir":         func(v string) (Cmd, error) { return ForkChangesCmd(v, oid, oid) },
		"StackCommitCmd.dir":         func(v string) (Cmd, error) { return StackCommitCmd(v, oid, oid, "m") },
		"WorktreeAddScratchCmd.dir":  func(v string) (Cmd, error) { return WorktreeAddScratchCmd(v, "/s", oid, "r") },
		"WorktreeAddScratchCmd.path": func(v string) (Cmd, error) { return WorktreeAddScratchCmd("/r", v, oid, "r") },
		"WorktreeList.dir":           func(v string) (Cmd, error) { return WorktreeList(v) },
		"WorktreeAddNew.dir":         func(v string) (Cmd, error) { return WorktreeAddNew(v, "/p", "b", oid) },
		"WorktreeAddNew.path":        func(v string) (Cmd, error) { return WorktreeAddNew("/r", v, "b", oid) },
		"WorktreeAddExisting.path":   func(v string) (Cmd, error) { return WorktreeAddExisting("/r", v, "b") },
		"WorktreeRemove.path":        func(v string) (Cmd, error) { return WorktreeRemove("/r", v, true, true) },
		"StatusCmd.dir":              func(v string) (Cmd, error) { return StatusCmd(v) },
		"RevParseCommonDir.dir":      func(v string) (Cmd, error) { return RevParseCommonDir(v) },
		"LocalBranches.dir":          func(v string) (Cmd, error) { return LocalBranches(v) },
		"BranchDelete.dir":           func(v string) (Cmd, error) { return BranchDelete(v, "b", false) },
	}
	refs := map[string]builder{
		"WorktreeAddNew.branch":      func(v string) (Cmd, error) { return WorktreeAddNew("/r", "/p", v, oid) },
		"WorktreeAddExisting.branch": func(v string) (Cmd, error) { return WorktreeAddExisting("/r", "/p", v) },
		"CheckRefFormatBranch.name":  func(v string) (Cmd, error) { return CheckRefFormatBranch("/r", v) },
		"RevParseCommit.ref":         func(v string) (Cmd, error) { return RevParseCommit("/r", v) },
		"ConfigGet.key":              func(v string) (Cmd, error) { return ConfigGet("/r", v) },
		"LocalBranchExists.branch":   func(v string) (Cmd, error) { return LocalBranchExists("/r", v) },
		"BranchDelete.branch":        func(v string) (Cmd, error) { return BranchDelete("/r", v, true) },
		"IsAncestor.ancestor":        func(v string) (Cmd, error) { return IsAncestor("/r", v, "main") },
		"IsAncestor.descendant":      func(v string) (Cmd, error) { return IsAncestor("/r", "main", v) },
		"UniqueCommitCount.branch":   func(v string) (Cmd, error) { return UniqueCommitCount("/r", v) },
	}
	branches := []string{"WorktreeAddNew.branch", "WorktreeAddExisting.branch", "LocalBranchExists.branch",
		"BranchDelete.branch", "UniqueCommitCount.branch"}

	reject := func(t *testing.T, set map[string]builder, names []string, bad []string) {
		t.Helper()
		for _, name := range names {
			for _, v := range bad {
				c, err := set[name](v)
				var be *BuildError
				if !errors.As(err, &be) {
					t.Errorf("%s(%q) = %q, %v; want *BuildError", name, v, c.Argv(), err)
					continue
				}
				if be.Action == "" || be.Reason == "" || strings.ContainsAny(err.Error(), "\x00\n\r") {
					t.Errorf("%s(%q): unhelpful or unsafe error %q", name, v, err)
				}
			}
		}
	}
	keys := func(m map[string]builder) (out []string) {
		for k := range m {
			out = append(out, k)
		}
		return out
	}
	t.Run("paths", func(t *testing.T) {
		reject(t, paths, keys(paths), []string{"", "relative/p", "./p", "-p", "/a\x00b", "/a/../b", "/a/", "/a//b"})
	})
	t.Run("refs", func(t *testing.T) {
		reject(t, refs, keys(refs), []string{"", "-x", "--force", "a\x00b", "a\nb", "a\tb", "a\x1bb", "a\x7fb",
			"\u202eevil", "a\u200eb"})
	})
	t.Run("branches", func(t *testing.T) {
		reject(t, refs, branches, []string{"a b", "a..b", "a~1", "a^", "a:b", "a?", "a*", "a[b", `a\b`,
			"a@{1}", "a.", "a/", "/a", "a//b", ".a", "a/.b", "a.lock", "a.lock/b"})
	})
	t.Run("base oid", func(t *testing.T) {
		for _, v := range []string{"main", oid[:12], strings.ToUpper(oid), "-" + oid[1:], oid + "\n"} {
			if _, err := WorktreeAddNew("/r", "/p", "b", v); err == nil {
				t.Errorf("base %q accepted", v)
			}
		}
	})
	t.Run("config key", func(t *testing.T) {
		for _, v := range []string{"nodot", ".name", "section."} {
			if _, err := ConfigGet("/r", v); err == nil {
				t.Errorf("key %q accepted", v)
			}
		}
	})
}

// TestCheckBranchAgreesWithGit: checkBranch must never refuse a name git
// accepts as a branch (core would be unable to use it), and should refuse
// what git refuses.
func TestCheckBranchAgreesWithGit(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	names := []string{"main", "feat/x", "a-b_c.d", "ünï/cødé", "a@b", "@", "x.lock.y", "v1.0", "a/b/c",
		"a b", "a..b", "a~1", "a^", "a:b", "a?", "a*", "a[b", `a\b`, "a@{1}", "a.", "a/", "/a", "a//b",
		".a", "a/.b", "a.lock", "a.lock/b"}
	for _, n := range names {
		cmd := exec.Command("git", "check-ref-format", "refs/heads/"+n)
		cmd.Env = s.env
		gitOK := cmd.Run() == nil
		ours := checkBranch("branch", n) == ""
		if gitOK != ours {
			t.Errorf("%q: git accepts=%v, checkBranch accepts=%v", n, gitOK, ours)
		}
	}
}

func TestCmdString(t *testing.T) {
	t.Parallel()
	c, err := WorktreeAddNew("/src/my app", "/src/it's\nhere", "feat/x", oid)
	if err != nil {
		t.Fatal(err)
	}
	want := `git -C '/src/my app' worktree add -b feat/x -- $'/src/it\'s\nhere' ` + oid
	if got := c.String(); got != want {
		t.Fatalf("String()\n got %s\nwant %s", got, want)
	}
	c, _ = RevParseCommit("/r", "main")
	if got := c.String(); got != `git -C /r rev-parse --verify --end-of-options 'main^{commit}'` {
		t.Fatalf("String() = %s", got)
	}
}

// TestCmdStringRoundTrip checks with a real shell that String() parses back
// into exactly Argv().
func TestCmdStringRoundTrip(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	c, err := WorktreeAddNew("/src/a b/it's\n\t$x\u202e\xff`y`", "/p/\"q\"", "feat/x", oid)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bash, "-c", `for a in `+c.String()+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !reflect.DeepEqual(got, c.Argv()) {
		t.Fatalf("shell parsed\n%q\nwant\n%q", got, c.Argv())
	}
}
