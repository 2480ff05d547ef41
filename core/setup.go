package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
// Nothing is overwritten; symlinks are copied as links. A copy never writes through a
// symbolic link in the new worktree (a branch can commit "conf" as a link to a directory
// outside it) and never reads outside the main checkout: both sides are opened as os.Root
// (which refuses a path that leaves it), and a path with a symbolic link among its
// directories, on either side, is skipped and reported in Refused. A failing step leaves
// the worktree in place and says which step failed and how to rerun it.

// SetupReport is what Setup did.
type SetupReport struct {
	Path   string   `json:"path"`
	Copied []string `json:"copied,omitempty"` // relative paths copied from the main checkout
	Kept   []string `json:"kept,omitempty"`   // already present in the worktree: left as they were
	// Refused are the copse.copy files not copied because the copy would have left the main
	// checkout or the new worktree; each is a warning, the setup goes on.
	Refused []SetupRefusal `json:"refused,omitempty"`
	Steps   []SetupStep    `json:"steps,omitempty"`
}

// SetupRefusal is one copse.copy file left alone, and why.
type SetupRefusal struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
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
	Copy    []string // copse.copy from git config and from .copse.conf
	Include []string // the .worktreeinclude patterns
	Steps   []string // copse.setup from git config: the repository owner's, run as they are
	// Project are the copse.setup commands of the committed .copse.conf: they run (before
	// Steps) only once a person approved each exact text (Service.Unapproved).
	Project []string
	// ProjectTest is .copse.conf's copse.test: land's test gate when neither --test nor git
	// config copse.test gives one, and only once approved like Project.
	ProjectTest string
	Timeout     time.Duration
}

// ProjectCommands are every command .copse.conf asks to run: what copse approve shows.
func (c SetupConfig) ProjectCommands() []string {
	if c.ProjectTest == "" {
		return c.Project
	}
	return append(slices.Clip(c.Project), c.ProjectTest)
}

// Empty reports a repository with nothing to copy and no setup commands.
func (c SetupConfig) Empty() bool {
	return len(c.Copy) == 0 && len(c.Include) == 0 && len(c.Steps) == 0 && len(c.Project) == 0
}

// AllSteps are the commands setup runs, in order: the project's, then git config's.
func (c SetupConfig) AllSteps() []string { return append(slices.Clip(c.Project), c.Steps...) }

// SetupConfig reads copse.copy, copse.setup and copse.setupTimeout from git config, and
// the main checkout's .worktreeinclude and .copse.conf (see project.go).
func (s *Service) SetupConfig(ctx context.Context) (SetupConfig, error) {
	return s.impl.SetupConfig(ctx)
}

func (s *Env) SetupConfig(ctx context.Context) (SetupConfig, error) {
	var c SetupConfig
	var err error
	root := s.Root()
	if c.Copy, err = s.Git.ConfigValues(ctx, root, "copse.copy"); err != nil {
		return c, GitFailure(CodeConfigFailed, err, "cannot read git config copse.copy")
	}
	if c.Steps, err = s.Git.ConfigValues(ctx, root, "copse.setup"); err != nil {
		return c, GitFailure(CodeConfigFailed, err, "cannot read git config copse.setup")
	}
	if c.Include, err = readInclude(root); err != nil {
		return c, Failed(CodeConfigFailed, err, "check the file in the main checkout",
			"cannot read %s: %s", IncludeFile, Escape(err.Error()))
	}
	file := filepath.Join(root, ProjectConfigFile)
	if _, err := os.Lstat(file); err == nil {
		copies, err := s.Git.ConfigFileValues(ctx, root, file, "copse.copy")
		if err != nil {
			return c, GitFailure(CodeConfigFailed, err, "cannot read copse.copy from "+ProjectConfigFile)
		}
		c.Copy = append(c.Copy, copies...)
		if c.Project, err = s.Git.ConfigFileValues(ctx, root, file, "copse.setup"); err != nil {
			return c, GitFailure(CodeConfigFailed, err, "cannot read copse.setup from "+ProjectConfigFile)
		}
		if c.ProjectTest, err = s.ProjectTest(ctx); err != nil {
			return c, err
		}
	}
	c.Timeout = defaultSetupTimeout
	if len(c.Steps)+len(c.Project) > 0 {
		v, ok, err := s.Git.ConfigValue(ctx, root, "copse.setupTimeout")
		if err != nil {
			return c, GitFailure(CodeConfigFailed, err, "cannot read git config copse.setupTimeout")
		}
		if ok {
			d, perr := ParseSpan(v, TimeoutRule)
			if perr != nil {
				return c, SpanError(CodeBadConfig, "copse.setupTimeout", v, TimeoutRule, perr, "set a duration such as 10m: git config copse.setupTimeout 10m")
			}
			c.Timeout = d
		}
	}
	return c, nil
}

// projectTest reads copse.test from .copse.conf ("" when there is none; the last value wins,
// as git config's does).
func (s *Env) ProjectTest(ctx context.Context) (string, error) {
	root := s.Root()
	file := filepath.Join(root, ProjectConfigFile)
	if _, err := os.Lstat(file); err != nil {
		return "", nil
	}
	vs, err := s.Git.ConfigFileValues(ctx, root, file, "copse.test")
	if err != nil {
		return "", GitFailure(CodeConfigFailed, err, "cannot read copse.test from "+ProjectConfigFile)
	}
	if len(vs) == 0 {
		return "", nil
	}
	return strings.TrimSpace(vs[len(vs)-1]), nil
}

// SetupTarget resolves what `copse setup [TARGET]` sets up: the worktree named by path or
// branch, or the one copse runs in. The main checkout is the source, never a target.
func (s *Service) SetupTarget(ctx context.Context, path, branch *string) (string, error) {
	si := s.impl
	snap, err := si.ReadAndLearn(ctx)
	if err != nil {
		return "", err
	}
	var t gitx.Worktree
	if path == nil && branch == nil {
		cur := si.Current()
		if cur == "" {
			return "", Usage(CodeNoTarget, "target", "name the worktree: `copse setup TARGET`", "copse is not running in a worktree")
		}
		t, _ = Find(snap, cur)
	} else if t, _, err = si.ResolveTarget(ctx, snap, path, branch, nil); err != nil {
		return "", err
	}
	if err := CheckEnterable(t); err != nil {
		return "", err
	}
	if len(snap.Trees) > 0 && t.Path == snap.Trees[0].Path {
		return "", Refused(CodeMainCheckout, "name a linked worktree; setup copies from the main checkout into it",
			"%s is the main checkout, where setup copies from", Escape(t.Path))
	}
	return t.Path, nil
}

// Setup copies the copse.copy files from the main checkout into the worktree at path and
// runs the copse.setup steps there, streaming their output to out. A step that fails, times
// out or is cancelled stops the setup; the worktree stays, and the error names the step
// and how to rerun it (`copse setup <path>`).
func (s *Service) Setup(ctx context.Context, path string, cfg SetupConfig, out io.Writer) (*SetupReport, error) {
	return s.SetupThen(ctx, path, cfg, out, nil)
}

// SetupThen is Setup with copied called once the copies are done, before the first step
// runs, so a caller can report them in the order they happened (a step's output is long).
func (s *Service) SetupThen(ctx context.Context, path string, cfg SetupConfig, out io.Writer, copied func(*SetupReport)) (*SetupReport, error) {
	si := s.impl
	rep := &SetupReport{Path: path}
	root := si.Root()
	// Checked before anything is copied, whoever calls (the picker, an agent's create): a
	// project command runs only once a person approved it, and a refused setup changes nothing.
	if missing, err := s.Unapproved(cfg.Project); err != nil {
		return nil, err
	} else if len(missing) > 0 {
		return nil, UnapprovedError(missing, "runs `copse setup "+QuoteDisplay(path)+"`")
	}
	files, refused, err := si.setupFiles(ctx, cfg)
	rep.Refused = append(rep.Refused, refused...)
	if err != nil {
		return rep, err
	}
	if len(files) > 0 {
		if err := copyFromMain(root, path, files, rep); err != nil {
			return rep, err
		}
	}
	if copied != nil {
		copied(rep)
	}
	// Options.Env too, as every other child gets it: a step that runs git needs the same
	// environment as copse's own git.
	env := append(slices.Clone(s.impl.Opts.Env), "COPSE_WORKTREE="+path, "COPSE_MAIN="+root)
	steps := cfg.AllSteps()
	for i, step := range steps {
		fmt.Fprintf(out, "copse: setup %d/%d: %s\n", i+1, len(steps), Escape(step))
		start := time.Now()
		res, err := usercmd.Run(ctx, path, step, env, cfg.Timeout, out)
		st := SetupStep{Command: step, ExitCode: res.ExitCode, TimedOut: res.TimedOut, Seconds: time.Since(start).Seconds()}
		rep.Steps = append(rep.Steps, st)
		rerun := "fix it, then rerun the setup: `copse setup " + QuoteDisplay(path) + "`"
		which := fmt.Sprintf("setup step %d of %d (%s)", i+1, len(steps), Escape(step))
		switch {
		case err != nil:
			return rep, Failed(CodeSetupFailed, err, rerun, "%s could not start: %s; the worktree stays at %s", which, Escape(err.Error()), Escape(path))
		case res.Canceled:
			return rep, &Error{Kind: KindCancelled, Code: CodeCancelled, Hint: rerun,
				Message: which + " was cancelled; the worktree stays at " + Escape(path)}
		case res.TimedOut:
			return rep, Failed(CodeSetupTimeout, nil, rerun+" (or raise git config copse.setupTimeout)",
				"%s did not finish within %s and was stopped; the worktree stays at %s", which, FormatSpan(cfg.Timeout), Escape(path))
		case !res.OK():
			return rep, Failed(CodeSetupFailed, nil, rerun, "%s exited with status %d; the worktree stays at %s", which, res.ExitCode, Escape(path))
		}
	}
	return rep, nil
}

// setupFiles are the files of the main checkout the setup copies (copse.copy, then
// .worktreeinclude), and the copse.copy patterns it refuses.
func (s *Env) setupFiles(ctx context.Context, cfg SetupConfig) ([]string, []SetupRefusal, error) {
	root := s.Root()
	var files []string
	var refused []SetupRefusal
	if len(cfg.Copy) > 0 {
		var patterns []string
		patterns, refused = insidePatterns(cfg.Copy)
		matched, err := s.Git.FilesMatching(ctx, root, copyGlobs(patterns))
		if err != nil {
			return nil, refused, GitFailure(CodeSetupCopyFailed, err, "cannot list the files copse.copy names")
		}
		files = matched
	}
	if len(cfg.Include) > 0 {
		included, err := s.Git.FilesIncluded(ctx, root, cfg.Include)
		if err != nil {
			return nil, refused, GitFailure(CodeSetupCopyFailed, err, "cannot list the files "+IncludeFile+" names")
		}
		seen := make(map[string]bool, len(files))
		for _, f := range files {
			seen[f] = true
		}
		for _, f := range included {
			if !seen[f] {
				files = append(files, f)
			}
		}
	}
	return files, refused, nil
}

// SetupPlan is what a new worktree's setup would do (create --dry-run shows it).
type SetupPlan struct {
	// Copy are the files of the main checkout it would copy (one the new worktree already
	// has is kept, as by the setup itself).
	Copy    []string       `json:"copy,omitempty"`
	Refused []SetupRefusal `json:"refused,omitempty"` // copse.copy patterns it would not follow
	Steps   []string       `json:"steps,omitempty"`   // the commands it would run (sh -c), in order
}

// PlanSetup says what the setup of cfg would copy and run, changing nothing. It refuses
// where Setup refuses before it changes anything: a project command no person approved.
func (s *Service) PlanSetup(ctx context.Context, cfg SetupConfig, then string) (*SetupPlan, error) {
	if missing, err := s.Unapproved(cfg.Project); err != nil {
		return nil, err
	} else if len(missing) > 0 {
		return nil, UnapprovedError(missing, then)
	}
	files, refused, err := s.impl.setupFiles(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &SetupPlan{Copy: files, Refused: refused, Steps: cfg.AllSteps()}, nil
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

// insidePatterns keeps the copse.copy patterns that stay inside the main checkout and
// refuses those with a ".." segment (git would fail the whole listing on one, and a copy
// must not read outside anyway).
func insidePatterns(patterns []string) (keep []string, refused []SetupRefusal) {
	for _, p := range patterns {
		if slices.Contains(strings.Split(strings.TrimSpace(p), "/"), "..") {
			refused = append(refused, SetupRefusal{Path: p, Reason: "the copse.copy pattern leads out of the main checkout"})
			continue
		}
		keep = append(keep, p)
	}
	return keep, refused
}

// copyFromMain copies files (paths relative to the main checkout root) into the worktree
// at path, recording in rep what it copied, kept and refused.
func copyFromMain(root, path string, files []string, rep *SetupReport) error {
	rerun := "check the file, or rerun: `copse setup " + QuoteDisplay(path) + "`"
	src, err := os.OpenRoot(root)
	if err != nil {
		return Failed(CodeSetupCopyFailed, err, rerun, "cannot open the main checkout %s: %s", Escape(root), Escape(err.Error()))
	}
	defer src.Close()
	dst, err := os.OpenRoot(path)
	if err != nil {
		return Failed(CodeSetupCopyFailed, err, rerun, "cannot open the worktree %s: %s", Escape(path), Escape(err.Error()))
	}
	defer dst.Close()
	for _, rel := range files {
		if why := copyRefusal(src, dst, rel); why != "" {
			rep.Refused = append(rep.Refused, SetupRefusal{Path: rel, Reason: why})
			continue
		}
		copied, err := copyNew(src, dst, rel)
		if err != nil {
			return Failed(CodeSetupCopyFailed, err, rerun,
				"cannot copy %s into %s: %s", Escape(rel), Escape(path), Escape(err.Error()))
		}
		if copied {
			rep.Copied = append(rep.Copied, rel)
		} else {
			rep.Kept = append(rep.Kept, rel)
		}
	}
	return nil
}

// copyRefusal says why rel must not be copied, or "": a path that is not inside the main
// checkout, or whose directories include a symbolic link in the main checkout (reading
// through it may leave the checkout) or in the new worktree (writing through it may land
// outside the worktree), or a non-directory where the worktree needs a directory. os.Root
// enforces the same at each open, so a link swapped in after this check fails the copy
// instead of escaping.
func copyRefusal(src, dst *os.Root, rel string) string {
	if !filepath.IsLocal(rel) {
		return "the path is not inside the main checkout"
	}
	dir := filepath.Dir(rel)
	if dir == "." {
		return ""
	}
	parts := strings.Split(dir, string(filepath.Separator))
	made := false // from here on the copy makes the directories itself
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		if fi, err := src.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return p + " in the main checkout is a symbolic link; copse.copy does not read through links"
		}
		if made {
			continue
		}
		fi, err := dst.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			made = true
		case err != nil:
			return "cannot check " + p + " in the new worktree: " + err.Error()
		case fi.Mode()&fs.ModeSymlink != 0:
			return p + " in the new worktree is a symbolic link; copse.copy does not write through links"
		case !fi.IsDir():
			return p + " in the new worktree is not a directory"
		}
	}
	return ""
}

// copyNew copies one file (or symlink, as a link) from src to dst, both at rel, unless
// something is there already; it reports whether it copied. Parents are made as needed.
func copyNew(src, dst *os.Root, rel string) (bool, error) {
	fi, err := src.Lstat(rel)
	if err != nil {
		return false, err
	}
	if _, err := dst.Lstat(rel); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err := dst.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return false, err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := src.Readlink(rel)
		if err != nil {
			return false, err
		}
		if err := dst.Symlink(target, rel); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return false, nil
			}
			return false, err
		}
		return true, nil
	case fi.Mode().IsRegular():
		in, err := src.Open(rel)
		if err != nil {
			return false, err
		}
		defer in.Close()
		// The file opened must be the one checked: a link swapped in meanwhile (os.Root
		// follows one that stays inside) is not copied in its place.
		if got, err := in.Stat(); err != nil || !os.SameFile(fi, got) {
			return false, fmt.Errorf("%s changed while it was copied", rel)
		}
		// O_EXCL: something that appeared since the check is kept, never overwritten (a
		// link included: O_EXCL does not follow it).
		o, err := dst.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
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
