package agent

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		done <- ServeMCP(t.Context(), noOpen(t), sr, sw)
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

// The real binary: `copse -C repo --backend git mcp` driven by the Go SDK over
// CommandTransport, confirming a remove through elicitation.
func TestCopseMCPSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the copse binary")
	}
	bin := buildCopse(t)
	f := newFixture(t)
	args := []string{"-C", f.Root, "--backend", "git", "mcp"}

	probe := exec.Command(bin, args...)
	var stderr bytes.Buffer
	probe.Stdin, probe.Stderr = strings.NewReader(""), &stderr
	if err := probe.Run(); err != nil {
		msg := stderr.String()
		if strings.Contains(msg, "not built into this copse") || strings.Contains(msg, "mcp_unavailable") ||
			strings.Contains(msg, `unknown command "mcp"`) {
			t.Skipf("cmd/copse does not wire `copse mcp` to agent.ServeMCP yet: %s", strings.TrimSpace(msg))
		}
		t.Fatalf("copse mcp with empty stdin: %v\n%s", err, msg)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
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
	if !f.worktreeListed(path) {
		t.Fatalf("%s not listed by git", path)
	}
	if rep, _ := c.call(t, `{"operation":"remove","path":`+mustJSON(t, path)+`}`); !rep.OK || f.worktreeListed(path) {
		t.Fatalf("remove: %+v", rep.Error)
	}
	if c.asked.Load() != 1 {
		t.Errorf("asked %d times, want 1", c.asked.Load())
	}
}

// buildCopse builds cmd/copse of this module into a temporary directory.
func buildCopse(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "copse")
	if err := gobuild.Build(bin, "github.com/copse-dev/copse/cmd/copse"); err != nil {
		t.Fatal(err)
	}
	return bin
}
