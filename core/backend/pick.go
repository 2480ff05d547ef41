package backend

import (
	"context"
	"errors"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/herdr"
)

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
func mayBeHerdr(s *core.Env, want string) bool {
	return s.Opts.Getenv("HERDR_ENV") == "1" && (want == "" || want == "auto" || want == "herdr")
}

// wantsTmux says whether the backend chosen by want (after config) is tmux's.
func wantsTmux(s *core.Env, want string) bool {
	inHerdr := s.Opts.Getenv("HERDR_ENV") == "1"
	inTmux := s.Opts.Getenv("TMUX") != ""
	return want == "tmux" || (inTmux && !inHerdr && (want == "" || want == "auto"))
}

// startBackendReads begins the reads pickBackend will need for want, beside git's list.
func startBackendReads(ctx context.Context, s *core.Env, want string) *startup {
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
			r.value, r.ok, r.err = s.Git.ConfigValue(ctx, s.Dir, "copse.backend")
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

func pickBackend(ctx context.Context, s *core.Env, want string, pre *startup) (core.Backend, error) {
	inHerdr := s.Opts.Getenv("HERDR_ENV") == "1"
	inTmux := s.Opts.Getenv("TMUX") != ""
	if pre.done != nil {
		<-pre.done
	}
	if pre.asked {
		if r := pre.config; r.err != nil {
			return nil, core.GitFailure(core.CodeConfigFailed, r.err, "cannot read git config copse.backend")
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
			return nil, core.Usage(core.CodeTmuxNotDetected, "backend", "run copse inside a tmux pane (TMUX set), or use --backend git",
				"--backend tmux was asked for, but TMUX is not set: copse is not running inside tmux")
		}
		return b, err
	case "git":
		return &gitBackend{s: s}, nil
	case "herdr":
		b, err := newHerdrBackend(ctx, s)
		if err != nil {
			if errors.Is(err, errNotInHerdr) {
				return nil, core.Usage(core.CodeHerdrNotDetected, "backend", "run copse inside a Herdr pane (HERDR_ENV=1), or use --backend git",
					"--backend herdr was asked for, but %v", err)
			}
			return nil, err
		}
		return b, nil
	}
	return nil, core.Usage(core.CodeBadBackend, "backend", "use auto, git, herdr or tmux", "unknown backend %s", core.Quote(want))
}

// Picker is copse's own choice of backend: Herdr inside a Herdr pane, tmux inside tmux,
// else git; git config copse.backend or --backend decide otherwise.
type Picker struct{}

// Start begins the reads the choice needs, beside git's list; the step it returns decides.
func (Picker) Start(ctx context.Context, s *core.Env, want string) func(context.Context) (core.Backend, error) {
	pre := startBackendReads(ctx, s, want)
	return func(ctx context.Context) (core.Backend, error) { return pickBackend(ctx, s, want, pre) }
}
