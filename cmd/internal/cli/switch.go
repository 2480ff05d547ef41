package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/spf13/cobra"
)

// SwitchOptions are `copse switch`'s inputs.
type SwitchOptions struct {
	Target string
	mutation
}

// NewCmdSwitch builds `copse switch TARGET`.
func NewCmdSwitch(f *Factory, runF func(context.Context, *SwitchOptions) error) *cobra.Command {
	opts := &SwitchOptions{}
	cmd := &cobra.Command{
		Use:   "switch TARGET",
		Short: "Go to an existing worktree (TARGET: its branch, or its absolute path)",
		Long: `Go to an existing worktree. TARGET is an absolute path (the worktree at that path) or a
branch (the worktree that has it checked out).

With the shell integration (copse init), your shell changes to the worktree; without it,
the path is printed on stdout (cd "$(copse switch feat/x)"). Inside Herdr, the worktree's
workspace is focused.`,
		Args: exactArgs(1, "a TARGET (a branch, or the absolute path of a worktree)"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return switchRun(cmd.Context(), f, opts)
		}),
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "check and print what it would do; change nothing")
	return cmd
}

// splitTarget maps TARGET onto the request's path or branch: an absolute path is a path;
// something that starts like a relative path (./x, ../x, ~/x) is a path too, so the core
// refuses it as relative instead of looking for a branch of that name; anything else is a
// branch.
func splitTarget(target string) (path, branch *string) {
	if filepath.IsAbs(target) || target == "." || target == ".." || target == "~" ||
		strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../") || strings.HasPrefix(target, "~/") {
		return &target, nil
	}
	return nil, &target
}

// relativeHint improves "no worktree has branch X" when X names a directory: the user
// meant a path, and paths must be absolute.
func relativeHint(err error, target string) error {
	e, ok := err.(*core.Error)
	if !ok || e.Code != core.CodeNoSuchWorktree || filepath.IsAbs(target) {
		return err
	}
	if st, serr := os.Stat(target); serr == nil && st.IsDir() {
		e2 := *e
		e2.Hint = "to name a worktree by its path, pass an absolute path (e.g. \"$PWD/" + core.Escape(target) + "\")"
		return &e2
	}
	return err
}

func switchRun(ctx context.Context, f *Factory, opts *SwitchOptions) error {
	path, branch, id := splitTargetID(opts.Target)
	return opts.runMutation(ctx, f, core.SwitchRequest{Path: path, Branch: branch, ID: id}, opts.Target, func(svc *core.Service, out *core.Outcome) error {
		return f.deliver(ctx, svc, out, out.Path)
	})
}

// BackOptions are `copse back`'s inputs.
type BackOptions struct {
	mutation
}

// NewCmdBack builds `copse back`.
func NewCmdBack(f *Factory, runF func(context.Context, *BackOptions) error) *cobra.Command {
	opts := &BackOptions{}
	cmd := &cobra.Command{
		Use:   "back",
		Short: "Return to the previous worktree of this session (shell, or Herdr workspace)",
		Long: `Return to the worktree this session was in before its last switch. With the git backend
the session is your shell: the shell integration (copse init) remembers the directory
you left in a shell variable and hands it to copse as COPSE_PREVIOUS. Inside Herdr the
session is the workspace, and back focuses the workspace that holds the worktree.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return backRun(cmd.Context(), f, opts)
		}),
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "check and print what it would do; change nothing")
	return cmd
}

func backRun(ctx context.Context, f *Factory, opts *BackOptions) error {
	return opts.runMutation(ctx, f, core.BackRequest{}, "", func(svc *core.Service, out *core.Outcome) error {
		// core's Path is the very directory the shell left, when it lies in that worktree.
		return f.deliver(ctx, svc, out, out.Path)
	})
}

// deliver hands the worktree to the user after switch, back, or open without workspaces:
// with COPSE_CD_FILE set (the shell integration), the path is written there and nothing
// is printed on stdout; otherwise the path is printed on stdout. Inside Herdr the core
// focused the workspace; the path is printed, and the shell stays where it is.
func (f *Factory) deliver(ctx context.Context, svc *core.Service, out *core.Outcome, dest string) error {
	f.warn(out.Warnings)
	f.notice(out.Notices)
	cdFile := f.Getenv("COPSE_CD_FILE")
	written := false
	if cdFile != "" && !svc.HasWorkspaces() {
		if err := writeCDFile(ctx, cdFile, dest); err != nil {
			return err
		}
		written = true
	}
	if svc.HasWorkspaces() && out.WorkspaceID != "" && !f.Global.JSON {
		fmt.Fprintf(f.Err, "copse: workspace %s focused\n", core.Escape(out.WorkspaceID))
	}
	if f.Global.JSON {
		return f.writeJSON(out.Result())
	}
	if !written {
		f.printPath(dest)
	}
	return nil
}

// printPath prints a path on stdout: exact when a program reads it, escaped when a
// terminal shows it (a hostile path must not drive the terminal).
func (f *Factory) printPath(p string) {
	if f.OutTerminal() {
		p = core.Escape(p)
	}
	fmt.Fprintln(f.Out, p)
}

// writeCDFile writes the path (no newline) to the shell integration's file: mode 0600,
// truncated, never through a symlink. The shell integration makes a regular file, but
// COPSE_CD_FILE may name a FIFO nobody reads, where open(2) blocks until a reader comes:
// the write runs aside, and a signal (ctx) ends copse anyway, saying the path was not
// handed over. The stuck goroutine ends with the process.
func writeCDFile(ctx context.Context, name, path string) error {
	done := make(chan error, 1)
	go func() { done <- writeCDFileNow(name, path) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Err: ctx.Err(),
			Message: "cancelled while writing COPSE_CD_FILE " + core.Escape(name) + " (nobody reads it); the shell was not moved to " + core.Escape(path),
			Hint:    "change directory yourself: `cd " + textsafe.ShellQuote(path) + "`"}
	}
}

func writeCDFileNow(name, path string) error {
	fh, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return &core.Error{Kind: core.KindFailed, Code: core.CodeCDFile, Err: err,
			Message: "cannot write COPSE_CD_FILE " + core.Escape(name) + ": " + core.Escape(err.Error()),
			Hint:    "unset COPSE_CD_FILE to get the path on stdout, or reload the shell integration (`copse init bash`, zsh or fish)"}
	}
	_ = fh.Chmod(0o600)
	_, err = fh.WriteString(path)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &core.Error{Kind: core.KindFailed, Code: core.CodeCDFile, Err: err,
			Message: "cannot write COPSE_CD_FILE " + core.Escape(name) + ": " + core.Escape(err.Error())}
	}
	return nil
}
