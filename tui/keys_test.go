package tui

import (
	"flag"
	"os"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// TestKeysDoc keeps tui/KEYS.md generated from DefaultKeyMap, so the documented keys are
// the bound ones. Regenerate with: go test ./tui -run TestKeysDoc -update
func TestKeysDoc(t *testing.T) {
	t.Parallel()
	k := DefaultKeyMap()
	sections := []struct {
		name  string
		binds []key.Binding
		notes map[string]string
	}{
		{"List", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}, nil},
		{"List", []key.Binding{k.Switch, k.Open, k.New, k.Remove, k.ForceRemove, k.Claim, k.Release, k.Force, k.Prune, k.Land, k.Back, k.Filter, k.Refresh, k.Help, k.Quit, k.ForceQuit},
			map[string]string{
				"enter": "in `copse pick`: select the row and print its path",
				"o":     "only inside Herdr or tmux (hidden with the git backend)",
				"d":     "hidden on the main checkout",
				"D":     "asks twice; hidden on the main checkout",
				"c":     "for the picker's session: $COPSE_SESSION, else the Herdr workspace, else asks for one (kept until the picker ends); hidden on the main checkout",
				"C":     "only the session that holds the claim; shown on claimed or locked rows",
				"F":     "only after a claim, release or land refused for a reason force gets past (the status line says so): takes a claim over, releases anyway, or restarts a land (forced claims, releases and takeovers ask first)",
				"P":     "a preview of what goes and what stays (and why); asks before anything is removed",
				"L":     "lands the selected worktree: a form with target and test command, then progress with phase and elapsed time; hidden on the main checkout and detached rows",
				"-":     "shown once there is a worktree to go back to; not in `copse pick`",
				"esc":   "one thing, the innermost: closes the full help, else clears an applied filter, else quits",
			}},
		{"List", []key.Binding{k.Sort, k.NextNeedsYou, k.Preview, k.Edit, k.Shell, k.Copy},
			map[string]string{
				"a": "to the next row whose agent needs you (blocked on a permission prompt or a question), cycling; the status line says when none does",
				"s": "name (main first), recent activity, path, needs you first (an agent waiting for input); remembered in git config copse.sort",
				"p": "changed files, last commits, diffstat against the merge-base with the main branch",
				"e": "$VISUAL, else $EDITOR, in the worktree; the picker comes back when it ends",
				"!": "$SHELL in the worktree; exit it to come back",
				"y": "OSC 52: works over ssh and in tmux with set-clipboard on",
			}},
		{"Filter (after /)", []key.Binding{k.FilterUp, k.FilterDown, k.Switch, k.FilterAccept, k.FilterClear},
			map[string]string{
				"enter": "acts on the best match; the filter stays applied",
				"tab":   "back to the list with the filter applied: d, D, o act on the matches; esc clears it",
				"esc":   "in `copse pick`, where typing filters from the start: with nothing typed, quits",
			}},
		{"Create form (after n)", []key.Binding{k.NextField, k.PrevField, k.Submit, k.ToggleFocus, k.CancelForm},
			map[string]string{"tab": "in base: completes a local branch name first",
				"space": "the toggles: switch after create (on), run setup (on, when git config copse.copy/copse.setup is set), focus (Herdr)"}},
		{"Session prompt (c or C, no session known)", []key.Binding{k.SubmitSession, k.CancelForm},
			map[string]string{"enter": "claims or releases in that session's name; a refused id keeps the prompt open with the reason",
				"esc": "cancels: nothing changed"}},
		{"Confirmation", []key.Binding{k.Yes, k.No, k.DeleteBranch},
			map[string]string{"y": "enter alone does not confirm; default is no",
				"b": "remove dialog: off by default; the dialog then states what the branch holds"}},
		{"Setup log, preview", []key.Binding{k.ScrollUp, k.ScrollDown, k.ClosePanel},
			map[string]string{"esc": "the setup log closes once the setup ended; ctrl+c cancels a running step"}},
		{"While an operation runs", []key.Binding{k.CancelOp},
			map[string]string{"ctrl+c": "cancels the operation, not the picker; the status line says what state remains. A second ctrl+c ends copse (exit 130) and prints the state left"}},
	}
	var b strings.Builder
	b.WriteString("# copse picker keys\n\n")
	b.WriteString("Generated from `tui.DefaultKeyMap` by `go test ./tui -run TestKeysDoc -update`; the help line\n")
	b.WriteString("(`?` for all of it) is generated from the same bindings.\n\n")
	b.WriteString("| where | keys | does | note |\n| --- | --- | --- | --- |\n")
	for _, s := range sections {
		for _, kb := range s.binds {
			keys := make([]string, 0, len(kb.Keys()))
			note := ""
			for _, k := range kb.Keys() {
				keys = append(keys, "`"+k+"`")
				if n, ok := s.notes[k]; ok && note == "" {
					note = n
				}
			}
			b.WriteString("| " + s.name + " | " + strings.Join(keys, " ") + " | " + kb.Help().Desc + " | " + note + " |\n")
		}
	}
	b.WriteString("| Mouse | wheel | scroll | |\n| Mouse | click | select the row (enter acts on it) | |\n")
	got := b.String()
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile("KEYS.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("KEYS.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("KEYS.md is stale; run go test ./tui -run TestKeysDoc -update\n%s", got)
	}
}
