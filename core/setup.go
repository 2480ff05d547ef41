package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/copse-dev/copse/core/usercmd"
	"github.com/copse-dev/copse/gitx"
)

// A new worktree starts without what the main checkout has outside git (.env files,
// editor settings) and without installed dependencies. Setup brings both, from git config:
//
//	copse.copy   glob patterns (repeatable) of untracked or ignored files copied from the
//	             main checkout: ".env*" at any depth, ".vscode/" a whole directory
//	copse.setup  commands (repeatable) run with sh -c in the new worktree, in order
//
// Nothing is overwritten; symlinks are copied as links. A failing step leaves the worktree
// in place and says which step failed and how to rerun it.

// SetupReport is what Setup did.
type SetupReport struct {
	Path   string      `json:"path"`
	Copied []string    `json:"copied,omitempty"` // relative paths copied from the main checkout
	Kept   []string    `json:"kept,omitempty"`   // already present in the worktree: left as they were
	Steps  []SetupStep `json:"steps,omitempty"`
}

// SetupStep is one copse.setup command and how it ended.
type SetupStep struct {
	Command  string  `json:"command"`
	ExitCode int     `json:"exit_code"`
	TimedOut bool    `json:"timed_out,omitempty"`
	Seconds  float64 `json:"seconds"`
}

// defaultSetupTimeout bounds each setup step unless git config copse.setupTimeout says
// otherwise (an `npm ci` on a cold cache takes minutes, a hung one must not hang copse).
const defaultSetupTimeout = 10 * time.Minute

// SetupConfig is what git config asks for; empty when nothing is configured.
type SetupConfig struct {
	Copy    []string
	Steps   []string
	Timeout time.Duration
}

// Empty reports a repository with no copse.copy and no copse.setup.
func (c SetupConfig) Empty() bool { return len(c.Copy) == 0 && len(c.Steps) == 0 }

// SetupConfig reads copse.copy, copse.setup and copse.setupTimeout.
func (s *Service) SetupConfig(ctx context.Context) (SetupConfig, error) {
	return s.impl.setupConfig(ctx)
}

func (s *service) setupConfig(ctx context.Context) (SetupConfig, error) {
	var c SetupConfig
	var err error
	root := s.root()
	if c.Copy, err = s.git.ConfigValues(ctx, root, "copse.copy"); err != nil {
		return c, gitFailure(CodeConfigFailed, err, "cannot read git config copse.copy")
	}
	if c.Steps, err = s.git.ConfigValues(ctx, root, "copse.setup"); err != nil {
		return c, gitFailure(CodeConfigFailed, err, "cannot read git config copse.setup")
	}
	c.Timeout = defaultSetupTimeout
	if len(c.Steps) > 0 {
		v, ok, err := s.git.ConfigValue(ctx, root, "copse.setupTimeout")
		if err != nil {
			return c, gitFailure(CodeConfigFailed, err, "cannot read git config copse.setupTimeout")
		}
		if ok {
			d, perr := parseSpan(v, timeoutRule)
			if perr != nil {
				return c, spanError(CodeBadConfig, "copse.setupTimeout", v, timeoutRule, perr, "set a duration such as 10m: git config copse.setupTimeout 10m")
			}
			c.Timeout = d
		}
	}
	return c, nil
}

// SetupTarget resolves what `copse setup [TARGET]` sets up: the worktree named by path or
// branch, or the one copse runs in. The main checkout is the source, never a target.
func (s *Service) SetupTarget(ctx context.Context, path, branch *string) (string, error) {
	si := s.impl
	snap, err := si.readAndLearn(ctx)
	if err != nil {
		return "", err
	}
	var t gitx.Worktree
	if path == nil && branch == nil {
		cur := si.current()
		if cur == "" {
			return "", usage(CodeNoTarget, "target", "name the worktree: `copse setup TARGET`", "copse is not running in a worktree")
		}
		t, _ = find(snap, cur)
	} else if t, _, err = si.resolveTarget(ctx, snap, path, branch, nil); err != nil {
		return "", err
	}
	if err := checkEnterable(t); err != nil {
		return "", err
	}
	if len(snap.trees) > 0 && t.Path == snap.trees[0].Path {
		return "", refused(CodeMainCheckout, "name a linked worktree; setup copies from the main checkout into it",
			"%s is the main checkout, where setup copies from", Escape(t.Path))
	}
	return t.Path, nil
}

// Setup copies the copse.copy files from the main checkout into the worktree at path and
// runs the copse.setup steps there, streaming their output to out. A step that fails, times
// out or is cancelled stops the setup; the worktree stays, and the error names the step
// and how to rerun it (`copse setup <path>`).
func (s *Service) Setup(ctx context.Context, path string, cfg SetupConfig, out io.Writer) (*SetupReport, error) {
	si := s.impl
	rep := &SetupReport{Path: path}
	root := si.root()
	if len(cfg.Copy) > 0 {
		files, err := si.git.FilesMatching(ctx, root, copyGlobs(cfg.Copy))
		if err != nil {
			return rep, gitFailure(CodeSetupCopyFailed, err, "cannot list the files copse.copy names")
		}
		for _, rel := range files {
			copied, err := copyNew(filepath.Join(root, rel), filepath.Join(path, rel))
			if err != nil {
				return rep, failed(CodeSetupCopyFailed, err, "check the file, or rerun: `copse setup "+quoteDisplay(path)+"`",
					"cannot copy %s into %s: %s", Escape(rel), Escape(path), Escape(err.Error()))
			}
			if copied {
				rep.Copied = append(rep.Copied, rel)
			} else {
				rep.Kept = append(rep.Kept, rel)
			}
		}
	}
	env := []string{"COPSE_WORKTREE=" + path, "COPSE_MAIN=" + root}
	for i, step := range cfg.Steps {
		fmt.Fprintf(out, "copse: setup %d/%d: %s\n", i+1, len(cfg.Steps), Escape(step))
		start := time.Now()
		res, err := usercmd.Run(ctx, path, step, env, cfg.Timeout, out)
		st := SetupStep{Command: step, ExitCode: res.ExitCode, TimedOut: res.TimedOut, Seconds: time.Since(start).Seconds()}
		rep.Steps = append(rep.Steps, st)
		rerun := "fix it, then rerun the setup: `copse setup " + quoteDisplay(path) + "`"
		which := fmt.Sprintf("setup step %d of %d (%s)", i+1, len(cfg.Steps), Escape(step))
		switch {
		case err != nil:
			return rep, failed(CodeSetupFailed, err, rerun, "%s could not start: %s; the worktree stays at %s", which, Escape(err.Error()), Escape(path))
		case res.Canceled:
			return rep, &Error{Kind: KindCancelled, Code: CodeCancelled, Hint: rerun,
				Message: which + " was cancelled; the worktree stays at " + Escape(path)}
		case res.TimedOut:
			return rep, failed(CodeSetupTimeout, nil, rerun+" (or raise git config copse.setupTimeout)",
				"%s did not finish within %s and was stopped; the worktree stays at %s", which, cfg.Timeout, Escape(path))
		case !res.OK():
			return rep, failed(CodeSetupFailed, nil, rerun, "%s exited with status %d; the worktree stays at %s", which, res.ExitCode, Escape(path))
		}
	}
	return rep, nil
}

// copyGlobs turns copse.copy patterns into git glob pathspecs: a pattern without a slash
// matches at any depth (like .gitignore), one ending in "/" names a whole directory.
func copyGlobs(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		dir := strings.HasSuffix(p, "/")
		p = strings.TrimSuffix(p, "/")
		anchored := strings.HasPrefix(p, "/")
		p = strings.TrimPrefix(p, "/")
		if !anchored && !strings.Contains(p, "/") {
			p = "**/" + p
		}
		if dir {
			p += "/**"
		}
		out = append(out, p)
	}
	return out
}

// copyNew copies one file (or symlink, as a link) to dst unless something is there
// already; it reports whether it copied. Parents are made as needed.
func copyNew(src, dst string) (bool, error) {
	fi, err := os.Lstat(src)
	if err != nil {
		return false, err
	}
	if _, err := os.Lstat(dst); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return false, err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return false, err
		}
		if err := os.Symlink(target, dst); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return false, nil
			}
			return false, err
		}
		return true, nil
	case fi.Mode().IsRegular():
		in, err := os.Open(src)
		if err != nil {
			return false, err
		}
		defer in.Close()
		// O_EXCL: something that appeared since the check is kept, never overwritten.
		o, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if _, err := io.Copy(o, in); err != nil {
			o.Close()
			return false, err
		}
		return true, o.Close()
	}
	return false, nil // sockets, devices: not something to copy
}
