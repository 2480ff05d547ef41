package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// The shell integration, for real: eval the function `copse init SHELL` prints, switch and
// go back, and check the directories the shell ends up in.

type shellCase struct {
	shell string
	argv  func(script string) []string
	load  string // loads the integration
}

var shells = []shellCase{
	{"bash", func(s string) []string { return []string{"bash", "--norc", "--noprofile", "-c", s} }, `eval "$(command copse init bash)"`},
	{"zsh", func(s string) []string { return []string{"zsh", "-f", "-c", s} }, `eval "$(command copse init zsh)"`},
	{"fish", func(s string) []string { return []string{"fish", "--no-config", "-c", s} }, `command copse init fish | source`},
}

func TestShellIntegration(t *testing.T) {
	t.Parallel()
	for _, sh := range shells {
		t.Run(sh.shell, func(t *testing.T) {
			if _, err := exec.LookPath(sh.shell); err != nil {
				t.Skipf("%s is not installed: its integration is not tested here", sh.shell)
			}
			r := coretest.New(t)
			feat := r.AddWorktree("feat", "feat")
			spaced := r.AddWorktree("spaced", "it's a tree")
			newline := filepath.Join(r.Base, "new\nline")
			r.Git(r.Root, "worktree", "add", "-q", "-b", "nl", newline)
			sub := filepath.Join(r.Root, "sub", "dir")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()

			// Every command prints a marker line, then pwd; the test reads the directories.
			steps := []string{
				`cd "$SUB"`,
				`copse switch feat`, // sub → feat
				`copse back`,        // feat → sub (the very directory left)
				`copse back`,        // sub → feat (back toggles, like cd -)
				`copse switch nope`, // refused: stays, status 1
				`copse switch "$SPACED"`,
				`copse back`, // → feat
				// A path with a newline survives the trip through the file and the shell.
				// (Run last, so the steps before it start from ordinary directories.)
				`copse switch nl`,
				`copse list`, // no directory: stays
			}
			script := sh.load + "\n"
			for _, s := range steps {
				script += s + "\necho \"status=$status$?\"\npwd\n"
			}
			if sh.shell != "fish" {
				script = strings.ReplaceAll(script, "$status$?", "$?")
			} else {
				script = strings.ReplaceAll(script, "$status$?", "$status")
			}
			cmd := exec.Command(sh.argv(script)[0], sh.argv(script)[1:]...)
			cmd.Dir = r.Home
			cmd.Env = cleanEnv(r.Home, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
				"TMPDIR="+tmp, "SUB="+sub, "SPACED="+spaced)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", sh.shell, err, out)
			}
			text := string(out)
			wantSeq := []struct{ status, dir string }{
				{"0", feat}, {"0", sub}, {"0", feat}, {"1", feat}, {"0", spaced}, {"0", feat}, {"0", newline}, {"0", newline},
			}
			rest := text
			for i, w := range wantSeq {
				marker := "status=" + w.status + "\n" + w.dir + "\n"
				at := strings.Index(rest, marker)
				if at < 0 {
					t.Fatalf("%s step %d (%s): want status %s in %q; output:\n%s", sh.shell, i, steps[i+1], w.status, w.dir, text)
				}
				rest = rest[at+len(marker):]
			}
			if !strings.Contains(text, "no worktree has branch nope") {
				t.Fatalf("the refusal reaches the terminal:\n%s", text)
			}
			// The temporary files are gone; the previous directory was never written to disk.
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Fatalf("%s left %d temporary files", sh.shell, len(left))
			}
		})
	}
}
