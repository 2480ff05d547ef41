package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// request is one parsed `herdr worktree <sub>` command line. A nil pointer is an absent
// option.
type request struct {
	sub                                       string
	workspace, cwd, branch, base, path, label *string
	focus, force                              bool
}

const helpText = `Usage: herdr worktree <command> [options]

Commands:
  list   [--workspace ID | --cwd PATH]
  create [--workspace ID | --cwd PATH] [--branch NAME] [--base REF] [--path PATH] [--label TEXT] [--focus] [--no-focus]
  open   [--workspace ID | --cwd PATH] (--path PATH | --branch NAME) [--label TEXT] [--focus] [--no-focus]
  remove --workspace ID [--force]`

var usageLines = map[string]string{
	"list":   "usage: herdr worktree list [--workspace ID | --cwd PATH]",
	"create": "usage: herdr worktree create [--workspace ID | --cwd PATH] [--branch NAME] [--base REF] [--path PATH] [--label TEXT] [--focus] [--no-focus]",
	"open":   "usage: herdr worktree open [--workspace ID | --cwd PATH] (--path PATH | --branch NAME) [--label TEXT] [--focus] [--no-focus]",
	"remove": "usage: herdr worktree remove --workspace ID [--force]",
}

// Flags each subcommand accepts (§3); --json is the hidden no-op kept since 0.8.0.
var (
	valueFlags = map[string][]string{
		"list":   {"--workspace", "--cwd"},
		"create": {"--workspace", "--cwd", "--branch", "--base", "--path", "--label"},
		"open":   {"--workspace", "--cwd", "--path", "--branch", "--label"},
		"remove": {"--workspace"},
	}
	switchFlags = map[string][]string{
		"list":   {"--json"},
		"create": {"--focus", "--no-focus", "--json"},
		"open":   {"--focus", "--no-focus", "--json"},
		"remove": {"--force", "--json"},
	}
)

// parseArgs follows upstream's hand-rolled parser: every value is the next argv element
// (so `--branch=x` is an unknown option), the last repeat wins, and every local error is
// plain text on stderr with exit 2. It returns code -1 when the request should be served.
func parseArgs(args []string) (request, int) {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, helpText)
		return request{}, 2
	}
	req := request{sub: args[0]}
	switch req.sub {
	case "help", "--help", "-h":
		fmt.Fprintln(os.Stderr, helpText)
		return req, 0
	case "list", "create", "open", "remove":
	default:
		fmt.Fprintln(os.Stderr, helpText)
		return req, 2
	}
	fields := map[string]**string{
		"--workspace": &req.workspace, "--cwd": &req.cwd, "--branch": &req.branch,
		"--base": &req.base, "--path": &req.path, "--label": &req.label,
	}
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case contains(valueFlags[req.sub], a):
			if i+1 >= len(rest) {
				fmt.Fprintf(os.Stderr, "missing value for %s\n", a)
				return req, 2
			}
			v := rest[i+1]
			*fields[a] = &v
			i++
		case contains(switchFlags[req.sub], a):
			switch a {
			case "--focus":
				req.focus = true
			case "--no-focus":
				req.focus = false
			case "--force":
				req.force = true
			}
		default:
			fmt.Fprintf(os.Stderr, "unknown option: %s\n", a)
			return req, 2
		}
	}
	bad := req.workspace != nil && req.cwd != nil
	switch req.sub {
	case "open":
		bad = bad || (req.path == nil) == (req.branch == nil)
	case "remove":
		bad = req.workspace == nil
	}
	if bad {
		fmt.Fprintln(os.Stderr, usageLines[req.sub])
		return req, 2
	}
	// The CLI makes paths absolute against its own working directory before sending (§2.12).
	for _, p := range []*string{req.cwd, req.path} {
		if p != nil {
			*p = absolute(*p)
		}
	}
	return req, -1
}

func absolute(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, _ := os.UserHomeDir()
		p = home + p[1:]
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
