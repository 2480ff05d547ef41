// Package assets holds copse's embedded files: the shell integration scripts that
// `copse init bash|zsh|fish` prints.
package assets

import (
	"embed"
	"sort"
	"strings"
)

//go:embed shell/*
var shellFS embed.FS

// Shell returns the integration script for shell ("bash", "zsh" or "fish").
func Shell(shell string) ([]byte, bool) {
	for _, s := range Shells() {
		if s == shell {
			b, err := shellFS.ReadFile("shell/copse." + s)
			return b, err == nil
		}
	}
	return nil, false
}

// Shells lists the shells copse integrates with, sorted.
func Shells() []string {
	entries, _ := shellFS.ReadDir("shell")
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutPrefix(e.Name(), "copse."); ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
