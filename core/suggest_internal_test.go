package core

import (
	"slices"
	"testing"

	"github.com/copse-dev/copse/gitx"
)

func TestCloseBranches(t *testing.T) {
	t.Parallel()
	trees := []gitx.Worktree{{Path: "/r"}, {Branch: "main"}, {Branch: "feat/login"}, {Branch: "feat/logout"}, {Branch: "task-2"}, {Branch: "task-3"}}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"feat/logn", []string{"feat/login"}},          // one letter dropped
		{"Feat/Login", []string{"feat/login"}},         // case alone
		{"feat/lgoin", []string{"feat/login"}},         // swapped letters are one edit
		{"task-4", []string{"task-2", "task-3"}},       // ties, in name order
		{"mian", []string{"main"}},                     // so is a short name's swap (4 runes allow one edit)
		{"mane", nil},                                  // two edits is too many for 4 runes
		{"release/2.0", nil},                           // far from everything
		{"fix", nil},                                   // "fix" is 3 edits from "main"
		{"login", []string{"feat/login"}},              // the last part of a branch
		{"LOG", []string{"feat/login", "feat/logout"}}, // a piece of several, in name order
		{"ask", []string{"task-2", "task-3"}},          // a piece, not a last part
		{"k", nil},                                     // one rune is a piece of too much
	} {
		if got := closeBranches(tc.name, trees); !slices.Equal(got, tc.want) {
			t.Errorf("closeBranches(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"kitten", "sitting", 3}, {"ab", "ba", 1}, {"", "abc", 3}, {"héllo", "hello", 1}} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

func TestCloseNames(t *testing.T) {
	t.Parallel()
	flags := []string{"status", "json", "no-color", "dir", "watch"}
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"statu", []string{"status"}},  // a prefix
		{"stauts", []string{"status"}}, // swapped letters
		{"jsn", []string{"json"}},      // one dropped
		{"st", []string{"status"}},     // a short prefix still
		{"s", nil},                     // one rune is no prefix, and 5 edits from status
		{"zzzzzzzz", nil},
		{"status", nil}, // the name itself is no suggestion
	} {
		if got := CloseNames(tc.typed, flags); !slices.Equal(got, tc.want) {
			t.Errorf("CloseNames(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}
