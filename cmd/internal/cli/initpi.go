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

// piAgentDir is pi's agent folder as pi 0.73.1 computes it (dist/config.js getAgentDir):
// $PI_CODING_AGENT_DIR with a leading ~ expanded, else ~/.pi/agent.
func (f *Factory) piAgentDir() (string, error) {
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
		dir = filepath.Join(home, ".pi", "agent")
	}
	if !filepath.IsAbs(dir) {
		// pi would resolve it against its own working directory, which copse cannot know.
		return "", fmt.Errorf("PI_CODING_AGENT_DIR is not an absolute path: %s", core.Escape(dir))
	}
	return filepath.Clean(dir), nil
}

// installPi writes the pi extension into pi's extensions folder. A file copse wrote and
// nobody changed is replaced (an upgrade); a file the user changed, or one copse did not
// write, is kept unless force.
func installPi(f *Factory, force bool) error {
	agentDir, err := f.piAgentDir()
	if err != nil {
		return &core.Error{Kind: core.KindUsage, Code: core.CodePiAgentDir, Err: err,
			Message: "cannot tell where pi keeps its extensions: " + err.Error(),
			Hint:    "set HOME, or PI_CODING_AGENT_DIR to pi's agent folder (absolute)"}
	}
	target := filepath.Join(agentDir, "extensions", assets.PiExtensionFile)
	shown := f.displayPath(target)
	content := assets.PiExtension()
	old, err := os.ReadFile(target)
	switch {
	case err == nil && bytes.Equal(old, content):
		_, err := fmt.Fprintf(f.Out, "%s is up to date\n", shown)
		return err
	case err == nil && !force && !assets.PiExtensionUnchanged(old):
		return &core.Error{Kind: core.KindRefused, Code: core.CodePiExtensionChanged,
			Message: shown + " was changed since copse wrote it (or copse did not write it); it was kept",
			Hint:    "move your copy away, or run `copse init pi --install --force` to replace it (your changes are lost)"}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return &core.Error{Kind: core.KindFailed, Code: core.CodePiExtensionUnreadable, Err: err,
			Message: "cannot read " + shown + ": " + err.Error(), Hint: "check the file's permissions"}
	}
	if err := writeFileAtomic(target, content); err != nil {
		return &core.Error{Kind: core.KindFailed, Code: core.CodePiExtensionWrite, Err: err,
			Message: "cannot write " + shown + ": " + err.Error(),
			Hint:    "check that pi's agent folder is writable (PI_CODING_AGENT_DIR moves it)"}
	}
	_, err = fmt.Fprintf(f.Out, "wrote %s\npi loads it when it starts (or on /reload): /worktree, and git_worktree_* tools for the model\n", shown)
	return err
}

// writeFileAtomic replaces path with content in one rename, so pi never loads half a file.
func writeFileAtomic(path string, content []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".copse-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
