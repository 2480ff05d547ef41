package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/copse-dev/copse/herdr/herdrdouble/internal/statefile"
)

const workspaceHelp = `herdr workspace commands:
  herdr workspace list
  (the double simulates only list)`

// workspace runs one `herdr workspace …` invocation. Only list is simulated, per
// herdr/PROTOCOL-workspaces.md: it takes no argument at all (--json included: exit 2
// with the usage line), then answers every workspace of the state file, in order.
func workspace(k knobs, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, workspaceHelp)
		return 2
	}
	switch args[0] {
	case "help", "--help", "-h":
		fmt.Fprintln(os.Stderr, workspaceHelp)
		return 0
	case "list":
	case "create", "get", "focus", "rename", "report-metadata", "close":
		// Real subcommands the double does not simulate: a test that needs one is broken.
		fmt.Fprintf(os.Stderr, "fake herdr: workspace %s is not simulated\n", args[0])
		return exitMisconfigured
	default:
		fmt.Fprintln(os.Stderr, workspaceHelp)
		return 2
	}
	if len(args) > 1 {
		fmt.Fprintln(os.Stderr, "usage: herdr workspace list")
		return 2
	}
	const id = "cli:workspace:list"
	time.Sleep(k.delay)
	switch {
	case k.serverDown:
		return replyError(id, "server_not_running", fmt.Sprintf(
			"no herdr server is running at %s; run `herdr` to start or attach it", socketPath()))
	case k.ioError:
		fmt.Fprintln(os.Stderr, `Error: Os { code: 104, kind: ConnectionReset, message: "Connection reset by peer" }`)
		return 1
	case k.forcedError != "":
		return replyError(id, k.forcedError, forcedMessage(k.forcedError))
	}
	if k.state == "" {
		fmt.Fprintln(os.Stderr, "fake herdr: FAKE_HERDR_STATE is not set")
		return exitMisconfigured
	}
	// Read-only, so no lock: Save replaces the file by a rename, a reader never sees half.
	st, err := statefile.Load(k.state)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake herdr: %v\n", err)
		return exitMisconfigured
	}
	workspaces := []any{}
	for i := range st.Workspaces {
		workspaces = append(workspaces, workspaceRecord(&st, i))
	}
	result := map[string]any{"type": "workspace_list", "workspaces": workspaces}
	time.Sleep(k.delayAfter)
	switch k.lie {
	case lieWrongType:
		result["type"] = "worktree_list"
	case lieOtherPath:
		for _, w := range workspaces {
			if wt, ok := w.(map[string]any)["worktree"].(map[string]any); ok && wt["is_linked_worktree"] == true {
				wt["checkout_path"] = strings.TrimSuffix(wt["checkout_path"].(string), "/") + "-elsewhere"
			}
		}
	}
	return replyOK(id, result)
}
