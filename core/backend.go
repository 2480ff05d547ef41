package core

import (
	"context"

	"github.com/copse-dev/copse/core/notify"
)

// Backends is how Open finds the backend a Service works through (core/backend's
// Backends): Start begins, beside git's list, the reads the choice needs (git config
// copse.backend, tmux's survey, Herdr's detection) and returns the step that waits for
// them and decides. It is handed to core with the operations (Registry.WithBackends), so
// core names no backend.
type Backends interface {
	Start(ctx context.Context, s *Env, want string) (pick func(ctx context.Context) (Backend, error))
}

// Backend carries out mutations; the engine owns parsing, preconditions, locking and
// postconditions (always read back from git), so every backend gets the same guarantees.
type Backend interface {
	Name() string
	HasWorkspaces() bool
	// session is the history key of this process under the backend.
	Session() string
	// annotate adds what the backend knows to git's rows (Herdr: open workspace ids).
	Annotate(ctx context.Context, rows []Worktree) error
	// agentStatus describes the agent of workspace ws, which shows the worktree at path, for
	// a message about the processes working there ("" when the backend has no
	// workspaces). It never fails: what it cannot tell it says.
	AgentStatus(ctx context.Context, ws, path string) string
	// workspaceLive scans for the processes a remove of the worktree at path, open in
	// workspace ws ("" when none), would take the floor from or end.
	WorkspaceLive(ctx context.Context, path, ws string) LiveSet
	// closesWorkspace is the remove confirmation's line about closing workspace ws.
	ClosesWorkspace(ws string) string
	// agents adds to rows (annotated) what runs in their workspaces. It never fails: a
	// backend that cannot tell adds an AgentUnknown entry for the workspace.
	Agents(ctx context.Context, rows []Worktree)

	// The exact commands each mutation would run (dry run and plans).
	CreateCommands(c *CreateSpec) ([]string, error)
	OpenCommands(c *TargetSpec) ([]string, error)
	SwitchCommands(c *TargetSpec) ([]string, error)
	RemoveCommands(c *RemoveSpec) ([]string, error)

	// The mutations. They return the workspace id involved, if any. A returned *Error keeps
	// its kind (refused, uncertain); any other error is reconciled by the engine with git.
	Create(ctx context.Context, c *CreateSpec) (workspace string, err error)
	Open(ctx context.Context, c *TargetSpec) (workspace string, err error)
	SwitchTo(ctx context.Context, c *TargetSpec) (workspace string, err error)
	Remove(ctx context.Context, c *RemoveSpec) error

	// Runs says whether the backend starts a create --run command in the new worktree's
	// workspace (tmux), and, when it does not, why (for the refusal).
	Runs() (ok bool, why string)
	// RemovesLocked says whether the backend removes a worktree git has locked (git and
	// tmux do, in one step; Herdr refuses, whatever --force says).
	RemovesLocked() bool
}

// SessionMemory is a backend whose terminal session remembers where back goes (tmux): Open
// seeds the history from it, and a newer reading of the list drops what it listed beside
// Open's.
type SessionMemory interface {
	SeedHistory(ctx context.Context, snap Snapshot)
	DropFirst()
}

// OwnPane is a backend that knows the workspace copse itself runs in (tmux's window),
// for the agent events copse logs about it.
type OwnPane interface{ Pane() string }

// Notifier is a backend that can tell a person at a workspace that an agent needs them
// (tmux: the bell and OSC notifications of core/notify).
type Notifier interface {
	NotifyTarget(pane string, mode notify.Mode) notify.Target
}

// NativeWorkspaceIDs is a backend whose workspace ids are its own form (tmux's @N), taken
// as they are rather than parsed as copse's.
type NativeWorkspaceIDs interface{ IsWorkspaceID(raw string) bool }

// ownWindowCloser is a backend whose workspaces copse may run in and can close after copse
// ends (tmux): a land typed in the landed worktree's own window cleans it up, and the window
// closes once the reply is written, instead of the worktree being kept.
type ownWindowCloser interface {
	// OwnWindow is the workspace copse runs in when it is the worktree's at path ("" else).
	OwnWindow(ctx context.Context, path string) string
	// CloseAfterExit closes workspace ws once copse has ended.
	CloseAfterExit(ctx context.Context, ws string) error
}

// ownWindow is the backend's ownWindow, "" for a backend without one.
func (s *Env) OwnWindow(ctx context.Context, path string) string {
	if b, ok := s.Backend.(ownWindowCloser); ok {
		return b.OwnWindow(ctx, path)
	}
	return ""
}

// closeOwnWindow has workspace ws close once copse has ended, and says so (warn): the
// person's window is about to go.
func (s *Env) CloseOwnWindow(ctx context.Context, ws string, warn func(string, ...any)) {
	b, ok := s.Backend.(ownWindowCloser)
	if !ok {
		return
	}
	if err := b.CloseAfterExit(ctx, ws); err != nil {
		warn("the worktree's tmux window %s, where copse runs, stays open: %s; close it by hand (tmux kill-window -t %s)", ws, TmuxText(err.Error(), 200), ws)
		return
	}
	warn("copse closes tmux window %s, the worktree's window it runs in, once it has answered", ws)
}
