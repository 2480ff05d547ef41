package herdr

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/copse-dev/copse/internal/textsafe"
)

func opt(name, value string) Option { return Option{Name: name, Value: value} }
func flag(name string) Option       { return Option{Name: name, Flag: true} }

var (
	cwd     = opt("cwd", "/src/app")
	noFocus = flag("no-focus")
)

func TestBuildRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		action string
		opts   []Option
		want   string // part of the message
	}{
		{"unknown action", "delete", []Option{cwd}, "unknown action"},
		{"empty action", "", nil, "unknown action"},
		{"action case", "List", []Option{cwd}, "unknown action"},
		{"list unknown option", "list", []Option{cwd, opt("branch", "x")}, "unknown option"},
		{"list focus", "list", []Option{cwd, flag("focus")}, "unknown option"},
		{"create unknown option", "create", []Option{cwd, opt("branch", "x"), noFocus, flag("force")}, "unknown option"},
		{"create env", "create", []Option{cwd, opt("branch", "x"), noFocus, opt("env", "A=B")}, "unknown option"},
		{"create trust-repository", "create", []Option{cwd, opt("branch", "x"), noFocus, flag("trust-repository")}, "unknown option"},
		{"open base", "open", []Option{cwd, opt("branch", "x"), noFocus, opt("base", "main")}, "unknown option"},
		{"remove cwd", "remove", []Option{opt("workspace", "wG"), cwd}, "unknown option"},
		{"remove label", "remove", []Option{opt("workspace", "wG"), opt("label", "x")}, "unknown option"},
		{"json list", "list", []Option{cwd, flag("json")}, "never passed"},
		{"json dashed", "create", []Option{cwd, opt("branch", "x"), noFocus, flag("--json")}, "never passed"},
		{"flag=value", "create", []Option{cwd, opt("branch=x", ""), noFocus}, "never --flag=value"},
		{"dashed flag=value", "list", []Option{opt("--cwd=/src/app", "")}, "never --flag=value"},
		{"duplicate cwd", "list", []Option{cwd, cwd}, "given twice"},
		{"duplicate cwd spelled twice", "list", []Option{cwd, opt("--cwd", "/src/other")}, "given twice"},
		{"duplicate branch", "create", []Option{cwd, opt("branch", "a"), opt("branch", "b"), noFocus}, "given twice"},
		{"duplicate no-focus", "create", []Option{cwd, opt("branch", "a"), noFocus, noFocus}, "given twice"},
		{"duplicate force", "remove", []Option{opt("workspace", "wG"), flag("force"), flag("force")}, "given twice"},
		{"cwd and workspace list", "list", []Option{cwd, opt("workspace", "wG")}, "exclude each other"},
		{"cwd and workspace create", "create", []Option{cwd, opt("workspace", "wG"), opt("branch", "x"), noFocus}, "exclude each other"},
		{"focus and no-focus create", "create", []Option{cwd, opt("branch", "x"), flag("focus"), noFocus}, "exclude each other"},
		{"focus and no-focus open", "open", []Option{cwd, opt("branch", "x"), noFocus, flag("focus")}, "exclude each other"},
		{"list without cwd", "list", nil, "--cwd"},
		{"list with workspace only", "list", []Option{opt("workspace", "wG")}, "--cwd"},
		{"create without cwd", "create", []Option{opt("branch", "x"), noFocus}, "--cwd"},
		{"open without cwd", "open", []Option{opt("branch", "x"), noFocus}, "--cwd"},
		{"create without focus choice", "create", []Option{cwd, opt("branch", "x")}, "--focus or --no-focus"},
		{"open without focus choice", "open", []Option{cwd, opt("branch", "x")}, "--focus or --no-focus"},
		{"open with path and branch", "open", []Option{cwd, opt("path", "/src/x"), opt("branch", "x"), noFocus}, "exactly one"},
		{"open with neither", "open", []Option{cwd, noFocus}, "exactly one"},
		{"remove without workspace", "remove", nil, "needs --workspace"},
		{"remove force only", "remove", []Option{flag("force")}, "needs --workspace"},
		{"flag with value", "create", []Option{cwd, opt("branch", "x"), {Name: "no-focus", Value: "yes", Flag: true}}, "takes no value"},
		{"flag without Flag", "create", []Option{cwd, opt("branch", "x"), opt("no-focus", "")}, "takes no value"},
		{"value option as flag", "create", []Option{cwd, flag("branch"), noFocus}, "needs a value"},
		{"empty value", "create", []Option{cwd, opt("branch", ""), noFocus}, "is empty"},
		{"newline", "create", []Option{cwd, opt("branch", "feat\nx"), noFocus}, "control character"},
		{"carriage return in label", "create", []Option{cwd, opt("branch", "x"), opt("label", "a\rb"), noFocus}, "control character"},
		{"ESC", "create", []Option{cwd, opt("branch", "x"), opt("label", "\x1b[31mred"), noFocus}, "control character"},
		{"NUL", "list", []Option{opt("cwd", "/src/a\x00b")}, "control character"},
		{"DEL", "create", []Option{cwd, opt("branch", "x\x7f"), noFocus}, "control character"},
		{"C1", "create", []Option{cwd, opt("branch", "x\u0085"), noFocus}, "control character"},
		{"U+061C", "create", []Option{cwd, opt("branch", "a\u061Cb"), noFocus}, "bidirectional"},
		{"U+200E", "create", []Option{cwd, opt("label", "a\u200Eb"), opt("branch", "x"), noFocus}, "bidirectional"},
		{"U+200F", "open", []Option{cwd, opt("branch", "a\u200Fb"), noFocus}, "bidirectional"},
		{"U+202A", "create", []Option{cwd, opt("branch", "x"), opt("base", "a\u202Ab"), noFocus}, "bidirectional"},
		{"U+202E", "create", []Option{cwd, opt("branch", "x"), opt("path", "/src/\u202Egpj.exe"), noFocus}, "bidirectional"},
		{"U+2066", "list", []Option{opt("cwd", "/src/\u2066app")}, "bidirectional"},
		{"U+2069", "remove", []Option{opt("workspace", "wG\u2069")}, "bidirectional"},
		{"line separator", "create", []Option{cwd, opt("label", "a\u2028b"), opt("branch", "x"), noFocus}, "invisible separator"},
		{"leading dash branch", "create", []Option{cwd, opt("branch", "-b"), noFocus}, "starts with '-'"},
		{"leading dash base", "create", []Option{cwd, opt("branch", "x"), opt("base", "--orphan"), noFocus}, "starts with '-'"},
		{"leading dash label", "open", []Option{cwd, opt("branch", "x"), opt("label", "-x"), noFocus}, "starts with '-'"},
		{"leading dash workspace", "remove", []Option{opt("workspace", "-w1")}, "starts with '-'"},
		{"untrimmed", "create", []Option{cwd, opt("branch", " feat"), noFocus}, "white space"},
		{"invalid UTF-8", "create", []Option{cwd, opt("label", "a\xffb"), opt("branch", "x"), noFocus}, "UTF-8"},
		{"relative cwd", "list", []Option{opt("cwd", "src/app")}, "absolute"},
		{"dot cwd", "list", []Option{opt("cwd", ".")}, "absolute"},
		{"home cwd", "list", []Option{opt("cwd", "~/src/app")}, "absolute"},
		{"relative path", "create", []Option{cwd, opt("branch", "x"), opt("path", "wt/x"), noFocus}, "absolute"},
		{"unclean path", "open", []Option{cwd, opt("path", "/src/app/../x"), noFocus}, "clean"},
		{"trailing slash", "list", []Option{opt("cwd", "/src/app/")}, "clean"},
		{"long label", "create", []Option{cwd, opt("branch", "x"), opt("label", strings.Repeat("é", 121)), noFocus}, "longer than 120"},
		{"long branch", "create", []Option{cwd, opt("branch", strings.Repeat("b", 256)), noFocus}, "longer than 255"},
		{"workspace number", "remove", []Option{opt("workspace", "2")}, "workspace id"},
		{"workspace bare w", "remove", []Option{opt("workspace", "w")}, "workspace id"},
		{"workspace too long", "remove", []Option{opt("workspace", "w"+strings.Repeat("1", 17))}, "workspace id"},
		{"workspace pane id", "remove", []Option{opt("workspace", "wG:p1")}, "workspace id"},
		{"workspace legacy", "remove", []Option{opt("workspace", "w_3")}, "workspace id"},
		{"workspace upper W", "remove", []Option{opt("workspace", "WG")}, "workspace id"},
		{"workspace non-ASCII", "remove", []Option{opt("workspace", "wé")}, "workspace id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd, err := Build(c.action, c.opts...)
			if err == nil {
				t.Fatalf("Build accepted %v", cmd.Argv())
			}
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("err %T %v, want *ArgError", err, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %q, want it to mention %q", err, c.want)
			}
			if cmd.Argv() != nil {
				t.Fatalf("a refused Build returned argv %q", cmd.Argv())
			}
			for _, r := range err.Error() {
				if textsafe.IsHidden(r) {
					t.Fatalf("error message carries a hidden character: %q", err)
				}
			}
		})
	}
}

func TestBuildArgv(t *testing.T) {
	t.Parallel()
	cases := []struct {
		action string
		opts   []Option
		want   []string
	}{
		{"list", []Option{cwd}, []string{"herdr", "worktree", "list", "--cwd", "/src/app"}},
		{"list", []Option{opt("--cwd", "/src/app")}, []string{"herdr", "worktree", "list", "--cwd", "/src/app"}},
		{"create", []Option{cwd, opt("branch", "feat/x"), noFocus},
			[]string{"herdr", "worktree", "create", "--cwd", "/src/app", "--branch", "feat/x", "--no-focus"}},
		// Options come out in Herdr's documented order whatever order they were given in.
		{"create", []Option{flag("focus"), opt("label", "Login work"), opt("path", "/src/app.worktrees/feat-x"), opt("base", "origin/main"), opt("branch", "feat/x"), cwd},
			[]string{"herdr", "worktree", "create", "--cwd", "/src/app", "--branch", "feat/x", "--base", "origin/main",
				"--path", "/src/app.worktrees/feat-x", "--label", "Login work", "--focus"}},
		{"open", []Option{cwd, opt("path", "/src/app.worktrees/feat-x"), noFocus},
			[]string{"herdr", "worktree", "open", "--cwd", "/src/app", "--path", "/src/app.worktrees/feat-x", "--no-focus"}},
		{"open", []Option{cwd, opt("branch", "feat/x"), opt("label", "x"), flag("focus")},
			[]string{"herdr", "worktree", "open", "--cwd", "/src/app", "--branch", "feat/x", "--label", "x", "--focus"}},
		{"remove", []Option{opt("workspace", "wG")}, []string{"herdr", "worktree", "remove", "--workspace", "wG"}},
		{"remove", []Option{flag("force"), opt("workspace", "w1A2b")}, []string{"herdr", "worktree", "remove", "--workspace", "w1A2b", "--force"}},
		// Non-ASCII is fine; it is only hidden characters that are refused.
		{"create", []Option{cwd, opt("branch", "feat/café"), opt("label", "日本 work"), noFocus},
			[]string{"herdr", "worktree", "create", "--cwd", "/src/app", "--branch", "feat/café", "--label", "日本 work", "--no-focus"}},
	}
	for _, c := range cases {
		cmd, err := Build(c.action, c.opts...)
		if err != nil {
			t.Errorf("Build(%s, %v): %v", c.action, c.opts, err)
			continue
		}
		if got := cmd.Argv(); !slices.Equal(got, c.want) {
			t.Errorf("argv = %q\nwant   %q", got, c.want)
		}
		if cmd.Action() != c.action {
			t.Errorf("Action() = %q", cmd.Action())
		}
	}
}

func TestTypedCommands(t *testing.T) {
	t.Parallel()
	check := func(cmd Cmd, err error, want ...string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if got := cmd.Argv(); !slices.Equal(got, want) {
			t.Fatalf("argv = %q\nwant   %q", got, want)
		}
	}
	cmd, err := ListCmd("/src/app")
	check(cmd, err, "herdr", "worktree", "list", "--cwd", "/src/app")
	cmd, err = CreateCmd(CreateArgs{Cwd: "/src/app", Branch: "feat/x"})
	check(cmd, err, "herdr", "worktree", "create", "--cwd", "/src/app", "--branch", "feat/x", "--no-focus")
	cmd, err = CreateCmd(CreateArgs{Cwd: "/src/app", Branch: "feat/x", Base: "abc123", Path: "/wt/x", Label: "X", Focus: true})
	check(cmd, err, "herdr", "worktree", "create", "--cwd", "/src/app", "--branch", "feat/x", "--base", "abc123", "--path", "/wt/x", "--label", "X", "--focus")
	cmd, err = OpenCmd(OpenArgs{Cwd: "/src/app", Branch: "feat/x"})
	check(cmd, err, "herdr", "worktree", "open", "--cwd", "/src/app", "--branch", "feat/x", "--no-focus")
	cmd, err = OpenCmd(OpenArgs{Cwd: "/src/app", Path: "/wt/x", Label: "X", Focus: true})
	check(cmd, err, "herdr", "worktree", "open", "--cwd", "/src/app", "--path", "/wt/x", "--label", "X", "--focus")
	cmd, err = RemoveCmd("wG", false)
	check(cmd, err, "herdr", "worktree", "remove", "--workspace", "wG")
	cmd, err = RemoveCmd("wG", true)
	check(cmd, err, "herdr", "worktree", "remove", "--workspace", "wG", "--force")

	for name, err := range map[string]error{
		"create without branch": second(CreateCmd(CreateArgs{Cwd: "/src/app"})),
		"create without cwd":    second(CreateCmd(CreateArgs{Branch: "x"})),
		"open with both":        second(OpenCmd(OpenArgs{Cwd: "/src/app", Path: "/wt/x", Branch: "x"})),
		"open with neither":     second(OpenCmd(OpenArgs{Cwd: "/src/app"})),
		"list relative":         second(ListCmd("app")),
		"remove empty":          second(RemoveCmd("", false)),
		"remove bad id":         second(RemoveCmd("1", true)),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func second(_ Cmd, err error) error { return err }

func TestCmdString(t *testing.T) {
	t.Parallel()
	cmd, err := CreateCmd(CreateArgs{Cwd: "/src/my app", Branch: "feat/x", Label: "it's", Path: "/wt/feat-x"})
	if err != nil {
		t.Fatal(err)
	}
	want := `herdr worktree create --cwd '/src/my app' --branch feat/x --path /wt/feat-x --label 'it'\''s' --no-focus`
	if got := cmd.String(); got != want {
		t.Fatalf("String() =\n%s\nwant\n%s", got, want)
	}
	if (Cmd{}).String() != "" || (Cmd{}).Argv() != nil {
		t.Fatal("zero Cmd should be empty")
	}
}

// Argv hands out a copy: a caller cannot edit a checked command afterwards.
func TestArgvIsACopy(t *testing.T) {
	t.Parallel()
	cmd, _ := ListCmd("/src/app")
	a := cmd.Argv()
	a[4] = "-x"
	if cmd.Argv()[4] != "/src/app" {
		t.Fatal("Argv exposed the command's own slice")
	}
}
