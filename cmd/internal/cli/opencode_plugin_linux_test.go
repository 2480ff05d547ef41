//go:build linux

package cli_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// The opencode plugin `copse init opencode --hooks` writes, loaded as opencode loads it (an
// ES module whose export opencode calls with the project's directory) and fed opencode's
// events: each state it reports shows in list --status as the plugin's word (source
// extension), needs-you on a permission asked, working once it is replied, idle at the end.
func TestOpencodePluginReportsEachState(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("the plugin is JavaScript; node is not installed:", err)
	}
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("oc", "wt-oc")
	xdg := filepath.Join(r.Base, "xdg")
	env := []string{"XDG_CONFIG_HOME=" + xdg}
	want(t, runWith(t, r, r.Root, env, nil, "init", "opencode", "--hooks"), 0, "wrote")
	plugin := filepath.Join(xdg, "opencode", "plugins", "copse-state.js")
	// The host: loads the plugin, then hands it one event per line of its stdin.
	host := filepath.Join(r.Base, "host.mjs")
	coretest.WriteFile(t, host, fmt.Sprintf(`import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";
const mod = await import(pathToFileURL(%q).href);
const hooks = await mod.CopseState({ directory: %q });
for await (const line of createInterface({ input: process.stdin })) {
  await hooks.event({ event: JSON.parse(line) });
  console.log("sent");
}
`, plugin, wt))
	cmd := exec.Command(node, host)
	cmd.Dir = wt
	cmd.Env = cleanEnv(r.Home)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })

	shows := func(state string) {
		t.Helper()
		var last string
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			res := run(t, r, r.Root, "list", "--status", "--json")
			var l core.Listing
			if json.Unmarshal([]byte(res.stdout), &l) != nil {
				continue
			}
			for _, w := range l.Worktrees {
				if w.Path != wt {
					continue
				}
				last = fmt.Sprintf("%+v", w.Agents)
				for _, a := range w.Agents {
					if a.Source == "extension" && a.State == state && a.PID == cmd.Process.Pid {
						return
					}
				}
			}
		}
		t.Fatalf("opencode's plugin: want %s from the extension (pid %d); agents %s", state, cmd.Process.Pid, last)
	}
	send := func(ev string) {
		t.Helper()
		if _, err := in.Write([]byte(ev + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"type":"session.status","properties":{"sessionID":"s1","status":{"type":"busy"}}}`)
	shows(core.AgentWorking)
	send(`{"type":"permission.asked","properties":{"sessionID":"s1","id":"p1"}}`)
	shows(core.AgentBlocked)
	if out := run(t, r, r.Root, "list", "--status"); !strings.Contains(out.stdout, "needs you") {
		t.Errorf("list --status does not say needs you:\n%s", out.stdout)
	}
	send(`{"type":"permission.replied","properties":{"sessionID":"s1","permissionID":"p1"}}`)
	shows(core.AgentWorking)
	send(`{"type":"session.idle","properties":{"sessionID":"s1"}}`)
	shows(core.AgentIdle)
}
