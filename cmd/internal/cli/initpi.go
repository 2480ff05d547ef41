package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/copse-dev/copse/assets"
	"github.com/copse-dev/copse/core"
)

// agentHost is an agent that loads copse's extension from its agent folder: pi, or Oh My Pi
// (omp), which share the extension source (see assets/omp.go) and the install rules.
type agentHost struct {
	name       string // "pi" or "omp", as in `copse init NAME`
	defaultDir string // the agent folder below HOME when PI_CODING_AGENT_DIR is unset
	file       string
	content    func() []byte
	unchanged  func([]byte) bool // a file copse wrote and nobody edited
	// The error codes of a failed install.
	codeAgentDir, codeChanged, codeUnreadable, codeWrite string
	loaded                                               string // what the host makes of the file, said after writing it
}

var piHost = agentHost{
	name: "pi", defaultDir: filepath.Join(".pi", "agent"),
	file: assets.PiExtensionFile, content: assets.PiExtension, unchanged: assets.PiExtensionUnchanged,
	codeAgentDir: core.CodePiAgentDir, codeChanged: core.CodePiExtensionChanged,
	codeUnreadable: core.CodePiExtensionUnreadable, codeWrite: core.CodePiExtensionWrite,
	loaded: "pi loads it when it starts (or on /reload): /worktree, and git_worktree_* tools for the model",
}

var ompHost = agentHost{
	name: "omp", defaultDir: filepath.Join(".omp", "agent"),
	file: assets.OmpExtensionFile, content: assets.OmpExtension, unchanged: assets.OmpExtensionUnchanged,
	codeAgentDir: core.CodeOmpAgentDir, codeChanged: core.CodeOmpExtensionChanged,
	codeUnreadable: core.CodeOmpExtensionUnreadable, codeWrite: core.CodeOmpExtensionWrite,
	// omp's own /worktree is another command: copse's is /copse there.
	loaded: "omp loads it when it starts: /copse (omp's own /worktree is a different command), herdr_worktree and git_worktree_* tools for the model",
}

// agentDir is the host's agent folder as pi 0.73.1 (dist/config.js getAgentDir) and omp
// 18.2.3 (pi-utils dirs.ts) compute it: $PI_CODING_AGENT_DIR with a leading ~ expanded,
// else ~/.pi/agent or ~/.omp/agent.
func (f *Factory) agentDir(h agentHost) (string, error) {
	home := f.Getenv("HOME")
	dir := f.Getenv("PI_CODING_AGENT_DIR")
	switch {
	case dir == "~" || strings.HasPrefix(dir, "~/"):
		if home == "" {
			return "", errors.New("PI_CODING_AGENT_DIR starts with ~ and HOME is not set")
		}
		dir = home + dir[1:]
	case dir == "":
		if home == "" {
			return "", errors.New("HOME is not set")
		}
		dir = filepath.Join(home, h.defaultDir)
	}
	if !filepath.IsAbs(dir) {
		// The host would resolve it against its own working directory, which copse cannot know.
		return "", fmt.Errorf("PI_CODING_AGENT_DIR is not an absolute path: %s", core.Escape(dir))
	}
	return filepath.Clean(dir), nil
}

// installPi writes the pi extension into pi's extensions folder.
func installPi(f *Factory, force bool) error { return installExtension(f, piHost, force) }

// installOmp writes the omp extension into omp's extensions folder.
func installOmp(f *Factory, force bool) error { return installExtension(f, ompHost, force) }

// installExtension writes the host's extension into its extensions folder. A file copse
// wrote and nobody changed is replaced (an upgrade); a file the user changed, or one copse
// did not write, is kept unless force.
func installExtension(f *Factory, h agentHost, force bool) error {
	agentDir, err := f.agentDir(h)
	if err != nil {
		return &core.Error{Kind: core.KindUsage, Code: h.codeAgentDir, Err: err,
			Message: "cannot tell where " + h.name + " keeps its extensions: " + err.Error(),
			Hint:    "set HOME, or PI_CODING_AGENT_DIR to " + h.name + "'s agent folder (absolute)"}
	}
	target := filepath.Join(agentDir, "extensions", h.file)
	shown := f.displayPath(target)
	content := h.content()
	old, err := os.ReadFile(target)
	switch {
	case err == nil && bytes.Equal(old, content):
		_, err := fmt.Fprintf(f.Out, "%s is up to date\n", shown)
		return err
	case err == nil && !force && !h.unchanged(old):
		return &core.Error{Kind: core.KindRefused, Code: h.codeChanged,
			Message: shown + " was changed since copse wrote it (or copse did not write it); it was kept",
			Hint:    "move your copy away, or run `copse init " + h.name + " --install --force` to replace it (your changes are lost)"}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return &core.Error{Kind: core.KindFailed, Code: h.codeUnreadable, Err: err,
			Message: "cannot read " + shown + ": " + err.Error(), Hint: "check the file's permissions"}
	}
	if err := writeFileAtomic(target, content); err != nil {
		return &core.Error{Kind: core.KindFailed, Code: h.codeWrite, Err: err,
			Message: "cannot write " + shown + ": " + err.Error(),
			Hint:    "check that " + h.name + "'s agent folder is writable (PI_CODING_AGENT_DIR moves it)"}
	}
	_, err = fmt.Fprintf(f.Out, "wrote %s\n%s\n", shown, h.loaded)
	return err
}

// writeFileAtomic replaces path with content in one rename, so pi never loads half a file
// (its folder made readable by all, as pi's own are).
func writeFileAtomic(path string, content []byte) error {
	return writeFileIn(path, content, 0o755, 0o644)
}
