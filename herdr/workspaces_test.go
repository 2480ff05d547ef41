package herdr

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/copse-dev/copse/herdr/herdrdouble"
)

// `workspace list` has no options in Herdr 0.8.2: the builder makes the bare command and
// refuses every option (--json included, which the worktree commands would take).
func TestBuildWorkspaceList(t *testing.T) {
	t.Parallel()
	cmd, err := WorkspaceListCmd()
	if err != nil {
		t.Fatal(err)
	}
	if got := cmd.Argv(); !slices.Equal(got, []string{"herdr", "workspace", "list"}) || cmd.Noun() != "workspace" || cmd.Action() != "list" {
		t.Fatalf("argv %q noun %q action %q", got, cmd.Noun(), cmd.Action())
	}
	for _, c := range []struct {
		action string
		opts   []Option
		want   string
	}{
		{"list", []Option{{Name: "json", Flag: true}}, "herdr workspace list: takes no options"},
		{"list", []Option{{Name: "cwd", Value: "/src/app"}}, "herdr workspace list: takes no options"},
		{"close", nil, "herdr workspace close: unknown action"},
		{"create", []Option{{Name: "cwd", Value: "/src/app"}}, "herdr workspace create: unknown action"},
	} {
		_, err := BuildWorkspace(c.action, c.opts...)
		var ae *ArgError
		if !errors.As(err, &ae) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("BuildWorkspace(%s, %v) = %v, want %q…", c.action, c.opts, err, c.want)
		}
	}
}

// The client decodes every workspace with its agent_status and worktree membership, runs
// the bare command in the neutral directory, and refuses a reply of another type.
func TestClientWorkspaces(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.client(herdrdouble.Knobs{})
	created, err := c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/login"})
	if err != nil {
		t.Fatal(err)
	}
	ws := created.Workspace.WorkspaceID
	herdrdouble.SetAgentStatus(t, w.State, ws, AgentBlocked)

	got, err := c.Workspaces(bg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.Worktrees, "app", "feat-login")
	// The created workspace and the parent workspace create opened too (Herdr #4032).
	if len(got) != 2 || got[0].WorkspaceID != ws || got[0].AgentStatus != AgentBlocked || got[0].Number != 1 ||
		got[0].Worktree == nil || got[0].Worktree.CheckoutPath != path || !got[0].Worktree.IsLinkedWorktree ||
		got[1].AgentStatus != AgentUnknown || got[1].Worktree == nil || got[1].Worktree.CheckoutPath != w.Repo {
		t.Fatalf("workspaces = %+v", got)
	}
	var logged struct {
		Argv []string `json:"argv"`
		Dir  string   `json:"dir"`
	}
	inv := w.invocations(t)
	if err := json.Unmarshal([]byte(inv[len(inv)-1]), &logged); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(logged.Argv, []string{"workspace", "list"}) || logged.Dir != neutralDir {
		t.Fatalf("herdr ran %q in %s", logged.Argv, logged.Dir)
	}

	_, err = w.client(herdrdouble.Knobs{Lie: herdrdouble.LieWrongType}).Workspaces(bg)
	if he := herdrErr(t, err, ErrWrongReply); !strings.Contains(he.Error(), "herdr workspace list: unexpected reply: the result type is \"worktree_list\", want workspace_list") {
		t.Fatalf("wrong type: %v", he)
	}
	_, err = w.client(herdrdouble.Knobs{ServerDown: true}).Workspaces(bg)
	replyErr(t, err, "server_not_running")
}

// A reply that has the right type but lacks what copse reads is refused, not half-used:
// an entry without an agent_status would read as "no status" when Herdr said nothing.
func TestClientWorkspacesRefusesIncompleteReplies(t *testing.T) {
	t.Parallel()
	for name, out := range map[string]string{
		"no array":        `{"id":"cli:workspace:list","result":{"type":"workspace_list"}}`,
		"no id":           `{"id":"cli:workspace:list","result":{"type":"workspace_list","workspaces":[{"agent_status":"idle"}]}}`,
		"no agent_status": `{"id":"cli:workspace:list","result":{"type":"workspace_list","workspaces":[{"workspace_id":"w1"}]}}`,
		"status a number": `{"id":"cli:workspace:list","result":{"type":"workspace_list","workspaces":[{"workspace_id":"w1","agent_status":3}]}}`,
		"other type":      `{"id":"cli:workspace:list","result":{"type":"workspace_info","workspace":{"workspace_id":"w1","agent_status":"idle"}}}`,
	} {
		c := &Client{Bin: "herdr", Exec: cannedExec(out)}
		if _, err := c.Workspaces(bg); err == nil {
			t.Errorf("%s: accepted", name)
		} else if he := (*Error)(nil); !errors.As(err, &he) || he.Kind != ErrWrongReply {
			t.Errorf("%s: %v, want a wrong reply", name, err)
		}
	}
	c := &Client{Bin: "herdr", Exec: cannedExec(`{"id":"cli:workspace:list","result":{"type":"workspace_list","workspaces":[]}}`)}
	if got, err := c.Workspaces(bg); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("empty list: %v, %v", got, err)
	}
}

// cannedExec answers every command with out: replies the double cannot be made to give.
type cannedExec string

func (o cannedExec) Exec(_ context.Context, _ []string, _ func(context.Context) ([]byte, error)) ([]byte, error) {
	return []byte(o), nil
}

// The double's `workspace list`, run directly: the contract of PROTOCOL-workspaces.md.
func TestFakeWorkspaceList(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	herdrdouble.WriteState(t, w.State, herdrdouble.State{Next: 2, Focused: "w2", Workspaces: []herdrdouble.Workspace{
		{ID: "w1", Checkout: w.Repo, RepoRoot: w.Repo, RepoKey: filepath.Join(w.Repo, ".git"), Label: "app", AgentStatus: "working"},
		{ID: "w2", Checkout: w.Home, Label: "home"},
	}})
	out, stderr, code := w.runDouble(t, herdrdouble.Knobs{}, w.Repo, "workspace", "list")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	// One line, keys sorted as serde_json prints them, no tokens, no worktree without membership.
	want := `{"id":"cli:workspace:list","result":{"type":"workspace_list","workspaces":[` +
		`{"active_tab_id":"w1:t1","agent_status":"working","focused":false,"label":"app","number":1,"pane_count":1,"tab_count":1,` +
		`"workspace_id":"w1","worktree":{"checkout_path":"` + w.Repo + `","is_linked_worktree":false,"repo_key":"` + filepath.Join(w.Repo, ".git") +
		`","repo_name":"app","repo_root":"` + w.Repo + `"}},` +
		`{"active_tab_id":"w2:t1","agent_status":"unknown","focused":true,"label":"home","number":2,"pane_count":1,"tab_count":1,"workspace_id":"w2"}]}}` + "\n"
	if out != want {
		t.Fatalf("stdout\n%s\nwant\n%s", out, want)
	}
	for _, args := range [][]string{{"workspace", "list", "--json"}, {"workspace", "list", "--cwd", w.Repo}} {
		out, stderr, code := w.runDouble(t, herdrdouble.Knobs{}, w.Repo, args...)
		if code != 2 || out != "" || stderr != "usage: herdr workspace list\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
	}
	if _, stderr, code := w.runDouble(t, herdrdouble.Knobs{}, w.Repo, "workspace"); code != 2 || !strings.Contains(stderr, "herdr workspace list") {
		t.Errorf("bare workspace: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = w.runDouble(t, herdrdouble.Knobs{ServerDown: true}, w.Repo, "workspace", "list")
	if code != 1 || !strings.HasPrefix(stderr, `{"error":{"code":"server_not_running",`) || !strings.Contains(stderr, `"id":"cli:workspace:list"`) {
		t.Errorf("server down: exit %d, stderr %q", code, stderr)
	}
}
