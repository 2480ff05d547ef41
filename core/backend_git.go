package core

import (
	"context"

	"github.com/copse-dev/copse/gitx"
	"github.com/copse-dev/copse/internal/textsafe"
)

// gitBackend works anywhere: git makes and removes worktrees, and switching hands the path
// to the shell integration (COPSE_CD_FILE) or prints it. Without workspaces, open is switch.
type gitBackend struct{ s *Env }

func (b *gitBackend) Name() string                               { return "git" }
func (b *gitBackend) HasWorkspaces() bool                        { return false }
func (b *gitBackend) Session() string                            { return "shell" }
func (b *gitBackend) Annotate(context.Context, []Worktree) error { return nil }

func (b *gitBackend) createCmd(c *CreateSpec) (gitx.Cmd, error) {
	if c.Existing {
		return gitx.WorktreeAddExisting(c.Cwd, c.Path.String(), c.Branch.String())
	}
	if c.Remote != nil {
		return gitx.WorktreeAddTrack(c.Cwd, c.Path.String(), c.Branch.String(), c.Remote.Remote, c.Remote.Name)
	}
	return gitx.WorktreeAddNew(c.Cwd, c.Path.String(), c.Branch.String(), c.Base.OID)
}

func (b *gitBackend) CreateCommands(c *CreateSpec) ([]string, error) {
	cmd, err := b.createCmd(c)
	if err != nil {
		return nil, BuilderErr(err)
	}
	return []string{cmd.String()}, nil
}

func (b *gitBackend) Create(ctx context.Context, c *CreateSpec) (string, error) {
	cmd, err := b.createCmd(c)
	if err != nil {
		return "", BuilderErr(err)
	}
	_, err = b.s.Git.Run(ctx, cmd)
	return "", err
}

// Switching runs nothing: the path goes to the shell. The "command" shown is the cd.
func (b *gitBackend) SwitchCommands(c *TargetSpec) ([]string, error) {
	return []string{"cd " + QuoteDisplay(c.Target.Path)}, nil
}
func (b *gitBackend) OpenCommands(c *TargetSpec) ([]string, error)          { return b.SwitchCommands(c) }
func (b *gitBackend) SwitchTo(context.Context, *TargetSpec) (string, error) { return "", nil }
func (b *gitBackend) Open(context.Context, *TargetSpec) (string, error)     { return "", nil }

// AgentStatus: git opens no workspaces, so there is no agent to describe.
func (b *gitBackend) AgentStatus(context.Context, string, string) string { return "" }

func (b *gitBackend) WorkspaceLive(_ context.Context, path, _ string) LiveSet {
	return LiveIn(path, "")
}

func (b *gitBackend) ClosesWorkspace(string) string { return "" }

func (b *gitBackend) Agents(context.Context, []Worktree) {}

func (b *gitBackend) removeCmd(c *RemoveSpec) (gitx.Cmd, error) {
	return gitx.WorktreeRemove(c.Cwd, c.Target.Path, c.Force, c.Target.Locked != nil)
}

func (b *gitBackend) RemoveCommands(c *RemoveSpec) ([]string, error) {
	var cmds []string
	if c.UnlockFirst {
		un, err := gitx.WorktreeUnlock(c.Cwd, c.Target.Path)
		if err != nil {
			return nil, BuilderErr(err)
		}
		cmds = append(cmds, un.String())
	}
	cmd, err := b.removeCmd(c)
	if err != nil {
		return nil, BuilderErr(err)
	}
	return append(cmds, cmd.String()), nil
}

func (b *gitBackend) Remove(ctx context.Context, c *RemoveSpec) error {
	cmd, err := b.removeCmd(c)
	if err != nil {
		return BuilderErr(err)
	}
	if c.UnlockFirst {
		un, err := gitx.WorktreeUnlock(c.Cwd, c.Target.Path)
		if err != nil {
			return BuilderErr(err)
		}
		if _, err := b.s.Git.Run(ctx, un); err != nil {
			return err
		}
	}
	_, err = b.s.Git.Run(ctx, cmd)
	return err
}

// BuilderErr: a builder refusing a value the parsers accepted is a bug, reported as bad input.
func BuilderErr(err error) *Error {
	return &Error{Kind: KindUsage, Code: CodeBadArgument, Err: err, Message: Escape(err.Error()),
		Hint: "this value passed copse's parser but not the command builder; please report it"}
}

// QuoteDisplay quotes a value for display exactly as the builders' String() does: safe
// words bare, others single-quoted, and control characters or bidirectional marks as
// $'…' escapes, so the text reads back as the same argument and cannot forge lines.
func QuoteDisplay(p string) string { return textsafe.ShellQuote(p) }
