package gitx

import (
	"context"
	"testing"
)

// FullRefName tells a local branch (however it is named) from a tag, a remote branch or a
// commit: create records only a local branch as land's default target.
func TestFullRefName(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	head := headOf(s, repo)
	s.git(repo, "switch", "-q", "-c", "feat/x")
	s.git(repo, "switch", "-q", "main")
	s.git(repo, "tag", "v1")
	r, ctx := s.runner(), context.Background()
	for ref, want := range map[string]string{
		"main": "refs/heads/main", "HEAD": "refs/heads/main", "@{-1}": "refs/heads/feat/x",
		"refs/heads/feat/x": "refs/heads/feat/x", "v1": "refs/tags/v1", head: "", "main~0": "", "no-such": "",
	} {
		if got, err := r.FullRefName(ctx, repo, ref); err != nil || got != want {
			t.Errorf("FullRefName(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
	if _, err := RevParseFullName(repo, "-x"); err == nil {
		t.Error("a ref starting with '-' was accepted")
	}
}
