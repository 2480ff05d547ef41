package backend

import (
	"context"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/gitx"
)

// gitBackend works anywhere: git makes and removes worktrees, and switching hands the path
// to the shell integration (COPSE_CD_FILE) or prints it. Without workspaces, open is switch.
type gitBackend struct{ s *core.Env }

func (b *gitBackend) Name() string                                    { return "git" }
func (b *gitBackend) HasWorkspaces() bool                             { return false }
func (b *gitBackend) Session() string                                 { return "shell" }
func (b *gitBackend) Annotate(context.Context, []core.Worktree) error { return nil }

func (b *gitBackend) createCmd(c *core.CreateSpec) (gitx.Cmd, error) {
	if c.Existing {
		return gitx.WorktreeAddExisting(c.Cwd, c.Path.String(), c.Branch.String())
	}
	if c.Remote != nil {
		return gitx.WorktreeAddTrack(c.Cwd, c.Path.String(), c.Branch.String(), c.Remote.Remote, c.Remote.Name)
	}
	return gitx.WorktreeAddNew(c.Cwd, c.Path.String(), c.Branch.String(), c.Base.OID)
}

func (b *gitBackend) CreateCommands(c *core.CreateSpec) ([]string, error) {
	cmd, err := b.createCmd(c)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	return []string{cmd.String()}, nil
}

func (b *gitBackend) Create(ctx context.Context, c *core.CreateSpec) (string, error) {
	cmd, err := b.createCmd(c)
	if err != nil {
		return "", core.BuilderErr(err)
	}
	_, err = b.s.Git.Run(ctx, cmd)
	return "", err
}

// Switching runs nothing: the path goes to the shell. The "command" shown is the cd.
func (b *gitBackend) SwitchCommands(c *core.TargetSpec) ([]string, error) {
	return []string{"cd " + core.QuoteDisplay(c.Target.Path)}, nil
}
func (b *gitBackend) OpenCommands(c *core.TargetSpec) ([]string, error)          { return b.SwitchCommands(c) }
func (b *gitBackend) SwitchTo(context.Context, *core.TargetSpec) (string, error) { return "", nil }
func (b *gitBackend) Open(context.Context, *core.TargetSpec) (string, error)     { return "", nil }

// AgentStatus: git opens no workspaces, so there is no agent to describe.
func (b *gitBackend) AgentStatus(context.Context, string, string) string { return "" }

func (b *gitBackend) WorkspaceLive(_ context.Context, path, _ string) core.LiveSet {
	return core.LiveIn(path, "")
}

func (b *gitBackend) ClosesWorkspace(string) string { return "" }

func (b *gitBackend) Agents(context.Context, []core.Worktree) {}

func (b *gitBackend) removeCmd(c *core.RemoveSpec) (gitx.Cmd, error) {
	return gitx.WorktreeRemove(c.Cwd, c.Target.Path, c.Force, c.Target.Locked != nil)
}

func (b *gitBackend) RemoveCommands(c *core.RemoveSpec) ([]string, error) {
	var cmds []string
	if c.UnlockFirst {
		un, err := gitx.WorktreeUnlock(c.Cwd, c.Target.Path)
		if err != nil {
			return nil, core.BuilderErr(err)
		}
		cmds = append(cmds, un.String())
	}
	cmd, err := b.removeCmd(c)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	return append(cmds, cmd.String()), nil
}

func (b *gitBackend) Remove(ctx context.Context, c *core.RemoveSpec) error {
	cmd, err := b.removeCmd(c)
	if err != nil {
		return core.BuilderErr(err)
	}
	if c.UnlockFirst {
		un, err := gitx.WorktreeUnlock(c.Cwd, c.Target.Path)
		if err != nil {
			return core.BuilderErr(err)
		}
		if _, err := b.s.Git.Run(ctx, un); err != nil {
			return err
		}
	}
	_, err = b.s.Git.Run(ctx, cmd)
	return err
}

// Runs: the git backend opens no window to start a command in.
func (b *gitBackend) Runs() (bool, string) { return false, "copse does not run it in the foreground" }

// RemovesLocked: git removes a locked worktree in one step.
func (b *gitBackend) RemovesLocked() bool { return true }
