// Package assets holds copse's embedded files: the shell integration scripts that
// `copse init bash|zsh|fish` prints, and the pi extension of `copse init pi`. It holds data
// only and must never gain logic: what the files do is decided by the code that installs them.
package assets

import (
	"embed"
	"fmt"
)

//go:embed shell/*
var shellFS embed.FS

// files maps each shell to its script; bash and zsh share one POSIX-style function.
var files = map[string]string{"bash": "shell/posix.sh", "zsh": "shell/posix.sh", "fish": "shell/copse.fish"}

var startup = map[string]string{"bash": "~/.bashrc", "zsh": "~/.zshrc"}

// Shell returns the integration script for shell ("bash", "zsh" or "fish").
func Shell(shell string) ([]byte, bool) {
	name, ok := files[shell]
	if !ok {
		return nil, false
	}
	b, err := shellFS.ReadFile(name)
	if err != nil {
		return nil, false
	}
	if rc, ok := startup[shell]; ok {
		header := fmt.Sprintf("# copse shell integration for %s. Load it from %s with:\n#     eval \"$(command copse init %s)\"\n", shell, rc, shell)
		b = append([]byte(header), b...)
	}
	return b, true
}

// Shells lists the shells copse integrates with, sorted.
func Shells() []string { return []string{"bash", "fish", "zsh"} }
