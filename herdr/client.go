package herdr

import (
	"context"
	"fmt"
)

// List runs `herdr worktree list --cwd <cwd>`; the reply must be worktree_list.
func (c *Client) List(ctx context.Context, cwd string) (ListResult, error) {
	var r ListResult
	cmd, err := ListCmd(cwd)
	if err != nil {
		return r, err
	}
	err = c.call(ctx, cmd, TypeList, &r, func() string {
		if r.Worktrees == nil {
			return "no worktrees array"
		}
		for _, w := range r.Worktrees {
			if w.Path == "" {
				return "a worktree without a path"
			}
		}
		return ""
	})
	return r, err
}

// Workspaces runs `herdr workspace list`; the reply must be workspace_list, and every
// workspace in it must have an id and an agent_status (both required in Herdr's schema).
func (c *Client) Workspaces(ctx context.Context) ([]WorkspaceInfo, error) {
	var r WorkspaceListResult
	cmd, err := WorkspaceListCmd()
	if err != nil {
		return nil, err
	}
	err = c.call(ctx, cmd, TypeWorkspaceList, &r, func() string {
		if r.Workspaces == nil {
			return "no workspaces array"
		}
		for _, w := range r.Workspaces {
			switch {
			case w.WorkspaceID == "":
				return "a workspace without a workspace_id"
			case w.AgentStatus == "":
				return "workspace " + quote(w.WorkspaceID, 40) + " without an agent_status"
			}
		}
		return ""
	})
	if err != nil {
		return nil, err
	}
	return r.Workspaces, nil
}

// Create runs `herdr worktree create`; the reply must be worktree_created.
func (c *Client) Create(ctx context.Context, a CreateArgs) (OpenResult, error) {
	cmd, err := CreateCmd(a)
	if err != nil {
		return OpenResult{}, err
	}
	return c.openLike(ctx, cmd, TypeCreated)
}

// Open runs `herdr worktree open`; the reply must be worktree_opened.
func (c *Client) Open(ctx context.Context, a OpenArgs) (OpenResult, error) {
	cmd, err := OpenCmd(a)
	if err != nil {
		return OpenResult{}, err
	}
	return c.openLike(ctx, cmd, TypeOpened)
}

func (c *Client) openLike(ctx context.Context, cmd Cmd, want string) (OpenResult, error) {
	var r OpenResult
	err := c.call(ctx, cmd, want, &r, func() string {
		switch {
		case r.Workspace.WorkspaceID == "":
			return "no workspace.workspace_id"
		case r.Worktree.Path == "":
			return "no worktree.path"
		}
		return ""
	})
	return r, err
}

// Remove runs `herdr worktree remove --workspace <ws> [--force]`; the reply must be
// worktree_removed, about that workspace.
func (c *Client) Remove(ctx context.Context, ws string, force bool) (RemoveResult, error) {
	var r RemoveResult
	cmd, err := RemoveCmd(ws, force)
	if err != nil {
		return r, err
	}
	err = c.call(ctx, cmd, TypeRemoved, &r, func() string {
		switch {
		case r.Path == "":
			return "no path"
		case r.WorkspaceID != "" && r.WorkspaceID != ws:
			return fmt.Sprintf("it names workspace %s, not %s", quote(r.WorkspaceID, 40), ws)
		}
		return ""
	})
	return r, err
}

// call runs cmd and decodes its result into v; check names a missing required field.
func (c *Client) call(ctx context.Context, cmd Cmd, want string, v any, check func() string) error {
	out, err := c.Run(ctx, cmd)
	if err != nil {
		return err
	}
	if err := decodeResult(out, want, v); err != nil {
		return &Error{Kind: ErrWrongReply, Message: err.Error(), ExitCode: 0, Argv: c.argv(cmd), Started: true, Err: err}
	}
	if why := check(); why != "" {
		return &Error{Kind: ErrWrongReply, Message: "the " + want + " reply has " + why, ExitCode: 0, Argv: c.argv(cmd), Started: true}
	}
	return nil
}

func (c *Client) argv(cmd Cmd) []string {
	a := cmd.Argv()
	a[0] = c.Bin
	return a
}
