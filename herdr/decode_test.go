package herdr

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/internal/testexec"
)

// fixture reads a reply from testdata/herdr at the repository root.
func fixture(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "testdata", "herdr", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// The replays ignore their arguments; "/" is a --cwd that exists everywhere.

// replay is a stand-in herdr that prints a fixture on stdout (exit 0) or, with
// exit > 0, on stderr. It lets the whole client path run over canned replies.
func replay(t *testing.T, name string, exit int) *Client {
	t.Helper()
	script := "#!/bin/sh\ncat '" + fixture(t, name) + "'\n"
	if exit != 0 {
		script = "#!/bin/sh\ncat '" + fixture(t, name) + "' >&2\nexit " + string(rune('0'+exit)) + "\n"
	}
	return &Client{Bin: writeScript(t, script)}
}

func writeScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "herdr")
	if err := testexec.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

var bg = context.Background()

func TestDecodeList(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"list.json", "list_lenient.json"} {
		t.Run(name, func(t *testing.T) {
			r, err := replay(t, name, 0).List(bg, "/")
			if err != nil {
				t.Fatal(err)
			}
			if r.Source.RepoRoot != "/home/u/src/app" || r.Source.RepoKey != "/home/u/src/app/.git" || r.Source.RepoName != "app" {
				t.Fatalf("source = %+v", r.Source)
			}
			main := r.Worktrees[0]
			if main.Path != "/home/u/src/app" || main.Branch != "main" || main.IsLinkedWorktree || main.Label != "app" {
				t.Fatalf("main = %+v", main)
			}
			last := r.Worktrees[len(r.Worktrees)-1]
			if last.Path != "/home/u/scratch" || last.Branch != "" || !last.IsDetached || !last.IsLinkedWorktree || last.OpenWorkspaceID != "" {
				t.Fatalf("detached = %+v", last)
			}
		})
	}
	r, _ := replay(t, "list.json", 0).List(bg, "/")
	if r.Source.SourceWorkspaceID != "w1" || r.Worktrees[1].OpenWorkspaceID != "wG" || r.Worktrees[1].Branch != "feat/login" {
		t.Fatalf("list = %+v", r)
	}
}

func TestDecodeCreatedOpenedRemoved(t *testing.T) {
	t.Parallel()
	c, err := replay(t, "created.json", 0).Create(bg, CreateArgs{Cwd: "/", Branch: "feat/login"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Workspace.WorkspaceID != "wG" || c.Worktree.Path != "/home/u/.herdr/worktrees/app/feat-login" || c.AlreadyOpen ||
		c.Workspace.Worktree == nil || c.Workspace.Worktree.CheckoutPath != c.Worktree.Path || c.RootPane.PaneID != "wG:p1" || c.Tab.TabID != "wG:t1" {
		t.Fatalf("created = %+v", c)
	}
	o, err := replay(t, "opened.json", 0).Open(bg, OpenArgs{Cwd: "/", Branch: "feat/login"})
	if err != nil {
		t.Fatal(err)
	}
	if !o.AlreadyOpen || o.Workspace.Label != "login work" || !o.Workspace.Focused {
		t.Fatalf("opened = %+v", o)
	}
	m, err := replay(t, "opened_minimal.json", 0).Open(bg, OpenArgs{Cwd: "/", Path: "/home/u/src/app"})
	if err != nil {
		t.Fatal(err)
	}
	if m.AlreadyOpen || m.Workspace.WorkspaceID != "w1" || m.Workspace.Worktree != nil || m.RootPane.PaneID != "" {
		t.Fatalf("minimal = %+v", m)
	}
	r, err := replay(t, "removed.json", 0).Remove(bg, "wG", false)
	if err != nil {
		t.Fatal(err)
	}
	if r.WorkspaceID != "wG" || r.Path != "/home/u/.herdr/worktrees/app/feat-login" || r.Forced {
		t.Fatalf("removed = %+v", r)
	}
}

// Every reply that is not the one asked for is ErrWrongReply, and uncertain: herdr
// exited 0, so it may have done something.
func TestDecodeWrongReplies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fixture string
		call    func(*Client) error
		want    string
	}{
		{"created_wrong_type.json", func(c *Client) error {
			_, err := c.Create(bg, CreateArgs{Cwd: "/", Branch: "x"})
			return err
		}, `type is "worktree_opened", want worktree_created`},
		{"created.json", func(c *Client) error { _, err := c.List(bg, "/"); return err }, "want worktree_list"},
		{"list.json", func(c *Client) error { _, err := c.Remove(bg, "wG", false); return err }, "want worktree_removed"},
		{"opened.json", func(c *Client) error {
			_, err := c.Create(bg, CreateArgs{Cwd: "/", Branch: "x"})
			return err
		}, "want worktree_created"},
		{"removed.json", func(c *Client) error { _, err := c.Remove(bg, "w1", false); return err }, "not w1"},
		{"no_result.json", func(c *Client) error { _, err := c.Remove(bg, "wG", false); return err }, "no result"},
		{"no_type.json", func(c *Client) error { _, err := c.Remove(bg, "wG", false); return err }, "no type"},
		{"two_replies.txt", func(c *Client) error { _, err := c.Remove(bg, "wG", false); return err }, "data after the reply"},
		{"stderr_io_error.txt", func(c *Client) error { _, err := c.List(bg, "/"); return err }, "not a JSON reply"},
		{"error_linked_source.json", func(c *Client) error { _, err := c.List(bg, "/"); return err }, "exit 0 with an error envelope"},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			err := c.call(replay(t, c.fixture, 0))
			var he *Error
			if !errors.As(err, &he) || he.Kind != ErrWrongReply {
				t.Fatalf("err = %v, want ErrWrongReply", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %q, want it to mention %q", err, c.want)
			}
			if !he.Uncertain() || he.ExitCode != 0 {
				t.Fatalf("Uncertain() = %v, ExitCode = %d", he.Uncertain(), he.ExitCode)
			}
		})
	}
}

func TestDecodeErrorReplies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fixture  string
		kind     ErrKind
		code     string
		inErrMsg string
	}{
		{"error_linked_source.json", ErrReply, "linked_worktree_source", "start from the repo parent workspace"},
		{"error_server_not_running.json", ErrReply, "server_not_running", "no herdr server is running"},
		{"stderr_warning_then_error.txt", ErrReply, "dirty_worktree_requires_force", "contains modified or untracked files"},
		{"stderr_io_error.txt", ErrExec, "", "ConnectionReset"},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			_, err := replay(t, c.fixture, 1).List(bg, "/")
			var he *Error
			if !errors.As(err, &he) || he.Kind != c.kind || he.Code != c.code || he.ExitCode != 1 {
				t.Fatalf("err = %#v", err)
			}
			if !strings.Contains(err.Error(), c.inErrMsg) {
				t.Fatalf("err = %q, want it to mention %q", err, c.inErrMsg)
			}
			raw, _ := os.ReadFile(fixture(t, c.fixture))
			if he.Stderr != string(raw) {
				t.Fatalf("Stderr = %q, want the raw stderr", he.Stderr)
			}
			if he.Uncertain() {
				t.Fatal("a failure herdr reported is not uncertain")
			}
		})
	}
}

func TestParseErrorEnvelope(t *testing.T) {
	t.Parallel()
	for in, wantCode := range map[string]string{
		`{"error":{"code":"x","message":"m"},"id":"cli:worktree:list"}`:                  "x",
		`{"id":"cli:worktree:list","error":{"message":"m","code":"x","extra":1}}` + "\n": "x",
		"note\n{\"error\":{\"code\":\"x\",\"message\":\"m\"}}\n":                         "x",
		`{"error":{"message":"m"}}`:                                                      "",
		`{"error":"x"}`:                                                                  "",
		`Error: Os { code: 2, kind: NotFound }`:                                          "",
		`{"result":{"type":"worktree_list"}}`:                                            "",
		"":                                                                               "",
		`{"error":{"code":"x","message":"m"}} {}`:                                        "",
	} {
		code, _, ok := parseErrorEnvelope([]byte(in))
		if code != wantCode || ok != (wantCode != "") {
			t.Errorf("parseErrorEnvelope(%q) = %q, %v", in, code, ok)
		}
	}
}
