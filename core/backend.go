package core

import (
	"context"
	"errors"
	"strings"

	"github.com/copse-dev/copse/herdr"
)

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
}

// errNotInHerdr is returned by newHerdrBackend when detection finds no usable Herdr;
// other detection errors are returned to the caller of pickBackend.
var errNotInHerdr = errors.New("not running inside Herdr")

// startup is what Open asks beside git's list, in parallel with it, because the choice of
// backend needs it: git config copse.backend, then, when the backend is to be tmux, tmux's
// survey of copse's session, and when it may be Herdr, Herdr's detection (`herdr
// --version`, whose answer herdr.Detect caches for newHerdrBackend). A repository that chose
// another backend runs neither.
type startup struct {
	done   chan struct{} // nil: nothing asked
	config configRead
	asked  bool        // config was read
	tmux   *tmuxSurvey // nil: not asked (or not inside a usable tmux)
}

type configRead struct {
	value string
	ok    bool
	err   error
}

// mayBeHerdr says whether the backend chosen by want (after config) may be Herdr's.
func mayBeHerdr(s *Env, want string) bool {
	return s.Opts.Getenv("HERDR_ENV") == "1" && (want == "" || want == "auto" || want == "herdr")
}

// wantsTmux says whether the backend chosen by want (after config) is tmux's.
func wantsTmux(s *Env, want string) bool {
	inHerdr := s.Opts.Getenv("HERDR_ENV") == "1"
	inTmux := s.Opts.Getenv("TMUX") != ""
	return want == "tmux" || (inTmux && !inHerdr && (want == "" || want == "auto"))
}

// startBackendReads begins the reads pickBackend will need for want, beside git's list.
func startBackendReads(ctx context.Context, s *Env, want string) *startup {
	st := &startup{}
	inHerdr := s.Opts.Getenv("HERDR_ENV") == "1"
	inTmux := s.Opts.Getenv("TMUX") != ""
	// git config copse.backend matters only where there is a choice, inside Herdr or tmux;
	// elsewhere it costs a git process on every command for nothing.
	st.asked = want == "" && (inHerdr || inTmux)
	if !st.asked && !wantsTmux(s, want) && !mayBeHerdr(s, want) {
		return st
	}
	st.done = make(chan struct{})
	go func() {
		defer close(st.done)
		w := want
		if st.asked {
			r := &st.config
			r.value, r.ok, r.err = s.Git.ConfigValue(ctx, s.dir, "copse.backend")
			if r.err != nil {
				return
			}
			if r.ok {
				w = strings.TrimSpace(r.value)
			}
		}
		if wantsTmux(s, w) {
			if st.tmux = startTmuxSurvey(ctx, s); st.tmux != nil {
				<-st.tmux.done
			}
		}
		if mayBeHerdr(s, w) {
			// The answer is herdr.Detect's cache; newHerdrBackend asks again and finds it
			// (a binary that could not be started is not cached: it is tried again there).
			_, _ = herdr.Detect(ctx, s.Opts.Getenv)
		}
	}()
	return st
}

func pickBackend(ctx context.Context, s *Env, want string, pre *startup) (Backend, error) {
	inHerdr := s.Opts.Getenv("HERDR_ENV") == "1"
	inTmux := s.Opts.Getenv("TMUX") != ""
	if pre.done != nil {
		<-pre.done
	}
	if pre.asked {
		if r := pre.config; r.err != nil {
			return nil, GitFailure(CodeConfigFailed, r.err, "cannot read git config copse.backend")
		} else if r.ok {
			want = strings.TrimSpace(r.value)
		}
	}
	switch want {
	case "", "auto":
		if inHerdr {
			b, err := newHerdrBackend(ctx, s)
			if err == nil {
				return b, nil
			}
			if !errors.Is(err, errNotInHerdr) {
				// Herdr is there but unusable (too old, broken): say so rather than
				// silently acting without workspaces.
				return nil, err
			}
		}
		if inTmux && !inHerdr {
			// Inside tmux but not Herdr (whose panes may run under a tmux of their own):
			// a tmux that does not answer is said, not silently replaced by git.
			return newTmuxBackend(ctx, s, pre.tmux)
		}
		return &gitBackend{s: s}, nil
	case "tmux":
		b, err := newTmuxBackend(ctx, s, pre.tmux)
		if errors.Is(err, errNotInTmux) {
			return nil, Usage(CodeTmuxNotDetected, "backend", "run copse inside a tmux pane (TMUX set), or use --backend git",
				"--backend tmux was asked for, but TMUX is not set: copse is not running inside tmux")
		}
		return b, err
	case "git":
		return &gitBackend{s: s}, nil
	case "herdr":
		b, err := newHerdrBackend(ctx, s)
		if err != nil {
			if errors.Is(err, errNotInHerdr) {
				return nil, Usage(CodeHerdrNotDetected, "backend", "run copse inside a Herdr pane (HERDR_ENV=1), or use --backend git",
					"--backend herdr was asked for, but %v", err)
			}
			return nil, err
		}
		return b, nil
	}
	return nil, Usage(CodeBadBackend, "backend", "use auto, git, herdr or tmux", "unknown backend %s", Quote(want))
}

// ownWindowCloser is a backend whose workspaces copse may run in and can close after copse
// ends (tmux): a land typed in the landed worktree's own window cleans it up, and the window
// closes once the reply is written, instead of the worktree being kept.
type ownWindowCloser interface {
	// ownWindow is the workspace copse runs in when it is the worktree's at path ("" else).
	ownWindow(ctx context.Context, path string) string
	// closeAfterExit closes workspace ws once copse has ended.
	closeAfterExit(ctx context.Context, ws string) error
}

// ownWindow is the backend's ownWindow, "" for a backend without one.
func (s *Env) OwnWindow(ctx context.Context, path string) string {
	if b, ok := s.Backend.(ownWindowCloser); ok {
		return b.ownWindow(ctx, path)
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
	if err := b.closeAfterExit(ctx, ws); err != nil {
		warn("the worktree's tmux window %s, where copse runs, stays open: %s; close it by hand (tmux kill-window -t %s)", ws, tmuxText(err.Error(), 200), ws)
		return
	}
	warn("copse closes tmux window %s, the worktree's window it runs in, once it has answered", ws)
}
