package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// bashCompletionLib is the bash-completion package's script, as Debian installs it.
const bashCompletionLib = "/usr/share/bash-completion/bash_completion"

// bashCompleteWith loads `copse completion bash` into a real bash, with or without the
// bash-completion package, and asks it to complete line (the cursor at its end), as a user
// pressing tab would; it returns COMPREPLY and what `complete -p copse` says.
// Without the package, anything bash prints on stderr (a "command not found") fails the test.
func bashCompleteWith(t *testing.T, r *coretest.Repo, line string, withPackage bool) (reply []string, spec string) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: completion is not tested here")
	}
	// The scripts cobra writes use the bash-completion package, as every distribution's
	// bash does; CI installs it.
	lib := bashCompletionLib
	if _, err := os.Stat(lib); err != nil && withPackage {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing in CI: .ci/run must install bash-completion", lib)
		}
		t.Skipf("%s is not installed (apt-get install bash-completion): completion is not tested here", lib)
	}
	load := `source ` + lib
	if !withPackage {
		load = `! declare -F _get_comp_words_by_ref _filedir >/dev/null || exit 8`
	}
	// compopt works only inside a completion bash itself started; here it is simulated.
	script := load + `
compopt() { :; }
source <(copse completion bash) || exit 9
complete -p copse
read -r -a COMP_WORDS <<< "$LINE"
[[ $LINE == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE=$LINE
COMP_POINT=${#LINE}
COMP_TYPE=9
__start_copse copse "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf 'reply:%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", script)
	cmd.Dir = r.Root
	cmd.Env = cleanEnv(r.Home, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "LINE="+line)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s%s", err, out, stderr.String())
	}
	if !withPackage && stderr.Len() > 0 {
		t.Fatalf("completing %q without bash-completion printed:\n%s", line, stderr.String())
	}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "reply:"); ok {
			reply = append(reply, strings.TrimSpace(v))
		} else if strings.HasPrefix(l, "complete ") {
			spec = l
		}
	}
	return reply, spec
}

func TestBashCompletion(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feat := r.AddWorktree("feat/login", "login")
	r.AddWorktree("fix/typo", "typo")
	r.Git(r.Root, "branch", "spare")

	// Without the package always; with it where it is installed (CI installs it).
	variants := []bool{false}
	if _, err := os.Stat(bashCompletionLib); err == nil || os.Getenv("CI") == "true" {
		variants = append(variants, true)
	} else {
		t.Logf("%s is not installed (apt-get install bash-completion): completion is tested without it only", bashCompletionLib)
	}
	_, spec := bashCompleteWith(t, r, "copse ", false)
	if !strings.Contains(spec, "-F __start_copse") || !strings.HasSuffix(spec, " copse") {
		t.Fatalf("complete -p copse = %q", spec)
	}
	for _, tc := range []struct {
		line string
		want []string
		not  []string
	}{
		{"copse sw", []string{"switch"}, nil},
		{"copse switch fe", []string{"feat/login"}, []string{"fix/typo", "spare"}},
		{"copse remove f", []string{"feat/login", "fix/typo"}, []string{"main"}},
		{"copse switch " + filepath.Dir(feat) + "/lo", []string{feat}, nil},
		{"copse create sp", []string{"spare"}, nil},
		{"copse remove --dele", []string{"--delete-branch"}, nil},
	} {
		for _, withPackage := range variants {
			reply, _ := bashCompleteWith(t, r, tc.line, withPackage)
			joined := strings.Join(reply, "\n")
			for _, w := range tc.want {
				if !containsWord(reply, w) {
					t.Errorf("%q (bash-completion loaded: %v) completes to %q; want %q among them", tc.line, withPackage, joined, w)
				}
			}
			for _, n := range tc.not {
				if containsWord(reply, n) {
					t.Errorf("%q (bash-completion loaded: %v) completes to %q; %q must not be offered", tc.line, withPackage, joined, n)
				}
			}
		}
	}
}

// containsWord: a reply entry is the word, possibly followed by its description.
func containsWord(reply []string, w string) bool {
	for _, r := range reply {
		if r == w || strings.HasPrefix(r, w+" ") {
			return true
		}
	}
	return false
}

func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	for shell, marker := range map[string]string{"bash": "__start_copse", "zsh": "#compdef copse", "fish": "complete -c copse"} {
		res := run(t, r, r.Root, "completion", shell)
		want(t, res, 0, marker)
	}
	want(t, run(t, r, r.Root, "completion", "tcsh"), 2, "unknown shell")
}
