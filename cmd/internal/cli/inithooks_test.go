package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// userClaudeSettings is a settings file as a person keeps it: four-space indentation,
// keys copse knows nothing of, before and after "hooks", and hooks of their own on an
// event copse also hooks.
const userClaudeSettings = `{
    "model": "opus",
    "hooks": {
        "Stop": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "notify-send done"
                    }
                ]
            }
        ],
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": "my-guard --strict",
                        "timeout": 5
                    }
                ]
            }
        ]
    },
    "permissions": {
        "allow": [
            "Bash(ls:*)"
        ]
    },
    "zzz_unknown": [
        1,
        2.50,
        null
    ]
}
`

type settingsHooks map[string][]struct {
	Matcher string `json:"matcher"`
	Hooks   []struct {
		Type, Command string
		Timeout       int
	} `json:"hooks"`
}

func readHooks(t *testing.T, path string) settingsHooks {
	t.Helper()
	var s struct {
		Hooks settingsHooks `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(readFile(t, path)), &s); err != nil {
		t.Fatalf("%s is no longer JSON: %v", path, err)
	}
	return s.Hooks
}

// TestInitClaudeHooksMergeWithTheUsersOwnAndUninstallRemovesExactlyCopses: copse's hooks
// join the user's (which stay, with keys copse does not know and their order); a second
// install changes nothing; the uninstall gives back the user's file byte for byte.
func TestInitClaudeHooksMergeWithTheUsersOwnAndUninstallRemovesExactlyCopses(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	settings := filepath.Join(r.Home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(userClaudeSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	want(t, run(t, r, r.Root, "init", "claude", "--hooks"), 0, "settings.json", "yours are kept")
	got := readFile(t, settings)
	hooks := readHooks(t, settings)
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PermissionRequest", "Notification", "Stop", "SessionEnd"} {
		var found int
		for _, g := range hooks[ev] {
			for _, h := range g.Hooks {
				if h.Command == copseBin+" hook claude "+ev {
					found++
				}
			}
		}
		if found != 1 {
			t.Errorf("event %s has %d copse hooks, want 1:\n%s", ev, found, got)
		}
	}
	if g := hooks["Stop"][0]; g.Hooks[0].Command != "notify-send done" {
		t.Errorf("the user's Stop hook moved or changed: %+v", hooks["Stop"])
	}
	if g := hooks["PreToolUse"][0]; g.Matcher != "Bash" || g.Hooks[0].Command != "my-guard --strict" || g.Hooks[0].Timeout != 5 {
		t.Errorf("the user's PreToolUse hook changed: %+v", hooks["PreToolUse"])
	}
	if !strings.Contains(got, "\n    \"model\": \"opus\"") || !strings.Contains(got, "2.50") {
		t.Errorf("indentation or number text not kept:\n%s", got)
	}
	if i, j, k := strings.Index(got, `"model"`), strings.Index(got, `"hooks"`), strings.Index(got, `"zzz_unknown"`); !(i < j && j < k) {
		t.Errorf("key order changed:\n%s", got)
	}
	if st, _ := os.Stat(settings); st.Mode().Perm() != 0o640 {
		t.Errorf("permissions %v, want the file's own 0640", st.Mode().Perm())
	}

	want(t, run(t, r, r.Root, "init", "claude", "--hooks"), 0, "up to date")
	if again := readFile(t, settings); again != got {
		t.Fatalf("a second install changed the file:\n%s", again)
	}

	want(t, run(t, r, r.Root, "init", "claude", "--hooks", "--uninstall"), 0, "removed 8 hooks")
	if back := readFile(t, settings); back != userClaudeSettings {
		t.Fatalf("uninstall did not give back the user's file:\n%s", back)
	}
	want(t, run(t, r, r.Root, "init", "claude", "--hooks", "--uninstall"), 0, "up to date")
}

// TestInitHooksReplacesAnOlderCopsesEntries: an entry of a copse at another path (moved,
// reinstalled) is copse's too: the install replaces it, the uninstall removes it, and a
// user's hook in the same group stays.
func TestInitHooksReplacesAnOlderCopsesEntries(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	settings := filepath.Join(r.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	old := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/old/bin/copse hook claude Stop"},{"type":"command","command":"mine"}]}]}}`
	if err := os.WriteFile(settings, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	want(t, run(t, r, r.Root, "init", "claude", "--hooks"), 0)
	if s := readFile(t, settings); strings.Contains(s, "/old/bin/copse") || !strings.Contains(s, `"mine"`) {
		t.Fatalf("after install:\n%s", s)
	}
	want(t, run(t, r, r.Root, "init", "claude", "--hooks", "--uninstall"), 0)
	var got, wantV any
	json.Unmarshal([]byte(readFile(t, settings)), &got)
	json.Unmarshal([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"mine"}]}]}}`), &wantV)
	if !reflect.DeepEqual(got, wantV) {
		t.Fatalf("after uninstall: %v", got)
	}
}

// TestInitHooksRefusesAMalformedSettingsFile: a settings file copse cannot parse (or whose
// "hooks" is not an object of lists) is refused, naming the file, and nothing changes.
func TestInitHooksRefusesAMalformedSettingsFile(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"not json":          `{"model": "opus",`,
		"hooks not object":  `{"hooks": ["Stop"]}`,
		"event not list":    `{"hooks": {"Stop": {"command": "x"}}}`,
		"two objects":       `{} {}`,
		"group not object":  `{"hooks": {"Stop": ["x"]}}`,
		"group hooks value": `{"hooks": {"Stop": [{"hooks": 3}]}}`,
	} {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			r := coretest.New(t)
			settings := filepath.Join(r.Home, ".claude", "settings.json")
			os.MkdirAll(filepath.Dir(settings), 0o700)
			if err := os.WriteFile(settings, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			before := tree(t, r.Home)
			res := run(t, r, r.Root, "init", "claude", "--hooks")
			want(t, res, 1, "~/.claude/settings.json", "nothing was changed")
			if after := tree(t, r.Home); after != before {
				t.Fatalf("files changed:\n%s\n---\n%s", before, after)
			}
			res = run(t, r, r.Root, "--json", "init", "claude", "--hooks", "--uninstall")
			want(t, res, 1, "agent_settings_malformed")
			if after := tree(t, r.Home); after != before {
				t.Fatalf("files changed by the uninstall:\n%s\n---\n%s", before, after)
			}
		})
	}
}

// TestInitHooksForEachAgentsFile: Codex's hooks.json (CODEX_HOME moves it), Gemini CLI's
// settings.json and Claude Code's CLAUDE_CONFIG_DIR; opencode gets a plugin file, and a
// plugin file copse did not write is kept.
func TestInitHooksForEachAgentsFile(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	codexHome := filepath.Join(r.Base, "codex-home")
	claudeDir := filepath.Join(r.Base, "claude-dir")
	env := []string{"CODEX_HOME=" + codexHome, "CLAUDE_CONFIG_DIR=" + claudeDir, "XDG_CONFIG_HOME=" + filepath.Join(r.Base, "xdg")}
	for agent, file := range map[string]string{
		"codex":  filepath.Join(codexHome, "hooks.json"),
		"gemini": filepath.Join(r.Home, ".gemini", "settings.json"),
		"claude": filepath.Join(claudeDir, "settings.json"),
	} {
		want(t, runWith(t, r, r.Root, env, nil, "init", agent, "--hooks"), 0, "wrote")
		hooks := readHooks(t, file)
		if len(hooks) < 5 {
			t.Errorf("%s: %d events hooked: %v", agent, len(hooks), hooks)
		}
		for ev, groups := range hooks {
			if len(groups) != 1 || groups[0].Hooks[0].Command != copseBin+" hook "+agent+" "+ev {
				t.Errorf("%s: %s: %+v", agent, ev, groups)
			}
		}
		want(t, runWith(t, r, r.Root, env, nil, "init", agent, "--hooks", "--uninstall"), 0, "removed")
		if s := strings.TrimSpace(readFile(t, file)); s != "{}" {
			t.Errorf("%s: after uninstall: %s", agent, s)
		}
	}
	plugin := filepath.Join(r.Base, "xdg", "opencode", "plugins", "copse-state.js")
	want(t, runWith(t, r, r.Root, env, nil, "init", "opencode", "--hooks"), 0, "wrote")
	if s := readFile(t, plugin); !strings.Contains(s, `"hook", "opencode"`) || !strings.Contains(s, copseBin) {
		t.Fatalf("plugin:\n%s", s)
	}
	want(t, runWith(t, r, r.Root, env, nil, "init", "opencode", "--hooks"), 0, "up to date")
	want(t, runWith(t, r, r.Root, env, nil, "init", "opencode", "--hooks", "--uninstall"), 0, "removed")
	if _, err := os.Stat(plugin); !os.IsNotExist(err) {
		t.Fatalf("plugin still there: %v", err)
	}
	os.WriteFile(plugin, []byte("// mine\n"), 0o644)
	want(t, runWith(t, r, r.Root, env, nil, "init", "opencode", "--hooks"), 1, "not written by copse")
	want(t, runWith(t, r, r.Root, env, nil, "init", "opencode", "--hooks", "--uninstall"), 1, "not written by copse")
	if s := readFile(t, plugin); s != "// mine\n" {
		t.Fatalf("the user's plugin changed: %s", s)
	}
}

// TestInitHooksUsage: --hooks is for the agents with hooks; --uninstall needs it.
func TestInitHooksUsage(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	want(t, run(t, r, r.Root, "init", "bash", "--hooks"), 2, "--hooks is for claude")
	want(t, run(t, r, r.Root, "init", "claude", "--uninstall"), 2, "--uninstall goes with --hooks")
	want(t, run(t, r, r.Root, "init", "claude"), 2, "needs --hooks")
	if _, err := os.Stat(filepath.Join(r.Home, ".claude")); !os.IsNotExist(err) {
		t.Fatalf("a usage error wrote: %v", err)
	}
}
