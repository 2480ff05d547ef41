package cli_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/copse-dev/copse/cmd/internal/cli"
	"github.com/copse-dev/copse/core/coretest"
)

// Hints name copse commands in backquotes (`copse list`), and every such command must
// parse: a hint that names a flag or verb copse lacks sends the user nowhere. checkHints
// runs on every result the CLI tests see, so every refusal they provoke is checked.

var (
	quotedCommand = regexp.MustCompile("`(copse [^`]*)`")
	bareCommand   = regexp.MustCompile(`\bcopse (list|create|open|switch|remove|back|init|tool|mcp|version|pick|restore|claim|release|land|prune|events|setup|completion)\b`)
)

// hintsIn finds the hints of a run: stderr's "  hint: …" lines and --json's "hint" fields.
func hintsIn(stdout, stderr string) []string {
	var hints []string
	for _, l := range strings.Split(stderr, "\n") {
		if h, ok := strings.CutPrefix(l, "  hint: "); ok {
			hints = append(hints, h)
		}
	}
	for _, l := range strings.Split(stdout, "\n") {
		var v struct {
			Error *struct {
				Hint string `json:"hint"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(l), &v) == nil && v.Error != nil && v.Error.Hint != "" {
			hints = append(hints, v.Error.Hint)
		}
	}
	return hints
}

func checkHints(t testing.TB, stdout, stderr string) {
	t.Helper()
	for _, h := range hintsIn(stdout, stderr) {
		// A usage synopsis ("usage: copse create BRANCH [--base REF]") describes a
		// command line; it is not one to run.
		if strings.HasPrefix(h, "usage: ") {
			continue
		}
		if bare := bareCommand.FindString(quotedCommand.ReplaceAllString(h, "")); bare != "" {
			t.Errorf("hint %q names %q outside backquotes", h, bare)
		}
		for _, m := range quotedCommand.FindAllStringSubmatch(h, -1) {
			words, err := shellWords(m[1])
			if err != nil {
				t.Errorf("hint %q: %v", h, err)
				continue
			}
			if err := cli.ParseCommandLine(words[1:]); err != nil {
				t.Errorf("hint %q names %q, which copse does not accept: %v", h, m[1], err)
			}
		}
	}
}

// shellWords splits a command as a POSIX shell would for the quoting gitx.ShellQuote
// produces: bare words and single-quoted strings.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, in = true, true
		case c == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quoted {
		return nil, errUnterminated
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

var errUnterminated = &json.SyntaxError{}

func TestHintCheckerCatchesBadHints(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		hint string
		ok   bool
	}{
		{"run `copse list` to see what exists", true},
		{"keep it, or remove it: `copse remove '/tmp/a b'`", true},
		{"keep it, or remove it: `copse remove --path /tmp/x`", false}, // remove takes the path as TARGET
		{"run copse list to see", false},                               // outside backquotes
		{"`copse frobnicate`", false},
	} {
		ft := &fakeT{}
		checkHints(ft, "", "copse: x\n  hint: "+tc.hint+"\n")
		if ft.failed == tc.ok {
			t.Errorf("hint %q: checker failed=%v, want ok=%v", tc.hint, ft.failed, tc.ok)
		}
	}
}

type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.failed = true }

// hintedCommand is the argv (without "copse") of the one backquoted `copse VERB …` the run's
// hints name, failing the test when there is none.
func hintedCommand(t *testing.T, res result, verb string) []string {
	t.Helper()
	for _, h := range hintsIn(res.stdout, res.stderr) {
		for _, m := range quotedCommand.FindAllStringSubmatch(h, -1) {
			if words, err := shellWords(m[1]); err == nil && len(words) > 1 && words[1] == verb {
				return words[1:]
			}
		}
	}
	t.Fatalf("no hint names `copse %s …`:\n%s", verb, res)
	return nil
}

// A claim's refusals hint a release that runs as written: it names the holder's session
// (without one, release is refused with session_required; with another, as another's
// claim). The hinted command is run, from a shell with no COPSE_SESSION, and releases.
func TestClaimHintsRunAsWritten(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/held", filepath.Join(r.Base, "app.worktrees", "two words"))
	want(t, run(t, r, r.Root, "claim", wt, "--session", "agent-7"), 0, "claimed")

	before := r.Snapshot()
	refused := run(t, r, r.Root, "--json", "remove", wt)
	want(t, refused, 1, "claimed_worktree", "agent-7")
	r.Unchanged(before)
	release := hintedCommand(t, refused, "release")
	want(t, run(t, r, r.Root, release...), 0, "released")

	want(t, run(t, r, r.Root, "claim", wt, "--session", "agent-7"), 0, "claimed")
	before = r.Snapshot()
	refused = run(t, r, r.Root, "--json", "release", wt, "--session", "agent-8")
	want(t, refused, 1, "claimed_by_other")
	r.Unchanged(before)
	release = hintedCommand(t, refused, "release")
	want(t, run(t, r, r.Root, release...), 0, "released")
}

// Removing the worktree copse runs in is refused with a switch to a real worktree (the
// main checkout), not a TARGET to fill in; the hinted switch runs from there as written.
func TestRemoveHereHintsASwitchThatRuns(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/here", filepath.Join(r.Base, "app.worktrees", "here"))
	before := r.Snapshot()
	refused := run(t, r, wt, "--json", "remove", wt)
	want(t, refused, 1, "current_worktree")
	r.Unchanged(before)
	sw := hintedCommand(t, refused, "switch")
	res := run(t, r, wt, sw...)
	want(t, res, 0)
	if res.stdout != r.Root+"\n" {
		t.Fatalf("the hinted %q went to %q, want the main checkout %s", sw, res.stdout, r.Root)
	}
}
