package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/cmd/internal/agent/agenttest"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/internal/gobuild"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeMCP speaks newline-delimited JSON-RPC on plain readers and writers (stdio) and
// returns nil when the client goes away.
func TestServeMCPOverPipes(t *testing.T) {
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	done := make(chan error, 1)
	go func() {
		done <- ServeMCP(t.Context(), noOpen(t), "test", sr, sw)
		sw.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "pipe", Version: "1"}, nil).
		Connect(t.Context(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(res.Tools) != 1 || res.Tools[0].Name != ToolName {
		t.Fatalf("ListTools: %v %+v", err, res)
	}
	c := &mcpClient{ClientSession: cs}
	if rep, _ := c.call(t, `{"operation":"list","operation":"list"}`); rep.OK || rep.Error.Code != "duplicate_key" {
		t.Errorf("duplicate keys over stdio framing: %+v", rep)
	}
	cs.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeMCP after the client left: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeMCP did not return after the client closed")
	}
}

// The real binaries: `copse -C repo --backend git mcp` (which hands over to the copse-mcp
// beside it) driven by the Go SDK over CommandTransport, confirming a remove through
// elicitation.
func TestCopseMCPSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the copse binary")
	}
	bin := buildCopse(t)
	f := newFixture(t)
	args := []string{"-C", f.Root, "--backend", "git", "mcp"}

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = fixtureEnv(f)
	cmd.Stderr = os.Stderr
	c := &mcpClient{}
	client := mcp.NewClient(&mcp.Implementation{Name: "subprocess", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.asked.Add(1)
			return accept(req), nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c.ClientSession = cs

	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != ToolName {
		t.Fatalf("ListTools: %v %+v", err, tools)
	}
	if rep, _ := c.call(t, `{"operation":"list"}`); !rep.OK {
		t.Fatalf("list: %+v", rep.Error)
	}
	rep, _ := c.call(t, `{"operation":"create","branch":"fresh"}`)
	if !rep.OK {
		t.Fatalf("create: %+v", rep.Error)
	}
	path := rep.Result.(map[string]any)["worktree"].(map[string]any)["path"].(string)
	if !f.WorktreeListed(path) {
		t.Fatalf("%s not listed by git", path)
	}
	if rep, _ := c.call(t, `{"operation":"remove","path":`+mustJSON(t, path)+`}`); !rep.OK || f.WorktreeListed(path) {
		t.Fatalf("remove: %+v", rep.Error)
	}
	if c.asked.Load() != 1 {
		t.Errorf("asked %d times, want 1", c.asked.Load())
	}
}

// fixtureEnv is the environment of a copse process the test starts: the process's, with
// git's HOME and identity the fixture's (coretest.Env) and no Herdr pane or shell
// integration inherited from whoever runs the tests.
func fixtureEnv(f *agenttest.Fixture) []string {
	return append(append(os.Environ(), coretest.Env(f.Home)...), "HERDR_ENV=", "COPSE_CD_FILE=")
}

// buildCopse builds cmd/copse and cmd/copse-mcp of this module into one temporary
// directory, as go install ./cmd/... puts them, and returns copse's path.
func buildCopse(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"copse", "copse-mcp"} {
		if err := gobuild.Build(filepath.Join(dir, name), "github.com/copse-dev/copse/cmd/"+name); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "copse")
}

// copse-mcp serves only for the copse build that started it: another version is refused
// before anything is served (stdout stays empty for the client) and nothing changes.
func TestCopseMCPRefusesAnotherVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the copse binaries")
	}
	bin := filepath.Join(filepath.Dir(buildCopse(t)), "copse-mcp")
	f := newFixture(t)
	before := f.Snapshot()
	cmd := exec.Command(bin, "-C", f.Root, "--backend", "git", "mcp")
	cmd.Env = append(fixtureEnv(f), "COPSE_MCP_VERSION=v0.0.1-another-build")
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}` + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want 1\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 || !strings.Contains(stderr.String(), "v0.0.1-another-build") || !strings.Contains(stderr.String(), "go install ./cmd/...") {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	f.Unchanged(before)
}

// The point of copse-mcp: copse itself links none of the MCP SDK (nor HTTP), so its
// other commands do not pay for them at start-up; copse-mcp does link it.
func TestOnlyCopseMCPLinksTheSDK(t *testing.T) {
	env, err := gobuild.Env()
	if err != nil {
		t.Fatal(err)
	}
	deps := func(pkg string) string {
		cmd := exec.Command("go", "list", "-deps", pkg)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return "\n" + string(out)
	}
	copse := deps("github.com/copse-dev/copse/cmd/copse")
	for _, p := range []string{"github.com/modelcontextprotocol/go-sdk/mcp", "net/http", "github.com/copse-dev/copse/cmd/internal/mcpserver"} {
		if strings.Contains(copse, "\n"+p+"\n") {
			t.Errorf("cmd/copse links %s", p)
		}
	}
	if !strings.Contains(deps("github.com/copse-dev/copse/cmd/copse-mcp"), "\ngithub.com/modelcontextprotocol/go-sdk/mcp\n") {
		t.Error("cmd/copse-mcp does not link the MCP SDK")
	}
}

// Every JSON-RPC error carries a real code: the SDK's own refusal of a call made before
// the session is initialised goes out with code 0 unless copse gives it one.
func TestServeMCPErrorsHaveCodes(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`,
	}, "\n") + "\n"
	pr, pw := io.Pipe()
	or, ow := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- ServeMCP(t.Context(), noOpen(t), "test", pr, ow); ow.Close() }()
	go pw.Write([]byte(in))
	replies := map[float64]map[string]any{}
	var all []string
	sc := bufio.NewScanner(or)
	for len(replies) < 4 && sc.Scan() {
		all = append(all, sc.Text())
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("reply %q: %v", sc.Text(), err)
		}
		if id, ok := m["id"].(float64); ok {
			replies[id] = m
		}
	}
	pw.Close()
	go io.Copy(io.Discard, or)
	<-done
	out := strings.Join(all, "\n")
	for id, want := range map[float64]float64{1: -32600, 3: -32601, 4: -32600} {
		e, _ := replies[id]["error"].(map[string]any)
		if e == nil || e["code"] != want {
			t.Errorf("request %v: error %v, want code %v (all replies: %s)", id, e, want, out)
		}
	}
}
