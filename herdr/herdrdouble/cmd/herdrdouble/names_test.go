package main

import (
	"regexp"
	"testing"
	"time"
)

// Examples from upstream's tests (protocol reference §6).
func TestPathSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"worktree/brave-river":      "worktree-brave-river",
		"issue/137 Worktree Spaces": "issue-137-worktree-spaces",
		"///":                       "worktree",
		"feat/login":                "feat-login",
	} {
		if got := pathSlug(in); got != want {
			t.Errorf("pathSlug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGeneratedBranch(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^worktree/(brave|calm|clear|green|lucky|quiet|rapid|silver)-(river|cloud|field|forest|harbor|meadow|stone|valley)-[0-9a-f]{4}$`)
	if b := generatedBranch(time.Now()); !re.MatchString(b) {
		t.Fatalf("generatedBranch = %q", b)
	}
}
