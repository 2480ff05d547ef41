package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
	"github.com/copse-dev/copse/herdr/herdrdouble"
	"github.com/copse-dev/copse/internal/testexec"
)

// The Herdr backend, through the test double (herdr/herdrdouble/cmd/herdrdouble) and real git in temp repos.

// TestMain makes the process's git config unreadable (coretest.Main), so a git that missed
// Options.Env fails; it deletes the Herdr double afterwards.
func TestMain(m *testing.M) {
	code := coretest.Main(m)
	herdrdouble.Cleanup()
	os.Exit(code)
}

var bg = context.Background()

// hw is a repository with the double as its Herdr.
type hw struct {
	*coretest.Repo
	fake  string // the built double
	bin   string // HERDR_BIN_PATH: a wrapper around the double, one per test (see wrapper)
	state string // the double's state file (outside Base, so Snapshot ignores it)
	log   string // FAKE_HERDR_LOG: one JSON line per invocation
}

// wrapper runs the double, but when COPSE_TEST_ACTION names a worktree action, the knobs
// apply to that action only (so a remove can fail while the list before it works; commands
// other than worktree ones, such as workspace list, always keep them), and
// COPSE_TEST_USAGE=<action> makes that action fail as a local usage error (exit 2).
const wrapper = `#!/bin/sh
if [ "$1" = worktree ] && [ -n "$COPSE_TEST_USAGE" ] && [ "$2" = "$COPSE_TEST_USAGE" ]; then
  echo "unknown option: --from-the-future" >&2
  exit 2
fi
if [ "$1" = worktree ] && [ -n "$COPSE_TEST_ACTION" ] && [ "$2" != "$COPSE_TEST_ACTION" ]; then
  unset FAKE_HERDR_ERROR FAKE_HERDR_DELAY FAKE_HERDR_DELAY_AFTER FAKE_HERDR_LIE FAKE_HERDR_SERVER_DOWN FAKE_HERDR_IO_ERROR
fi
exec "@FAKE@" "$@"
`

func newHW(t *testing.T) *hw {
	t.Helper()
	r := coretest.New(t)
	dir := t.TempDir()
	w := &hw{Repo: r, fake: herdrdouble.Build(t), state: filepath.Join(dir, "state.json"), log: filepath.Join(dir, "invocations")}
	// A binary path of its own per test: herdr.Detect caches per path for ten minutes.
	w.bin = filepath.Join(dir, "herdr")
	if err := testexec.WriteFile(w.bin, []byte(strings.Replace(wrapper, "@FAKE@", w.fake, 1)), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// getenv is a Herdr pane's environment (HERDR_ENV=1, HERDR_BIN_PATH) over the repo's.
func (w *hw) getenv(over map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := over[k]; ok {
			return v
		}
		switch k {
		case "HERDR_ENV":
			return "1"
		case "HERDR_BIN_PATH":
			return w.bin
		}
		return w.Repo.Getenv(k)
	}
}

// knobs is the double's environment over the repository's (coretest.Env): its state file,
// log and knobs, applied to action only when action is set.
func (w *hw) knobs(k herdrdouble.Knobs, action string) []string {
	k.Log = w.log
	env := coretest.Env(w.Home)
	for _, kv := range herdrdouble.Env(w.fake, w.state, k) {
		if strings.HasPrefix(kv, "FAKE_HERDR_") {
			env = append(env, kv)
		}
	}
	return append(env, "COPSE_TEST_ACTION="+action)
}

type hwOpt func(*core.Options)

func withTimeout(d time.Duration) hwOpt { return func(o *core.Options) { o.Timeout = d } }
func withEnv(kv ...string) hwOpt        { return func(o *core.Options) { o.Env = append(o.Env, kv...) } }

// open opens a Service in dir under backend auto with the double; knobs apply to action.
func (w *hw) open(t *testing.T, dir string, k herdrdouble.Knobs, action string, opts ...hwOpt) *core.Service {
	t.Helper()
	o := core.Options{Registry: ops.All, Dir: dir, Backend: "auto", Getenv: w.getenv(nil), Env: w.knobs(k, action)}
	for _, f := range opts {
		f(&o)
	}
	s, err := core.Open(bg, o)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if s.BackendName() != "herdr" || !s.HasWorkspaces() {
		t.Fatalf("backend %s, want herdr", s.BackendName())
	}
	return s
}

func (w *hw) plain(t *testing.T) *core.Service { return w.open(t, w.Root, herdrdouble.Knobs{}, "") }

// create makes a worktree with an open workspace through the double.
func (w *hw) create(t *testing.T, branch string) (path, ws string) {
	t.Helper()
	out, err := do(t, w.plain(t), core.CreateRequest{Branch: branch})
	if err != nil {
		t.Fatalf("create %s: %v", branch, err)
	}
	return out.Path, out.WorkspaceID
}

func (w *hw) readState(t *testing.T) herdrdouble.State {
	t.Helper()
	return herdrdouble.ReadState(t, w.state)
}

// wsOf is the workspace the double has open on path ("" when none).
func (w *hw) wsOf(t *testing.T, path string) string {
	t.Helper()
	for _, x := range w.readState(t).Workspaces {
		if x.Checkout == path {
			return x.ID
		}
	}
	return ""
}

// calls is the argv of every `herdr worktree <action>` the double ran, in order.
func (w *hw) calls(t *testing.T, action string) [][]string {
	t.Helper()
	b, err := os.ReadFile(w.log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct{ Argv []string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if len(rec.Argv) >= 2 && rec.Argv[0] == "worktree" && rec.Argv[1] == action {
			out = append(out, rec.Argv)
		}
	}
	return out
}

// flag returns the value following --name in argv ("" when absent); has reports a flag.
func flag(argv []string, name string) string {
	if i := slices.Index(argv, "--"+name); i >= 0 && i+1 < len(argv) {
		return argv[i+1]
	}
	return ""
}
func has(argv []string, name string) bool { return slices.Contains(argv, "--"+name) }

func gitLists(t *testing.T, r *coretest.Repo, path string) bool {
	t.Helper()
	return strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), "worktree "+path+"\n")
}

func wantExit(t *testing.T, err error, code int) {
	t.Helper()
	if got := core.ExitCode(err); got != code {
		t.Fatalf("exit code %d, want %d: %v", got, code, err)
	}
}

// ---- detection

func TestHerdrDetectionVersions(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	fake := herdrdouble.Build(t)
	// One binary path per version: detection is cached per path. The path is a script that
	// sets the version knob: `herdr --version` runs with the process environment, before
	// Options.Env is in play, and the tests beside this one must not see the knob.
	link := func(v string) string {
		p := filepath.Join(t.TempDir(), "herdr-"+v)
		script := "#!/bin/sh\nFAKE_HERDR_VERSION='" + v + "' exec '" + fake + "' \"$@\"\n"
		if err := testexec.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := func(bin string) func(string) string {
		return func(k string) string {
			switch k {
			case "HERDR_ENV":
				return "1"
			case "HERDR_BIN_PATH":
				return bin
			}
			return r.Getenv(k)
		}
	}
	for _, tc := range []struct {
		version string
		ok      bool
	}{{"0.7.0", false}, {"0.8.1", false}, {"0.8.2", true}, {"0.8.2-preview.17", true}, {"0.9.3", true}} {
		t.Run(tc.version, func(t *testing.T) {
			bin := link(tc.version)
			for _, backend := range []string{"", "auto", "herdr"} {
				s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: r.Root, Backend: backend, Getenv: env(bin), Env: coretest.Env(r.Home)})
				if tc.ok {
					if err != nil || s.BackendName() != "herdr" {
						t.Fatalf("backend %q: %v", backend, err)
					}
					continue
				}
				wantCode(t, err, core.KindFailed, "herdr_too_old")
				if !strings.Contains(err.Error(), "0.8.2") || !strings.Contains(err.Error(), tc.version) || !strings.Contains(err.Error(), "--backend git") {
					t.Fatalf("message must name the found and the required version and a way out: %v", err)
				}
			}
			// --backend git never asks Herdr.
			s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: env(bin), Env: coretest.Env(r.Home)})
			if err != nil || s.BackendName() != "git" {
				t.Fatalf("git: %v", err)
			}
		})
	}
}

func TestHerdrDetectionOutsideHerdr(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	// HERDR_BIN_PATH is a program that leaves a mark when anything starts it, `herdr
	// --version` included (which gets the process environment, not the double's log knob).
	started := filepath.Join(t.TempDir(), "started")
	bin := filepath.Join(t.TempDir(), "herdr")
	coretest.WriteFile(t, bin, "#!/bin/sh\ntouch '"+started+"'\nexec '"+w.fake+"' \"$@\"\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	noEnv := w.getenv(map[string]string{"HERDR_ENV": "", "HERDR_BIN_PATH": bin})
	for _, backend := range []string{"", "auto"} {
		s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: w.Root, Backend: backend, Getenv: noEnv, Env: coretest.Env(w.Home)})
		if err != nil || s.BackendName() != "git" || s.HasWorkspaces() {
			t.Fatalf("auto outside Herdr: %v", err)
		}
		if s.Session() != "shell" {
			t.Fatalf("session %q", s.Session())
		}
	}
	_, err := core.Open(bg, core.Options{Registry: ops.All, Dir: w.Root, Backend: "herdr", Getenv: noEnv, Env: coretest.Env(w.Home)})
	wantCode(t, err, core.KindUsage, "herdr_not_detected")
	wantExit(t, err, 2)
	if !strings.Contains(err.Error(), "HERDR_ENV") {
		t.Fatalf("say why: %v", err)
	}
	if _, err := os.Stat(started); !os.IsNotExist(err) {
		t.Fatal("herdr was started although HERDR_ENV is unset")
	}
}

func TestHerdrDetectionBrokenBinary(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	missing := w.getenv(map[string]string{"HERDR_BIN_PATH": filepath.Join(t.TempDir(), "nope")})
	_, err := core.Open(bg, core.Options{Registry: ops.All, Dir: w.Root, Getenv: missing, Env: coretest.Env(w.Home)})
	wantCode(t, err, core.KindFailed, "herdr_unusable")
	relative := w.getenv(map[string]string{"HERDR_BIN_PATH": "bin/herdr"})
	_, err = core.Open(bg, core.Options{Registry: ops.All, Dir: w.Root, Backend: "herdr", Getenv: relative, Env: coretest.Env(w.Home)})
	wantCode(t, err, core.KindFailed, "herdr_unusable")
}

func TestHerdrSession(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	for id, want := range map[string]string{"wG": "wG", "": "herdr", "w:bad": "herdr"} {
		s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: w.Root, Getenv: w.getenv(map[string]string{"HERDR_WORKSPACE_ID": id}), Env: w.knobs(herdrdouble.Knobs{}, "")})
		if err != nil {
			t.Fatal(err)
		}
		if s.Session() != want {
			t.Fatalf("HERDR_WORKSPACE_ID=%q: session %q, want %q", id, s.Session(), want)
		}
	}
}

// A bare repository has no main work tree to scope Herdr with: auto falls back to git,
// --backend herdr says why.
func TestHerdrBareRepository(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	bare := filepath.Join(w.Base, "bare.git")
	w.Git(w.Base, "clone", "-q", "--bare", w.Root, bare)
	wt := filepath.Join(w.Base, "bare-wt")
	w.Git(bare, "worktree", "add", "-q", wt, "main")
	s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: wt, Getenv: w.getenv(nil), Env: w.knobs(herdrdouble.Knobs{}, "")})
	if err != nil || s.BackendName() != "git" {
		t.Fatalf("auto in a bare repository: %v", err)
	}
	_, err = core.Open(bg, core.Options{Registry: ops.All, Dir: wt, Backend: "herdr", Getenv: w.getenv(nil), Env: coretest.Env(w.Home)})
	wantCode(t, err, core.KindUsage, "herdr_not_detected")
	if !strings.Contains(err.Error(), "bare") {
		t.Fatalf("%v", err)
	}
}

// ---- list

func TestHerdrList(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, ws := w.create(t, "feat/x")
	byGit := w.AddWorktree("plain", "plain")
	l, err := w.plain(t).List(bg, true)
	if err != nil {
		t.Fatal(err)
	}
	if l.Backend != "herdr" || len(l.Worktrees) != 3 {
		t.Fatalf("listing %+v", l)
	}
	got := map[string]string{}
	for _, r := range l.Worktrees {
		if r.WorkspaceID != nil {
			got[r.Path] = *r.WorkspaceID
		}
	}
	// The main checkout's workspace was opened by the create (Herdr #4032).
	if got[path] != ws || got[w.Root] != w.wsOf(t, w.Root) || got[w.Root] == "" || got[byGit] != "" {
		t.Fatalf("workspace ids %v (created %s in %s)", got, path, ws)
	}
	for _, c := range w.calls(t, "list") {
		if flag(c, "cwd") != w.Root {
			t.Fatalf("list not scoped with --cwd <main>: %q", c)
		}
	}
}

// Paths are matched canonically: copse started through a symlink still sees workspaces.
func TestHerdrListThroughSymlink(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, ws := w.create(t, "feat/x")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(w.Root, link); err != nil {
		t.Fatal(err)
	}
	l, err := w.open(t, link, herdrdouble.Knobs{}, "").List(bg, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range l.Worktrees {
		if r.Path == path && (r.WorkspaceID == nil || *r.WorkspaceID != ws) {
			t.Fatalf("row %+v", r)
		}
	}
}

// A failing Herdr list still shows git's rows (git is the truth) with a warning that says
// plainly why workspace ids are missing; it never passes for "no workspaces open".
func TestHerdrListFailures(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	w.create(t, "feat/x")
	cases := []struct {
		knobs herdrdouble.Knobs
		code  string
		text  string
	}{
		{herdrdouble.Knobs{ServerDown: true}, "herdr_not_running", "start herdr, or use --backend git"},
		{herdrdouble.Knobs{IOError: true}, "herdr_failed", "ConnectionReset"},
		{herdrdouble.Knobs{Error: "worktree_list_failed"}, "herdr_list_failed", "worktree_list_failed"},
		{herdrdouble.Knobs{Lie: herdrdouble.LieWrongType}, "herdr_bad_reply", "workspace_list"},
	}
	for _, tc := range cases {
		t.Run(tc.code, func(t *testing.T) {
			l, err := w.open(t, w.Root, tc.knobs, "").List(bg, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Worktrees) != 2 || len(l.Warnings) != 1 {
				t.Fatalf("rows %d warnings %q", len(l.Worktrees), l.Warnings)
			}
			if !strings.Contains(l.Warnings[0], tc.text) || !strings.Contains(l.Warnings[0], "herdr worktree list") ||
				!strings.HasPrefix(l.Warnings[0], "workspace ids unavailable") {
				t.Fatalf("%q", l.Warnings)
			}
			for _, r := range l.Worktrees {
				if r.WorkspaceID != nil {
					t.Fatalf("row %s shows a workspace although Herdr could not be asked", r.Path)
				}
			}
		})
	}
}

// ---- create

func TestHerdrCreate(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	s := w.plain(t)
	base := w.Git(w.Root, "rev-parse", "HEAD")
	want := filepath.Join(w.Base, "app.worktrees", "feat-login")

	p, err := s.Prepare(bg, core.CreateRequest{Branch: "feat/login"})
	if err != nil {
		t.Fatal(err)
	}
	dry := "herdr worktree create --cwd " + w.Root + " --branch feat/login --base " + base + " --path " + want + " --no-focus"
	if len(p.Commands) != 1 || p.Commands[0] != dry || s.DryRun(p).Commands[0] != dry {
		t.Fatalf("dry run %q\nwant %q", p.Commands, dry)
	}
	out, err := s.Execute(bg, p)
	if err != nil {
		t.Fatal(err)
	}
	if out.Path != want || out.WorkspaceID == "" || out.WorkspaceID != w.wsOf(t, want) ||
		out.Worktree.WorkspaceID == nil || *out.Worktree.WorkspaceID != out.WorkspaceID {
		t.Fatalf("outcome %+v", out)
	}
	if !gitLists(t, w.Repo, want) || w.Git(want, "rev-parse", "HEAD") != base || w.Git(want, "branch", "--show-current") != "feat/login" {
		t.Fatal("git does not list the worktree at the base on its branch")
	}
	calls := w.calls(t, "create")
	if len(calls) != 1 || !slices.Equal(calls[0], strings.Fields(dry)[1:]) {
		t.Fatalf("ran %q, want %q", calls, dry)
	}
	if w.readState(t).Focused != "" {
		t.Fatal("focused without --focus")
	}
}

func TestHerdrCreateLabelFocusBaseAndExistingBranch(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	first := w.Git(w.Root, "rev-parse", "HEAD")
	w.Write("more.txt", "more")
	w.Git(w.Root, "add", ".")
	w.Git(w.Root, "commit", "-qm", "more")
	s := w.plain(t)
	path := filepath.Join(w.Base, "elsewhere", "x")
	out, err := do(t, s, core.CreateRequest{Branch: "x", Base: core.Str("HEAD~1"), Path: core.Str(path), Label: core.Str("Agent 1"), Focus: true})
	if err != nil {
		t.Fatal(err)
	}
	st := w.readState(t)
	if out.Path != path || st.Focused != out.WorkspaceID || len(out.Warnings) != 0 {
		t.Fatalf("outcome %+v, focused %s", out, st.Focused)
	}
	if i := st.Find(out.WorkspaceID); i < 0 || st.Workspaces[i].Label != "Agent 1" {
		t.Fatalf("label not set: %+v", st)
	}
	c := w.calls(t, "create")[0]
	if flag(c, "base") != first || flag(c, "path") != path || flag(c, "label") != "Agent 1" || !has(c, "focus") || has(c, "no-focus") {
		t.Fatalf("argv %q", c)
	}
	if w.Git(path, "rev-parse", "HEAD") != first {
		t.Fatal("not at the base")
	}
	// An existing branch: --base is its tip (Herdr ignores it), the checkout is that tip.
	w.Git(w.Root, "branch", "old", first)
	out, err = do(t, s, core.CreateRequest{Branch: "old"})
	if err != nil {
		t.Fatal(err)
	}
	if c := w.calls(t, "create")[1]; flag(c, "base") != first || flag(c, "branch") != "old" || flag(c, "path") != out.Path {
		t.Fatalf("argv %q", c)
	}
	if !gitLists(t, w.Repo, out.Path) || out.Worktree.Head != first {
		t.Fatalf("outcome %+v", out)
	}
}

// Forced error codes: a clear refusal or failure, and nothing changed.
func TestHerdrCreateForcedErrors(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	w.create(t, "warmup") // the parent workspace is open; state settles
	cases := []struct {
		code, wantCode, hint string
	}{
		{"worktree_create_failed", "herdr_create_failed", ""},
		{"worktree_operation_in_progress", "herdr_busy", "wait"},
		{"protocol_mismatch", "herdr_protocol_mismatch", "restart herdr"},
		{"linked_worktree_source", "herdr_create_failed", "--cwd"},
		{"server_not_running", "herdr_not_running", "start herdr, or use --backend git"},
		{"some_future_code", "herdr_create_failed", ""},
	}
	for _, tc := range cases {
		t.Run(tc.code, func(t *testing.T) {
			s := w.open(t, w.Root, herdrdouble.Knobs{Error: tc.code}, "create")
			before := w.Snapshot()
			stBefore := w.readState(t)
			_, err := do(t, s, core.CreateRequest{Branch: "feat/" + tc.code})
			var e *core.Error
			if !errors.As(err, &e) || e.Kind != core.KindFailed || e.Code != tc.wantCode || !strings.Contains(e.Hint, tc.hint) {
				t.Fatalf("want failed %s, got %#v", tc.wantCode, err)
			}
			wantExit(t, err, 1)
			if tc.code != "server_not_running" && !strings.Contains(err.Error(), tc.code) {
				t.Fatalf("name Herdr's code: %v", err)
			}
			w.Unchanged(before)
			if len(w.readState(t).Workspaces) != len(stBefore.Workspaces) {
				t.Fatal("workspaces changed")
			}
		})
	}
	// Server down with a fresh state (nothing open yet).
	t.Run("server down", func(t *testing.T) {
		s := w.open(t, w.Root, herdrdouble.Knobs{ServerDown: true}, "create")
		before := w.Snapshot()
		_, err := do(t, s, core.CreateRequest{Branch: "down"})
		wantCode(t, err, core.KindFailed, "herdr_not_running")
		w.Unchanged(before)
	})
}

func TestHerdrCreateLies(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	t.Run("no_git", func(t *testing.T) {
		before := w.Snapshot()
		_, err := do(t, w.open(t, w.Root, herdrdouble.Knobs{Lie: herdrdouble.LieNoGit}, "create"), core.CreateRequest{Branch: "nogit"})
		wantCode(t, err, core.KindUncertain, "create_not_listed")
		wantExit(t, err, 3)
		w.Unchanged(before)
	})
	t.Run("wrong_type", func(t *testing.T) {
		_, err := do(t, w.open(t, w.Root, herdrdouble.Knobs{Lie: herdrdouble.LieWrongType}, "create"), core.CreateRequest{Branch: "wrongtype"})
		var e *core.Error
		if !errors.As(err, &e) || e.Kind != core.KindUncertain {
			t.Fatalf("want uncertain, got %v", err)
		}
		wantExit(t, err, 3)
		if !gitLists(t, w.Repo, filepath.Join(w.Base, "app.worktrees", "wrongtype")) {
			t.Fatal("the double did the work; git should list it")
		}
	})
	t.Run("other_path", func(t *testing.T) {
		_, err := do(t, w.open(t, w.Root, herdrdouble.Knobs{Lie: herdrdouble.LieOtherPath}, "create"), core.CreateRequest{Branch: "otherpath"})
		var e *core.Error
		if !errors.As(err, &e) || e.Kind != core.KindUncertain || !strings.Contains(err.Error(), "elsewhere") {
			t.Fatalf("want uncertain naming the other path, got %v", err)
		}
		wantExit(t, err, 3)
	})
}

// Killed at the timeout before acting: reconciled by listing, nothing changed → failed.
func TestHerdrCreateTimeoutBeforeActing(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	s := w.open(t, w.Root, herdrdouble.Knobs{Delay: time.Minute}, "create", withTimeout(2*time.Second))
	before := w.Snapshot()
	start := time.Now()
	_, err := do(t, s, core.CreateRequest{Branch: "slow"})
	wantCode(t, err, core.KindFailed, "herdr_timeout")
	wantExit(t, err, 1)
	if time.Since(start) > 30*time.Second {
		t.Fatal("not killed at the timeout")
	}
	if !strings.Contains(err.Error(), "copse list") {
		t.Fatalf("hint: %v", err)
	}
	w.Unchanged(before)
}

// Killed at the timeout after acting: git changed → uncertain, exit 3.
func TestHerdrCreateTimeoutAfterActing(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	s := w.open(t, w.Root, herdrdouble.Knobs{DelayAfter: time.Minute}, "create", withTimeout(5*time.Second))
	_, err := do(t, s, core.CreateRequest{Branch: "late"})
	wantCode(t, err, core.KindUncertain, "create_uncertain")
	wantExit(t, err, 3)
	if !gitLists(t, w.Repo, filepath.Join(w.Base, "app.worktrees", "late")) {
		t.Fatal("git should list the worktree")
	}
}

func TestHerdrUsageIsABug(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	s := w.open(t, w.Root, herdrdouble.Knobs{}, "", withEnv("COPSE_TEST_USAGE=create"))
	before := w.Snapshot()
	_, err := do(t, s, core.CreateRequest{Branch: "x"})
	wantCode(t, err, core.KindFailed, "herdr_usage_bug")
	if !strings.Contains(err.Error(), "bug in copse") || !strings.Contains(err.Error(), "--from-the-future") {
		t.Fatalf("%v", err)
	}
	w.Unchanged(before)
}

// ---- open, switch, back

func TestHerdrOpen(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	a := w.AddWorktree("a", "a") // made by git: no workspace yet
	s := w.plain(t)

	p, err := s.Prepare(bg, core.OpenRequest{Branch: core.Str("a")})
	if err != nil {
		t.Fatal(err)
	}
	dry := "herdr worktree open --cwd " + w.Root + " --path " + a + " --no-focus"
	if len(p.Commands) != 1 || p.Commands[0] != dry {
		t.Fatalf("dry run %q, want %q", p.Commands, dry)
	}
	out, err := s.Execute(bg, p)
	if err != nil {
		t.Fatal(err)
	}
	ws := w.wsOf(t, a)
	if ws == "" || out.WorkspaceID != ws || out.Path != a || w.readState(t).Focused != "" {
		t.Fatalf("open by branch: %+v (state ws %q)", out, ws)
	}
	// By path, with a label and focus: the same workspace, now focused and labelled.
	out, err = do(t, s, core.OpenRequest{Path: core.Str(a), Label: core.Str("A"), Focus: true})
	if err != nil {
		t.Fatal(err)
	}
	st := w.readState(t)
	if out.WorkspaceID != ws || st.Focused != ws || st.Workspaces[st.Find(ws)].Label != "A" {
		t.Fatalf("open by path: %+v, state %+v", out, st)
	}
	calls := w.calls(t, "open")
	if len(calls) != 2 || flag(calls[1], "path") != a || !has(calls[1], "focus") || flag(calls[1], "label") != "A" || flag(calls[1], "cwd") != w.Root {
		t.Fatalf("argv %q", calls)
	}
	// Opening the current worktree is fine under Herdr (it has a workspace to show).
	if _, err := do(t, s, core.OpenRequest{Path: core.Str(w.Root)}); err != nil {
		t.Fatal(err)
	}
}

func TestHerdrSwitchAndBack(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	a := w.AddWorktree("a", "a")
	b, wsB := w.create(t, "b")
	s := w.plain(t)

	p, err := s.Prepare(bg, core.SwitchRequest{Branch: core.Str("a")})
	if err != nil {
		t.Fatal(err)
	}
	if want := "herdr worktree open --cwd " + w.Root + " --path " + a + " --focus"; len(p.Commands) != 1 || p.Commands[0] != want {
		t.Fatalf("dry run %q, want %q", p.Commands, want)
	}
	out, err := s.Execute(bg, p)
	wsA := w.wsOf(t, a)
	if err != nil || out.Path != a || out.WorkspaceID != wsA || w.readState(t).Focused != wsA {
		t.Fatalf("switch a: %+v %v", out, err)
	}
	out, err = do(t, s, core.SwitchRequest{Path: core.Str(b)})
	if err != nil || out.WorkspaceID != wsB || w.readState(t).Focused != wsB {
		t.Fatalf("switch b: %+v %v", out, err)
	}
	_, err = do(t, s, core.SwitchRequest{Path: core.Str(b)})
	wantCode(t, err, core.KindRefused, "already_here")

	// back focuses the workspace that holds the previous worktree.
	p, err = s.Prepare(bg, core.BackRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "herdr worktree open --cwd " + w.Root + " --path " + a + " --focus"; p.Commands[0] != want {
		t.Fatalf("back dry run %q", p.Commands)
	}
	out, err = s.Execute(bg, p)
	if err != nil || out.Path != a || out.WorkspaceID != wsA || w.readState(t).Focused != wsA {
		t.Fatalf("back: %+v %v", out, err)
	}
	calls := w.calls(t, "open")
	last := calls[len(calls)-1]
	if flag(last, "path") != a || !has(last, "focus") {
		t.Fatalf("back ran %q", last)
	}
	out, err = do(t, s, core.BackRequest{})
	if err != nil || out.Path != w.Root || w.readState(t).Focused != w.wsOf(t, w.Root) {
		t.Fatalf("back to main: %+v %v", out, err)
	}
}

func TestHerdrOpenFailures(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	a := w.AddWorktree("a", "a")
	b, wsB := w.create(t, "b")

	t.Run("forced error", func(t *testing.T) {
		_, err := do(t, w.open(t, w.Root, herdrdouble.Knobs{Error: "worktree_open_failed"}, "open"), core.OpenRequest{Path: core.Str(a)})
		wantCode(t, err, core.KindFailed, "herdr_open_failed")
		if w.wsOf(t, a) != "" {
			t.Fatal("opened")
		}
	})
	t.Run("server down", func(t *testing.T) {
		_, err := do(t, w.open(t, w.Root, herdrdouble.Knobs{ServerDown: true}, "open"), core.SwitchRequest{Path: core.Str(a)})
		wantCode(t, err, core.KindFailed, "herdr_not_running")
	})
	t.Run("timeout, nothing opened", func(t *testing.T) {
		s := w.open(t, w.Root, herdrdouble.Knobs{Delay: time.Minute}, "open", withTimeout(2*time.Second))
		_, err := do(t, s, core.OpenRequest{Path: core.Str(a)})
		wantCode(t, err, core.KindFailed, "herdr_timeout")
		if !strings.Contains(err.Error(), "nothing was opened") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("timeout, already open", func(t *testing.T) {
		s := w.open(t, w.Root, herdrdouble.Knobs{Delay: time.Minute}, "open", withTimeout(2*time.Second))
		_, err := do(t, s, core.SwitchRequest{Path: core.Str(b)})
		wantCode(t, err, core.KindFailed, "herdr_timeout")
		if !strings.Contains(err.Error(), "still open in workspace "+wsB) {
			t.Fatalf("%v", err)
		}
	})
	t.Run("other_path", func(t *testing.T) {
		_, err := do(t, w.open(t, w.Root, herdrdouble.Knobs{Lie: herdrdouble.LieOtherPath}, "open"), core.SwitchRequest{Path: core.Str(b)})
		wantCode(t, err, core.KindUncertain, "herdr_reply_mismatch")
		wantExit(t, err, 3)
	})
	t.Run("wrong_type", func(t *testing.T) {
		// The double opens a workspace, then replies with another type: a workspace
		// appeared, so the outcome is uncertain.
		_, err := do(t, w.open(t, w.Root, herdrdouble.Knobs{Lie: herdrdouble.LieWrongType}, "open"), core.OpenRequest{Path: core.Str(a)})
		wantCode(t, err, core.KindUncertain, "open_uncertain")
		if w.wsOf(t, a) == "" || !strings.Contains(err.Error(), w.wsOf(t, a)) {
			t.Fatalf("%v", err)
		}
	})
}

// ---- remove

func TestHerdrRemove(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	pb, wsb := w.create(t, "by-branch")
	pp, _ := w.create(t, "by-path")
	pw, wsw := w.create(t, "by-ws")
	s := w.plain(t)
	for _, tc := range []struct {
		name string
		req  core.RemoveRequest
		path string
	}{
		{"branch", core.RemoveRequest{Branch: core.Str("by-branch")}, pb},
		{"path", core.RemoveRequest{Path: core.Str(pp)}, pp},
		{"workspace", core.RemoveRequest{WorkspaceID: core.Str(wsw)}, pw},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := w.wsOf(t, tc.path)
			p, err := s.Prepare(bg, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if want := "herdr worktree remove --workspace " + ws; len(p.Commands) != 1 || p.Commands[0] != want {
				t.Fatalf("dry run %q, want %q", p.Commands, want)
			}
			if !strings.Contains(p.Confirm.Line(), ws) {
				t.Fatalf("the confirmation names the workspace: %q", p.Confirm.Line())
			}
			out, err := s.Execute(bg, p)
			if err != nil {
				t.Fatal(err)
			}
			if out.WorkspaceID != ws || out.Path != tc.path || gitLists(t, w.Repo, tc.path) || w.wsOf(t, tc.path) != "" {
				t.Fatalf("outcome %+v", out)
			}
			if _, err := os.Stat(tc.path); !os.IsNotExist(err) {
				t.Fatal("directory still there")
			}
			calls := w.calls(t, "remove")
			if last := calls[len(calls)-1]; flag(last, "workspace") != ws || has(last, "force") {
				t.Fatalf("argv %q", last)
			}
		})
	}
	_ = wsb
}

// A worktree no workspace shows is removed by git, exactly as under the git backend.
func TestHerdrRemoveWithoutWorkspaceUsesGit(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	wt := w.AddWorktree("plain", "plain")
	s := w.plain(t)
	p, err := s.Prepare(bg, core.RemoveRequest{Branch: core.Str("plain"), DeleteBranch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Commands) != 2 || !strings.HasPrefix(p.Commands[0], "git ") || !strings.Contains(p.Commands[0], "worktree remove") {
		t.Fatalf("commands %q", p.Commands)
	}
	out, err := s.Execute(bg, p)
	if err != nil {
		t.Fatal(err)
	}
	if out.WorkspaceID != "" || !out.BranchDeleted || gitLists(t, w.Repo, wt) || len(w.calls(t, "remove")) != 0 {
		t.Fatalf("outcome %+v", out)
	}
}

func TestHerdrForcedRemoveWarnsAndRemovesDirty(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, ws := w.create(t, "dirty")
	coretest.WriteFile(t, filepath.Join(path, "wip.txt"), "wip")
	s := w.plain(t)

	// Without --force: refused before Herdr is asked, nothing changed.
	before := w.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(path)})
	wantCode(t, err, core.KindRefused, "dirty_worktree")
	w.Unchanged(before)
	if len(w.calls(t, "remove")) != 0 {
		t.Fatal("herdr was asked")
	}

	p, err := s.Prepare(bg, core.RemoveRequest{Path: core.Str(path), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	warn := "forced: Herdr closes workspace " + ws + " and ends the processes running in it, even with uncommitted work"
	if !slices.Contains(p.Warnings, warn) || !slices.Contains(p.Confirm.Warnings, warn) {
		t.Fatalf("warnings %q", p.Warnings)
	}
	if want := "herdr worktree remove --workspace " + ws + " --force"; p.Commands[0] != want {
		t.Fatalf("dry run %q", p.Commands)
	}
	if _, err := s.Execute(bg, p); err != nil {
		t.Fatal(err)
	}
	if gitLists(t, w.Repo, path) || w.wsOf(t, path) != "" {
		t.Fatal("not removed")
	}
	// No workspace, --force: no such warning (git removes it, nothing is ended).
	wt := w.AddWorktree("plain", "plain")
	p, err = s.Prepare(bg, core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range p.Warnings {
		if strings.Contains(x, "ends the processes") {
			t.Fatalf("warning without a workspace: %q", x)
		}
	}
}

// Herdr runs `git worktree remove` once, which cannot remove a locked worktree: refused
// before anything runs (--force would already have ended the workspace's processes).
func TestHerdrRemoveLockedRefused(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, _ := w.create(t, "locked")
	w.Git(w.Root, "worktree", "lock", "--reason", "agent", path)
	before := w.Snapshot()
	_, err := do(t, w.plain(t), core.RemoveRequest{Path: core.Str(path), Force: true})
	wantCode(t, err, core.KindRefused, "locked_worktree")
	w.Unchanged(before)
	if len(w.calls(t, "remove")) != 0 {
		t.Fatal("herdr was asked")
	}
}

func TestHerdrRemoveFailures(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, ws := w.create(t, "victim")
	cases := []struct {
		name     string
		knobs    herdrdouble.Knobs
		kind     core.Kind
		code     string
		timeout  time.Duration
		changed  bool
		exitCode int
	}{
		{"dirty", herdrdouble.Knobs{Error: "dirty_worktree_requires_force"}, core.KindRefused, "dirty_worktree", 0, false, 1},
		{"not linked", herdrdouble.Knobs{Error: "not_linked_worktree"}, core.KindFailed, "herdr_not_linked", 0, false, 1},
		{"remove failed", herdrdouble.Knobs{Error: "worktree_remove_failed"}, core.KindFailed, "herdr_remove_failed", 0, false, 1},
		{"server down", herdrdouble.Knobs{ServerDown: true}, core.KindFailed, "herdr_not_running", 0, false, 1},
		{"io error", herdrdouble.Knobs{IOError: true}, core.KindFailed, "herdr_failed", 0, false, 1},
		{"timeout before acting", herdrdouble.Knobs{Delay: time.Minute}, core.KindFailed, "herdr_timeout", 2 * time.Second, false, 1},
		{"no_git", herdrdouble.Knobs{Lie: herdrdouble.LieNoGit}, core.KindUncertain, "remove_incomplete", 0, false, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := w.open(t, w.Root, tc.knobs, "remove", withTimeout(tc.timeout))
			before := w.Snapshot()
			_, err := do(t, s, core.RemoveRequest{Path: core.Str(path)})
			wantCode(t, err, tc.kind, tc.code)
			wantExit(t, err, tc.exitCode)
			w.Unchanged(before)
			if w.wsOf(t, path) != ws {
				t.Fatal("workspace closed")
			}
		})
	}
	// The rest change git: each needs a worktree of its own.
	for _, tc := range []struct {
		name    string
		knobs   herdrdouble.Knobs
		timeout time.Duration
	}{
		{"timeout after acting", herdrdouble.Knobs{DelayAfter: time.Minute}, 5 * time.Second},
		{"wrong_type", herdrdouble.Knobs{Lie: herdrdouble.LieWrongType}, 0},
		{"other_path", herdrdouble.Knobs{Lie: herdrdouble.LieOtherPath}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := w.create(t, strings.ReplaceAll(tc.name, " ", "-"))
			_, err := do(t, w.open(t, w.Root, tc.knobs, "remove", withTimeout(tc.timeout)), core.RemoveRequest{Path: core.Str(p)})
			var e *core.Error
			if !errors.As(err, &e) || e.Kind != core.KindUncertain {
				t.Fatalf("want uncertain, got %v", err)
			}
			wantExit(t, err, 3)
			if gitLists(t, w.Repo, p) {
				t.Fatal("the double did the work; git should not list it")
			}
		})
	}
}

// Removing the worktree of the workspace copse runs in would close copse's own pane.
func TestHerdrRemoveOwnWorkspaceRefused(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, ws := w.create(t, "mine")
	s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: w.Root, Getenv: w.getenv(map[string]string{"HERDR_WORKSPACE_ID": ws}), Env: w.knobs(herdrdouble.Knobs{}, "")})
	if err != nil {
		t.Fatal(err)
	}
	before := w.Snapshot()
	_, err = do(t, s, core.RemoveRequest{Path: core.Str(path), Force: true})
	wantCode(t, err, core.KindRefused, "current_workspace")
	w.Unchanged(before)
	if len(w.calls(t, "remove")) != 0 {
		t.Fatal("herdr was asked")
	}
}

// A workspace id copse could not pass back to Herdr is a bad reply, not a silent gap.
func TestHerdrListBadWorkspaceID(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	wt := w.AddWorktree("x", "x")
	herdrdouble.WriteState(t, w.state, herdrdouble.State{Next: 1, Workspaces: []herdrdouble.Workspace{
		{ID: "1:x", Checkout: wt, RepoRoot: w.Root, RepoKey: filepath.Join(w.Root, ".git"), Linked: true, Label: "x"},
	}})
	l, err := w.plain(t).List(bg, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "1:x") {
		t.Fatalf("%q", l.Warnings)
	}
	// Removing by that worktree still needs Herdr's answer, so it is refused outright.
	before := w.Snapshot()
	_, err = do(t, w.plain(t), core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindFailed, "herdr_bad_reply")
	w.Unchanged(before)
}

// Inside Herdr a create --run is refused, saying why (Herdr starts nothing in a pane), and
// nothing changes: not git, not Herdr's workspaces.
func TestHerdrCreateRunIsRefused(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	s := w.plain(t)
	before := w.Snapshot()
	_, err := s.Do(core.WithTypedByPerson(context.Background()), core.CreateRequest{Branch: "feat", Run: core.Str("claude")}, true)
	var e *core.Error
	if !errors.As(err, &e) || e.Code != core.CodeRunNeedsWorkspace || e.Kind != core.KindRefused {
		t.Fatalf("err = %v; want %s", err, core.CodeRunNeedsWorkspace)
	}
	if !strings.Contains(e.Message, "Herdr gives copse no way to start a program in a pane") || !strings.Contains(e.Message, "claude") {
		t.Errorf("refusal %q does not say what was not run and why", e.Message)
	}
	w.Unchanged(before)
	if calls := w.calls(t, "create"); len(calls) != 0 {
		t.Errorf("herdr was asked to create: %v", calls)
	}
}

// Inside Herdr, Open asks Herdr's version beside git's list, not after it: git's list here
// waits (up to 10 s) for the mark the Herdr wrapper leaves when it starts, so a detection
// that began only after the list would find the wait run out.
func TestHerdrDetectionRunsBesideTheList(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "herdr-started")
	late := filepath.Join(dir, "list-waited-out")
	herdrBin := filepath.Join(dir, "herdr")
	if err := testexec.WriteFile(herdrBin, []byte("#!/bin/sh\necho \"$*\" >> '"+mark+"'\nexec '"+w.bin+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitBin := filepath.Join(dir, "git")
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncase \"$*\" in *'worktree list'*)\n  i=0\n  while [ ! -e '" + mark + "' ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done\n" +
		"  [ -e '" + mark + "' ] || : > '" + late + "' ;;\nesac\nexec '" + realGit + "' \"$@\"\n"
	if err := testexec.WriteFile(gitBin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	o := core.Options{Registry: ops.All, Dir: w.Root, Backend: "auto", GitBin: gitBin, ListFirst: true,
		Getenv: w.getenv(map[string]string{"HERDR_BIN_PATH": herdrBin}), Env: w.knobs(herdrdouble.Knobs{}, "")}
	s, err := core.Open(bg, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.BackendName() != "herdr" {
		t.Fatalf("backend %s, want herdr", s.BackendName())
	}
	if _, err := os.Stat(late); err == nil {
		t.Fatal("git's list waited 10 s for Herdr's detection: it did not run beside the list")
	}
	calls, err := os.ReadFile(mark) // one line per herdr started: its arguments
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(calls), "--version\n"); n != 1 {
		t.Fatalf("herdr --version ran %d times, want once (the early answer is the one used)", n)
	}
}
