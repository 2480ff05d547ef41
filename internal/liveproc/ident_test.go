package liveproc

import "testing"

// TestProgramNameFromArgvNotComm: an agent is named by what its argv runs — the npm
// package of a node script, the command of a `sh -c`, argv[0]'s base — never by the
// interpreter or the shell that runs it.
func TestProgramNameFromArgvNotComm(t *testing.T) {
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}, "claude"},
		{[]string{"/usr/bin/node", "--no-warnings", "/home/u/.npm/lib/node_modules/@openai/codex/bin/codex.js", "--full-auto"}, "codex"},
		{[]string{"node", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js"}, "gemini"},
		{[]string{"node", "/x/node_modules/@mariozechner/pi-coding-agent/dist/cli.js"}, "pi"},
		{[]string{"node", "/home/u/src/mytool/dist/cli.js"}, "mytool"},
		{[]string{"/x/bun", "/x/node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js", "--model", "m"}, "omp"},
		{[]string{"node", "/home/u/src/copse/testdata/agents/fake-claude.js"}, "fake-claude"},
		{[]string{"/bin/sh", "-c", "exec FOO=1 claude --resume"}, "claude"},
		{[]string{"sh", "-c", "aider --yes"}, "aider"},
		{[]string{"env", "A=b", "python3", "agent.py"}, "agent"},
		{[]string{"/home/u/.local/bin/claude"}, "claude"},
		{[]string{"-bash"}, "bash"},
		{[]string{"a-program-with-a-very-long-name"}, "a-program-with-a-very-long-name"},
		{nil, ""},
	}
	for _, c := range cases {
		if got := ProgramName(c.argv); got != c.want {
			t.Errorf("ProgramName(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}
