package core

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
)

// argvLog records every git command a Service runs and lets real git answer it.
type argvLog struct {
	mu   sync.Mutex
	argv [][]string
}

func (l *argvLog) Exec(ctx context.Context, argv []string, real func(context.Context) ([]byte, error)) ([]byte, error) {
	l.mu.Lock()
	l.argv = append(l.argv, slices.Clone(argv))
	l.mu.Unlock()
	return real(ctx)
}

// commands returns the recorded commands whose git subcommand (after -C DIR and any -c
// settings) is name, each with its settings.
func (l *argvLog) commands(name string) [][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out [][]string
	for _, a := range l.argv {
		i := 3
		for i+1 < len(a) && a[i] == "-c" {
			i += 2
		}
		if i < len(a) && a[i] == name {
			out = append(out, a)
		}
	}
	return out
}

// Display statuses use git's untracked cache where the repository does not set
// core.untrackedCache, and pass nothing where it does (an explicit false wins); the setting
// is read by one git config per Service, and a status copse decides on runs with the cache
// off whatever the setting.
func TestDisplayStatusesFollowTheRepositoryUntrackedCache(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		config  string // "" = unset
		setting string // what every display status passes; "" = nothing
	}{
		{"", "core.untrackedCache=true"},
		{"false", ""},
		{"no", ""},
		{"true", ""},
		{"keep", ""},
	} {
		t.Run("config="+tc.config, func(t *testing.T) {
			t.Parallel()
			r := coretest.New(t)
			r.AddWorktree("feat/a", "a")
			r.AddWorktree("feat/b", "b")
			if tc.config != "" {
				r.Git(r.Root, "config", "core.untrackedCache", tc.config)
			}
			ctx := context.Background()
			svc, err := Open(ctx, Options{Registry: testOps, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
			if err != nil {
				t.Fatal(err)
			}
			log := &argvLog{}
			svc.impl.Git.Exec = log
			if _, err := svc.impl.List(ctx, true); err != nil {
				t.Fatal(err)
			}
			statuses := log.commands("status")
			if len(statuses) != 3 {
				t.Fatalf("%d statuses for 3 worktrees: %q", len(statuses), statuses)
			}
			for _, a := range statuses {
				got := ""
				for i, v := range a {
					if i > 0 && a[i-1] == "-c" && strings.HasPrefix(v, "core.untrackedCache=") {
						got = v
					}
				}
				if got != tc.setting {
					t.Errorf("display status %q passes %q; want %q", a, got, tc.setting)
				}
			}
			if n := len(log.commands("config")); n != 1 {
				t.Errorf("%d git config runs for one listing; want 1", n)
			}
			// A status that informs a decision (leaving a dirty worktree) has the cache off.
			svc.impl.status(ctx, r.Root)
			last := log.commands("status")
			if a := last[len(last)-1]; !slices.Contains(a, "core.untrackedCache=false") {
				t.Errorf("decision status %q does not turn the untracked cache off", a)
			}
			if n := len(log.commands("config")); n != 1 {
				t.Errorf("%d git config runs in one Service; want 1", n)
			}
		})
	}
}

// A listing the status cache answers entirely starts no git for the setting: it is read
// only when some worktree's status runs git.
func TestCachedListingReadsNoUntrackedSetting(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/a", "a")
	ctx := context.Background()
	open := func() *Service {
		svc, err := Open(ctx, Options{Registry: testOps, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	// Past the second of the last write, so the status cache may store what it reads.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 30*time.Millisecond)))
	first := open()
	firstLog := &argvLog{}
	first.impl.Git.Exec = firstLog
	if _, err := first.impl.List(ctx, true); err != nil {
		t.Fatal(err)
	}
	if n := len(firstLog.commands("config")); n != 1 {
		t.Fatalf("the first listing ran git config %d times; want 1", n)
	}
	second := open()
	log := &argvLog{}
	second.impl.Git.Exec = log
	if _, err := second.impl.List(ctx, true); err != nil {
		t.Fatal(err)
	}
	if st := log.commands("status"); len(st) != 0 {
		t.Fatalf("the second listing ran git status %q: the cache did not answer, the test proves nothing", st)
	}
	if c := log.commands("config"); len(c) != 0 {
		t.Fatalf("a fully cached listing read the setting: %q", c)
	}
}
