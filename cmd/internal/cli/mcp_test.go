package cli_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// copse mcp hands over to copse-mcp; where there is none (only copse installed, PATH
// without it) it fails plainly, names the program and how to install it, writes nothing
// on stdout (an MCP client reads it) and changes nothing.
func TestMCPWithoutCopseMCP(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	// copseBin's directory holds no copse-mcp; PATH is git's directory alone.
	if _, err := exec.LookPath(filepath.Join(filepath.Dir(copseBin), "copse-mcp")); err == nil {
		t.Fatal("the test copse has a copse-mcp beside it")
	}
	path := []string{"PATH=" + filepath.Dir(git)}
	before := r.Snapshot()
	res := runWith(t, r, r.Root, path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`+"\n"), "mcp")
	want(t, res, 1, "copse-mcp", "go install ./cmd/...")
	if res.stdout != "" {
		t.Errorf("stdout %q, want nothing", res.stdout)
	}
	res = runWith(t, r, r.Root, path, nil, "--json", "mcp")
	if e := decodeError(t, res); e.Code != "mcp_not_installed" || res.code != 1 {
		t.Errorf("--json: exit %d, %+v", res.code, e)
	}
	r.Unchanged(before)
}
