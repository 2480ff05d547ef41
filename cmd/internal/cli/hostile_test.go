package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// hostileRepo is a repository with one linked worktree (feat/x at Base/x) and a symlink
// Base/link pointing at it.
func hostileRepo(t *testing.T) (*coretest.Repo, string) {
	t.Helper()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/x", "x")
	if err := os.Symlink(wt, filepath.Join(r.Base, "link")); err != nil {
		t.Fatal(err)
	}
	return r, wt
}

type hostileCase struct {
	name     string
	args     []string
	code     int
	mentions []string
	raw      string // must not appear raw in the output (control characters, marks)
}

func runHostile(t *testing.T, r *coretest.Repo, cases []hostileCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each refused: none changes anything
			before := r.Snapshot()
			res := run(t, r, r.Root, tc.args...)
			want(t, res, tc.code, tc.mentions...)
			if tc.raw == "\n" {
				// A newline may not break the message: one line of message, one of hint.
				if n := strings.Count(res.stderr, "\n"); n != 2 {
					t.Fatalf("a value with a newline broke the message into %d lines:\n%s", n, res)
				}
			} else if tc.raw != "" && strings.Contains(res.stdout+res.stderr, tc.raw) {
				t.Fatalf("output shows %q raw:\n%s", tc.raw, res)
			}
			if res.code != 0 && strings.Count(res.stderr, "\n") > 4 {
				t.Fatalf("a refusal is a message and a hint, not a page:\n%s", res)
			}
			r.Unchanged(before)
		})
	}
}

func TestHostileControlCharacters(t *testing.T) {
	t.Parallel()
	r, wt := hostileRepo(t)
	var cases []hostileCase
	// NUL cannot travel in argv; it is tested through copse tool below.
	for _, c := range []struct{ name, ch string }{
		{"newline", "\n"}, {"ESC", "\x1b"}, {"tab", "\t"}, {"CR", "\r"}, {"SOH", "\x01"},
		{"BEL", "\x07"}, {"DEL", "\x7f"}, {"C1 NEL", "\u0085"}, {"C1 CSI", "\u009b"},
	} {
		v := "a" + c.ch + "b"
		cases = append(cases,
			hostileCase{"branch " + c.name, []string{"create", v}, 2, []string{"control character", "branch"}, c.ch},
			hostileCase{"base " + c.name, []string{"create", "ok", "--base", "main" + c.ch}, 2, []string{"control character", "base"}, c.ch},
			hostileCase{"path " + c.name, []string{"create", "ok", "--yes", "--path", r.Base + "/n" + c.ch}, 2, []string{"control character", "path"}, c.ch},
			hostileCase{"label " + c.name, []string{"create", "ok", "--label", v}, 2, []string{"control character", "label"}, c.ch},
			hostileCase{"switch " + c.name, []string{"switch", v}, 2, []string{"control character"}, c.ch},
			hostileCase{"open " + c.name, []string{"open", "--path", wt + c.ch}, 2, []string{"control character"}, c.ch},
			hostileCase{"remove " + c.name, []string{"remove", "--yes", v}, 2, []string{"control character"}, c.ch},
		)
	}
	// An escape sequence that would recolour or clear the terminal is shown escaped.
	cases = append(cases, hostileCase{"escape sequence", []string{"create", "a\x1b[2J\x1b[31mred"}, 2, []string{`\x1b[2J`}, "\x1b["})
	runHostile(t, r, cases)
}

func TestHostileBidiMarks(t *testing.T) {
	t.Parallel()
	r, _ := hostileRepo(t)
	var cases []hostileCase
	for _, m := range []rune{0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069} {
		mark := string(m)
		name := "U+" + hex4(m)
		cases = append(cases,
			hostileCase{"branch " + name, []string{"create", "a" + mark + "b"}, 2, []string{"bidirectional mark", "branch"}, mark},
			hostileCase{"label " + name, []string{"create", "ok", "--label", "x" + mark}, 2, []string{"bidirectional mark", "label"}, mark},
			hostileCase{"path " + name, []string{"create", "ok", "--yes", "--path", r.Base + "/n" + mark}, 2, []string{"bidirectional mark", "path"}, mark},
			hostileCase{"switch " + name, []string{"switch", "feat/x" + mark}, 2, []string{"bidirectional mark"}, mark},
		)
	}
	runHostile(t, r, cases)
}

func hex4(r rune) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[r>>12&15], digits[r>>8&15], digits[r>>4&15], digits[r&15]})
}

func TestHostileLeadingDash(t *testing.T) {
	t.Parallel()
	r, wt := hostileRepo(t)
	dash := "starts with '-'"
	runHostile(t, r, []hostileCase{
		{"branch", []string{"create", "--", "-x"}, 2, []string{dash, "branch"}, ""},
		{"branch --branch=x", []string{"create", "--", "--branch=x"}, 2, []string{dash, "branch"}, ""},
		{"base", []string{"create", "ok", "--base", "-main"}, 2, []string{dash, "base"}, ""},
		{"base --branch=x", []string{"create", "ok", "--base", "--branch=x"}, 2, []string{dash, "base"}, ""},
		{"base = form", []string{"create", "ok", "--base=--upload-pack=x"}, 2, []string{dash, "base"}, ""},
		{"path", []string{"create", "ok", "--yes", "--path", "-/x"}, 2, []string{dash, "path"}, ""},
		{"path --branch=x", []string{"create", "ok", "--yes", "--path", "--branch=x"}, 2, []string{dash, "path"}, ""},
		{"label", []string{"create", "ok", "--label", "-l"}, 2, []string{dash, "label"}, ""},
		{"label --branch=x", []string{"create", "ok", "--label=--branch=x"}, 2, []string{dash, "label"}, ""},
		{"switch target", []string{"switch", "--", "-x"}, 2, []string{dash}, ""},
		{"switch --branch=x", []string{"switch", "--", "--branch=x"}, 2, []string{dash}, ""},
		{"open branch", []string{"open", "--branch", "-x"}, 2, []string{dash}, ""},
		{"open path --branch=x", []string{"open", "--path", "--branch=" + wt}, 2, []string{dash}, ""},
		{"remove target", []string{"remove", "--yes", "--", "-x"}, 2, []string{dash}, ""},
		{"remove --force=x", []string{"remove", "--yes", "--", "--force"}, 2, []string{dash}, ""},
		{"remove workspace", []string{"remove", "--yes", "--workspace", "-w"}, 2, []string{dash}, ""},
		{"-C", []string{"-C", "-x", "list"}, 2, []string{"-x"}, ""},
	})
}

func TestHostilePathsAndNames(t *testing.T) {
	t.Parallel()
	r, wt := hostileRepo(t)
	r.Git(r.Root, "branch", "other")
	occupied := filepath.Join(r.Base, "occupied")
	coretest.WriteFile(t, filepath.Join(occupied, "f"), "x")
	runHostile(t, r, []hostileCase{
		{"relative --path", []string{"create", "ok", "--yes", "--path", "rel/x"}, 2, []string{"not absolute"}, ""},
		{"dot-relative --path", []string{"create", "ok", "--yes", "--path", "./x"}, 2, []string{"not absolute"}, ""},
		{"relative open --path", []string{"open", "--path", "x"}, 2, []string{"not absolute"}, ""},
		{"relative switch target", []string{"switch", "../x"}, 2, []string{"not absolute"}, ""},
		{"relative remove target", []string{"remove", "--yes", "./x"}, 2, []string{"not absolute"}, ""},
		{"tilde switch target", []string{"switch", "~/x"}, 2, []string{"not absolute"}, ""},
		{"dot-dot --path", []string{"create", "ok", "--yes", "--path", r.Base + "/a/../b"}, 2, []string{`".." segment`}, ""},
		{"dot-dot switch", []string{"switch", wt + "/../x"}, 2, []string{`".." segment`}, ""},
		{"dot-dot remove", []string{"remove", "--yes", wt + "/.."}, 2, []string{`".." segment`}, ""},
		{"unclean --path", []string{"create", "ok", "--yes", "--path", r.Base + "//b/"}, 2, []string{"not a clean path"}, ""},
		{"256-character branch", []string{"create", strings.Repeat("b", 256)}, 2, []string{"256 characters", "limit 255"}, ""},
		{"empty branch", []string{"create", ""}, 2, []string{"branch is empty"}, ""},
		{"empty base", []string{"create", "ok", "--base", ""}, 2, []string{"base is empty"}, ""},
		{"empty path", []string{"create", "ok", "--path="}, 2, []string{"path is empty"}, ""},
		{"untrimmed branch", []string{"create", " x"}, 2, []string{"white space"}, ""},
		{"unknown base", []string{"create", "ok", "--base", "nope"}, 2, []string{`base "nope" does not name a commit`}, ""},
		{"base with existing branch", []string{"create", "other", "--base", "main"}, 2, []string{"already exists"}, ""},
		{"label too long", []string{"create", "ok", "--label", strings.Repeat("l", 121)}, 2, []string{"limit 120"}, ""},
		{"workspace id under git", []string{"remove", "--yes", "--workspace", "wG"}, 2, []string{"only inside Herdr"}, ""},
		{"open with path and branch", []string{"open", "--path", wt, "--branch", "feat/x"}, 2, []string{"exactly one"}, ""},
		{"open with neither", []string{"open"}, 2, []string{"exactly one"}, ""},
		{"unknown backend", []string{"--backend", "svn", "list"}, 2, []string{`unknown backend "svn"`}, ""},
		{"herdr backend outside Herdr", []string{"--backend", "herdr", "list"}, 2, []string{"Herdr"}, ""},
		{"-C not a repository", []string{"-C", r.Home, "list"}, 2, []string{"not inside a git repository"}, ""},
		// A path inside the git directory or inside any worktree (also through a symlink)
		// can never be right, whatever the state: bad input, exit 2.
		{"path inside .git", []string{"create", "n1", "--yes", "--path", filepath.Join(r.Root, ".git", "wt")}, 2, []string{".git", "lies inside the git directory"}, ""},
		{"path inside a worktree through a symlink", []string{"create", "n2", "--yes", "--path", filepath.Join(r.Base, "link", "deeper")}, 2, []string{"lies inside the worktree " + wt}, ""},
		{"path inside the main checkout", []string{"create", "n3", "--yes", "--path", filepath.Join(r.Root, "nested")}, 2, []string{"lies inside the worktree " + r.Root}, ""},
	})
	var invalid []hostileCase
	for _, b := range []string{"a..b", "x.lock", "a b", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", "a/", "/a", "a//b", `a\b`, "HEAD", ".a", "a/.b", "a@{b", "@{-9}"} {
		invalid = append(invalid, hostileCase{"invalid ref " + b, []string{"create", b}, 2, []string{"not a valid branch name"}, ""})
	}
	runHostile(t, r, invalid)
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	r, wt := hostileRepo(t)
	runHostile(t, r, []hostileCase{
		{"unknown flag", []string{"create", "ok", "--bogus"}, 2, []string{"unknown flag: --bogus", "copse create --help"}, ""},
		{"unknown shorthand", []string{"create", "ok", "-Z"}, 2, []string{"unknown shorthand flag: 'Z'"}, ""},
		{"unknown flag before command", []string{"--nope", "list"}, 2, []string{"unknown flag: --nope"}, ""},
		{"misspelt flag", []string{"remove", "feat/x", "--forse", "--yes"}, 2, []string{"unknown flag: --forse"}, ""},
		{"flag value missing", []string{"create", "ok", "--base"}, 2, []string{"flag needs an argument: --base"}, ""},
		{"bool flag with value", []string{"remove", "feat/x", "--yes=maybe"}, 2, []string{"invalid argument"}, ""},
		{"missing branch", []string{"create"}, 2, []string{"copse create needs a BRANCH"}, ""},
		{"extra argument", []string{"create", "a", "b"}, 2, []string{"extra", `"b"`}, ""},
		{"extra argument with a newline", []string{"create", "a", "b\nc"}, 2, []string{`extra: "b\nc"`}, "\n"},
		{"missing switch target", []string{"switch"}, 2, []string{"needs a TARGET"}, ""},
		{"missing remove target", []string{"remove", "--yes"}, 2, []string{"needs a TARGET"}, ""},
		{"target and workspace", []string{"remove", "--yes", "feat/x", "--workspace", "wG"}, 2, []string{"not both"}, ""},
		{"list takes no argument", []string{"list", wt}, 2, []string{"takes no arguments"}, ""},
		{"unknown command", []string{"destroy", "feat/x"}, 2, []string{`unknown command "destroy"`}, ""},
		{"unknown command close to one", []string{"remve", "feat/x"}, 2, []string{"did you mean remove?"}, ""},
		{"unknown shell", []string{"init", "tcsh"}, 2, []string{"no shell integration for tcsh"}, ""},
		{"no shell", []string{"init"}, 2, []string{"needs a shell"}, ""},
	})
}

func TestUsageErrorJSON(t *testing.T) {
	t.Parallel()
	r, _ := hostileRepo(t)
	before := r.Snapshot()
	for _, args := range [][]string{
		{"--json", "create", "ok", "--bogus"},
		{"create", "ok", "--bogus", "--json"},
		{"--json", "create", "--", "-x"},
	} {
		res := run(t, r, r.Root, args...)
		want(t, res, 2)
		e := decodeError(t, res)
		if e.Code == "" || e.Message == "" || e.Hint == "" {
			t.Fatalf("incomplete error: %+v\n%s", e, res)
		}
		if res.stderr != "" {
			t.Fatalf("--json errors go to stdout only:\n%s", res)
		}
	}
	r.Unchanged(before)
}

func TestAtMinusOneNamesTheBranch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "checkout", "-q", "-b", "topic")
	r.Git(r.Root, "checkout", "-q", "main")
	res := run(t, r, r.Root, "create", "@{-1}")
	want(t, res, 0, "created topic at ")
	if got := r.Git(filepath.Join(r.Base, "app.worktrees", "topic"), "branch", "--show-current"); got != "topic" {
		t.Fatalf("worktree on %q", got)
	}
}

// NUL cannot be passed in argv; the same parser refuses it through copse tool's JSON.
func TestNULThroughTool(t *testing.T) {
	t.Parallel()
	r, _ := hostileRepo(t)
	before := r.Snapshot()
	for _, req := range []string{
		`{"operation":"create","branch":"a\u0000b"}`,
		`{"operation":"create","branch":"ok","label":"x\u0000"}`,
		`{"operation":"switch","path":"/tmp/x\u0000y"}`,
	} {
		res := runWith(t, r, r.Root, nil, strings.NewReader(req), "tool")
		want(t, res, 2, "control character", `\x00`)
	}
	r.Unchanged(before)
}
