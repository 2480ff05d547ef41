package herdr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/copse-dev/copse/internal/textsafe"
)

// Option is one option of a `herdr worktree` command. Name is the flag name, "cwd" or
// "--cwd"; Flag is true for the options without a value (focus, no-focus, force).
type Option struct {
	Name  string
	Value string
	Flag  bool
}

// Cmd is a checked `herdr worktree` or `herdr workspace` command. Its fields are
// unexported: Build and BuildWorkspace are the only ways to make one, so every command that
// runs has passed the checks.
type Cmd struct {
	noun   string // "worktree" or "workspace"
	action string
	argv   []string
	dir    string // working directory of the process
}

// Argv is the argument vector with the literal "herdr" at [0]; the client substitutes the
// detected binary when it runs the command.
func (c Cmd) Argv() []string { return slices.Clone(c.argv) }

// Action is "list", "create", "open" or "remove" ("" for the zero Cmd).
func (c Cmd) Action() string { return c.action }

// Noun is "worktree" or "workspace" ("" for the zero Cmd).
func (c Cmd) Noun() string { return c.noun }

// String is the command as a shell would take it, for --dry-run. Values that need it are
// single-quoted; the builder already refused anything that could not be shown safely.
func (c Cmd) String() string {
	return textsafe.ShellJoin(c.argv)
}

// ArgError is a command the builder refused; nothing was run.
type ArgError struct {
	Noun   string // "workspace" for BuildWorkspace; "" is a worktree command
	Action string // the action asked for
	Option string // the option at fault, "" when the fault is the action or a combination
	Reason string
}

func (e *ArgError) Error() string {
	noun := e.Noun
	if noun == "" {
		noun = "worktree"
	}
	s := "herdr " + noun + " " + e.Action
	if e.Option != "" {
		s += ": --" + e.Option
	}
	return s + ": " + e.Reason
}

type optSpec struct {
	name string
	kind valueKind
}

// valueKind is the kind of value an option takes; "" for a flag without value.
type valueKind string

const (
	noValue   valueKind = ""
	pathValue valueKind = "path"
	wsValue   valueKind = "workspace"
	branchVal valueKind = "branch"
	refValue  valueKind = "ref"
	labelVal  valueKind = "label"
)

// grammar lists, per action, the options Herdr 0.8.2 accepts in the order argv is
// written. --json is deliberately absent (a hidden no-op), and so is --trust-repository
// (0.9.x only; an unknown option to 0.8.2).
var grammar = map[string][]optSpec{
	"list":   {{"cwd", pathValue}, {"workspace", wsValue}},
	"create": {{"cwd", pathValue}, {"workspace", wsValue}, {"branch", branchVal}, {"base", refValue}, {"path", pathValue}, {"label", labelVal}, {"focus", noValue}, {"no-focus", noValue}},
	"open":   {{"cwd", pathValue}, {"workspace", wsValue}, {"path", pathValue}, {"branch", branchVal}, {"label", labelVal}, {"focus", noValue}, {"no-focus", noValue}},
	"remove": {{"workspace", wsValue}, {"force", noValue}},
}

// Build checks a command and returns it. Refused (as *ArgError, before any process
// starts): an unknown action or option, an option given twice, a flag given a value or a
// value option without one, --cwd with --workspace, --focus with --no-focus, open without
// exactly one of --path/--branch, remove without --workspace, and any value that fails
// its re-check. copse's own policy adds: list, create and open always carry --cwd (an
// unscoped call acts on the focused workspace, and --workspace has resolved to the wrong
// repository, Herdr #3214), and create/open always say --focus or --no-focus.
func Build(action string, opts ...Option) (Cmd, error) {
	spec, ok := grammar[action]
	if !ok {
		return Cmd{}, &ArgError{Action: action, Reason: "unknown action (want list, create, open or remove)"}
	}
	fail := func(opt, format string, args ...any) (Cmd, error) {
		return Cmd{}, &ArgError{Action: action, Option: opt, Reason: fmt.Sprintf(format, args...)}
	}
	given := map[string]Option{}
	for _, o := range opts {
		name := strings.TrimPrefix(o.Name, "--")
		i := slices.IndexFunc(spec, func(s optSpec) bool { return s.name == name })
		switch {
		case name == "json":
			return fail(name, "is never passed: herdr always prints JSON and 0.8 hides --json as a no-op")
		case strings.Contains(name, "="):
			return fail("", "option %s: herdr takes values as separate arguments, never --flag=value", quote(o.Name, 60))
		case i < 0:
			return fail("", "unknown option %s for %s", quote(o.Name, 60), action)
		}
		if _, dup := given[name]; dup {
			return fail(name, "is given twice")
		}
		if kind := spec[i].kind; kind == noValue {
			if !o.Flag || o.Value != "" {
				return fail(name, "takes no value")
			}
		} else {
			if o.Flag {
				return fail(name, "needs a value")
			}
			if why := checkValue(kind, o.Value); why != "" {
				return fail(name, "value %s %s", quote(o.Value, 60), why)
			}
		}
		given[name] = o
	}
	has := func(n string) bool { _, ok := given[n]; return ok }
	switch {
	case has("cwd") && has("workspace"):
		return fail("", "--cwd and --workspace exclude each other")
	case has("focus") && has("no-focus"):
		return fail("", "--focus and --no-focus exclude each other")
	case action == "open" && has("path") == has("branch"):
		return fail("", "open needs exactly one of --path and --branch")
	case action == "remove" && !has("workspace"):
		return fail("", "remove needs --workspace")
	case action != "remove" && !has("cwd"):
		return fail("", "copse always scopes %s with --cwd <main checkout>", action)
	case (action == "create" || action == "open") && !has("focus") && !has("no-focus"):
		return fail("", "copse always passes --focus or --no-focus to %s", action)
	}
	c := Cmd{noun: "worktree", action: action, argv: []string{"herdr", "worktree", action}, dir: neutralDir}
	for _, s := range spec {
		o, ok := given[s.name]
		if !ok {
			continue
		}
		c.argv = append(c.argv, "--"+s.name)
		if s.kind != noValue {
			c.argv = append(c.argv, o.Value)
		}
	}
	if cwd, ok := given["cwd"]; ok {
		// herdr resolves relative paths against its working directory (§2.12); running it
		// in the checkout it acts on keeps that directory meaningful.
		c.dir = cwd.Value
	}
	return c, nil
}

// BuildWorkspace checks a `herdr workspace` command. copse runs only list, which in Herdr
// 0.8.2 takes no argument at all: anything after it, --json included, is a usage error
// (exit 2; PROTOCOL-workspaces.md), so every option is refused here.
func BuildWorkspace(action string, opts ...Option) (Cmd, error) {
	if action != "list" {
		return Cmd{}, &ArgError{Noun: "workspace", Action: action, Reason: "unknown action (copse runs only list)"}
	}
	if len(opts) > 0 {
		return Cmd{}, &ArgError{Noun: "workspace", Action: action,
			Reason: fmt.Sprintf("takes no options (herdr 0.8.2 exits 2 on any), got %s", quote(opts[0].Name, 60))}
	}
	// Unscoped: the list is every workspace of the session, so there is no checkout to run
	// in; the neutral directory keeps herdr from depending on where copse was started.
	return Cmd{noun: "workspace", action: action, argv: []string{"herdr", "workspace", action}, dir: neutralDir}, nil
}

func checkValue(kind valueKind, v string) string {
	switch kind {
	case pathValue:
		return checkPath(v)
	case wsValue:
		if why := checkText(v, maxPath); why != "" { // the id check below owns the length
			return why
		}
		return checkWorkspaceID(v)
	case branchVal:
		return checkText(v, maxBranch)
	case refValue:
		return checkText(v, maxRef)
	case labelVal:
		return checkText(v, maxLabel)
	}
	return "has an unknown kind"
}
