package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
)

func TestRenderListEscapesAndColours(t *testing.T) {
	reason := "agent\x1b[2J"
	ws := "wG"
	l := &core.Listing{Worktrees: []core.Worktree{
		{Branch: "main", Path: "/home/u/src/app", Main: true, Current: true, Head: "0123456789abcdef"},
		{Path: "/home/u/evil\x1b]0;pwned\x07\u202e", Detached: true, Head: "fedcba9876543210", Locked: &reason, WorkspaceID: &ws,
			Status: &core.Status{Error: "boom"}},
	}}
	var plain bytes.Buffer
	if err := renderList(&plain, l, "/home/u", false); err != nil {
		t.Fatal(err)
	}
	want := "* main                ~/src/app                     main\n" +
		"  (detached fedcba9)  ~/evil\\x1b]0;pwned\\x07\\u202e  locked: agent\\x1b[2J workspace wG status unknown: boom\n"
	if plain.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", plain.String(), want)
	}
	var colour bytes.Buffer
	renderList(&colour, l, "/home/u", true)
	if !strings.Contains(colour.String(), ansiBold+ansiGreen) || strings.Contains(colour.String(), "\x1b]") {
		t.Fatalf("colour output: %q", colour.String())
	}
}

func TestSplitTarget(t *testing.T) {
	for _, tc := range []struct {
		in     string
		isPath bool
	}{
		{"/abs/x", true}, {"./x", true}, {"../x", true}, {".", true}, {"~/x", true},
		{"feat/x", false}, {"x", false}, {"-x", false}, {"@{-1}", false},
	} {
		p, b := splitTarget(tc.in)
		if (p != nil) != tc.isPath || (b != nil) == tc.isPath {
			t.Errorf("%q: path=%v branch=%v", tc.in, p, b)
		}
	}
}
