package tui

// The create form says what a create of the typed branch will do (new from the base,
// existing local, from a remote, ambiguous) and completes remote branches; the list shows
// a worktree mid-rebase under its branch.

import (
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
)

func checked(m Model, raw string, k core.CreateKind) branchCheckedMsg {
	return branchCheckedMsg{seq: m.form.checkSeq, raw: raw, name: k.Branch, kind: k}
}

func TestFormSaysWhatCreateWillDo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		raw, base string
		kind      core.CreateKind
		note, err string
	}{
		{"feat/new", "", core.CreateKind{Source: core.CreateNew, Branch: "feat/new"}, "new branch feat/new from the default base", ""},
		{"feat/new", "v1.0", core.CreateKind{Source: core.CreateNew, Branch: "feat/new"}, "new branch feat/new from v1.0", ""},
		{"old", "", core.CreateKind{Source: core.CreateExisting, Branch: "old"}, "existing branch old will be checked out", ""},
		{"feat/x", "", core.CreateKind{Source: core.CreateFromRemote, Branch: "feat/x", Remote: "origin/feat/x"},
			"new branch feat/x from origin/feat/x (tracking it)", ""},
		{"origin/feat/x", "", core.CreateKind{Source: core.CreateFromRemote, Branch: "feat/x", Remote: "origin/feat/x"},
			"new branch feat/x from origin/feat/x (tracking it)", ""},
		{"feat/x", "", core.CreateKind{Source: core.CreateAmbiguous, Branch: "feat/x", Remotes: []string{"origin", "upstream"}},
			"", "is on remotes origin, upstream: type one, e.g. origin/feat/x"},
	} {
		m := mixed(t, 100, 20)
		m, _ = send(t, m, press("n"))
		m = typeText(t, m, c.raw)
		if c.base != "" {
			m, _ = send(t, m, press("tab"))
			m = typeText(t, m, c.base)
		}
		m, _ = send(t, m, checked(m, c.raw, c.kind))
		if got := m.form.noteText(); got != c.note {
			t.Errorf("%s: note %q, want %q", c.raw, got, c.note)
		}
		if got := m.form.errs[fieldBranch]; (c.err == "") != (got == "") || !strings.Contains(got, c.err) {
			t.Errorf("%s: error %q, want %q", c.raw, got, c.err)
		}
	}
}

// Filling the base turns "from a remote" into "new branch": the branch is asked about again.
func TestFormRechecksWhenBaseFilled(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "feat/x")
	m, _ = send(t, m, press("tab"))
	seq := m.form.checkSeq
	m, cmd := send(t, m, press("v"))
	if m.form.checkSeq == seq || cmd == nil {
		t.Fatal("filling the base did not schedule a new check of the branch")
	}
	seq = m.form.checkSeq
	m, _ = send(t, m, press("1"))
	if m.form.checkSeq != seq {
		t.Fatal("editing a filled base re-checked the branch for nothing")
	}
}

func TestFormCompletesRemoteBranches(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"), branchesMsg{names: []string{"main", "origin/feat/remote-only"}})
	m = typeText(t, m, "orig")
	m, _ = send(t, m, press("tab"))
	if got := m.form.value(fieldBranch); got != "origin/feat/remote-only" || m.form.focus != fieldBranch {
		t.Fatalf("tab in branch gave %q (focus %d)", got, m.form.focus)
	}
	m, _ = send(t, m, press("tab"))
	if m.form.focus != fieldBase {
		t.Fatal("a second tab did not move on")
	}
	m = typeText(t, m, "origin/f")
	m, _ = send(t, m, press("tab"))
	if got := m.form.value(fieldBase); got != "origin/feat/remote-only" {
		t.Fatalf("tab in base gave %q", got)
	}
}

func TestGoldenFormFromRemote(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "origin/feat/search")
	m, _ = send(t, m, checked(m, "origin/feat/search",
		core.CreateKind{Source: core.CreateFromRemote, Branch: "feat/search", Remote: "origin/feat/search"}))
	goldenPlain(t, m)
}

func TestGoldenFormAmbiguousRemote(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "feat/search")
	m, _ = send(t, m, checked(m, "feat/search",
		core.CreateKind{Source: core.CreateAmbiguous, Branch: "feat/search", Remotes: []string{"origin", "upstream"}}))
	goldenPlain(t, m)
}

// fxRebasing is fxMixed with its rebase row as git lists it: detached, the branch read from
// the rebase state.
func fxRebasing() *core.Listing {
	l := fxMixed()
	for i := range l.Worktrees {
		if l.Worktrees[i].Branch == "feat/rebase" {
			l.Worktrees[i].Detached, l.Worktrees[i].Rebasing = true, true
		}
	}
	return l
}

func TestGoldenListRebasing(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}), fxRebasing(), fxMixedStatus())
	goldenPlain(t, m)
}

func TestRebasingRowHeldForCreate(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}), fxRebasing(), fxMixedStatus())
	// The row reads as its branch, tagged rebasing, without a second "rebase" badge.
	out := plain(m)
	if !strings.Contains(out, "feat/rebase") || !strings.Contains(out, "rebasing") || strings.Contains(out, " rebase ") {
		t.Fatalf("frame:\n%s", out)
	}
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "feat/rebase")
	m, _ = send(t, m, checked(m, "feat/rebase", core.CreateKind{Source: core.CreateExisting, Branch: "feat/rebase"}))
	if !strings.Contains(m.form.errs[fieldBranch], "already checked out at /home/dev/src/app.worktrees/feat-rebase") {
		t.Fatalf("errs %q", m.form.errs[fieldBranch])
	}
}

// The default base core reports (not this worktree's HEAD) is what the form names, with
// its commit, before the create is confirmed; a typed base replaces it.
func TestFormNamesCoreDefaultBase(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"))
	m, _ = send(t, m, formInfoMsg{base: core.CreateBase{Ref: "develop", Commit: oid('d'), Branch: "develop", From: core.BaseFromConfig},
		subject: "dev tip"})
	m = typeText(t, m, "feat/new")
	m, _ = send(t, m, checked(m, "feat/new", core.CreateKind{Source: core.CreateNew, Branch: "feat/new"}))
	if got, want := m.form.noteText(), "new branch feat/new from develop (ddddddd)"; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	if v := plain(m); !strings.Contains(v, "from develop (ddddddd), git config copse.base · dev tip") {
		t.Errorf("form does not show the default base:\n%s", v)
	}
	m, _ = send(t, m, press("tab"))
	m = typeText(t, m, "v1.0")
	m, _ = send(t, m, checked(m, "feat/new", core.CreateKind{Source: core.CreateNew, Branch: "feat/new"}))
	if got, want := m.form.noteText(), "new branch feat/new from v1.0"; got != want {
		t.Errorf("typed base: note %q, want %q", got, want)
	}
}

// A broken copse.base shows on the base field as soon as the form opens.
func TestFormShowsBadConfigBase(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"))
	m, _ = send(t, m, formInfoMsg{baseErr: &core.Error{Kind: core.KindUsage, Code: core.CodeBadBaseConfig, Field: "copse.base",
		Message: `git config copse.base is "gone", which does not name a commit`, Hint: "set a branch"}})
	if got := m.form.errs[fieldBase]; !strings.Contains(got, "copse.base") {
		t.Errorf("base field error %q", got)
	}
}
