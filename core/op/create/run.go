package create

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
)

// create --run: the new worktree's window starts a command (an agent: claude, pi, omp,
// codex…). The command is the person's (or the agent's, approved) shell text; the values
// copse adds — branch, path, prompt — never become shell text: they are environment
// variables of the window, and a {branch}, {path} or {prompt} in the command is replaced
// by a double-quoted reference to its variable. So a branch named `a b'; rm -rf ~` is one
// word with exactly those characters, whatever the command does with it.

const maxRun = 4096

// runPlaceholders are replaced in the command by quoted variable references.
var runPlaceholders = strings.NewReplacer(
	"{branch}", `"$COPSE_BRANCH"`,
	"{path}", `"$COPSE_PATH"`,
	"{prompt}", `"$COPSE_PROMPT"`,
)

// prepareRun reads --run (else git config copse.run, set by the repository's owner) and
// --prompt. It returns nil when there is nothing to run, and whether the command or its
// prompt came in the request (then an agent may have chosen it: it needs a person's
// approval unless a person typed it, see WithTypedByPerson).
func prepareRun(s *core.Env, ctx context.Context, r core.CreateRequest, c *core.CreateSpec) (fromRequest bool, warnings []string, err error) {
	raw, fromRequest := "", r.Run != nil
	if fromRequest {
		// Bad input first, whatever the backend: an empty or hostile command is exit 2.
		if err := core.CheckText("run", *r.Run, maxRun); err != nil {
			return false, nil, err
		}
		raw = *r.Run
	} else if runs, _ := s.Backend.Runs(); runs {
		v, ok, err := s.Git.ConfigValue(ctx, s.Root(), "copse.run")
		if err != nil {
			return false, nil, core.GitFailure(core.CodeConfigFailed, err, "cannot read git config copse.run")
		}
		if ok && strings.TrimSpace(v) != "" {
			raw = strings.TrimSpace(v)
		}
	}
	if raw == "" {
		if r.Prompt != nil {
			return false, nil, core.Usage(core.CodeRunBadCommand, "prompt", "pass --run CMD (or set git config copse.run) to start an agent with the prompt",
				"--prompt was given but there is no command to run")
		}
		return false, nil, nil
	}
	if runs, why := s.Backend.Runs(); !runs {
		if !fromRequest {
			// The owner's default for windows; this backend opens none.
			return false, []string{"git config copse.run is set, but the " + s.Backend.Name() + " backend has no tmux window to start it in; not started"}, nil
		}
		return false, nil, core.Refused(core.CodeRunNeedsWorkspace,
			"run copse inside tmux (or with --backend tmux), or create the worktree without --run and start the command yourself",
			"--run starts %s in the new worktree's tmux window, but this is the %s backend: %s",
			core.Quote(raw), s.Backend.Name(), why)
	}
	if err := core.CheckText("run", raw, maxRun); err != nil {
		return false, nil, err
	}
	script := runPlaceholders.Replace(raw)
	env := []string{"COPSE_BRANCH=" + c.Branch.String(), "COPSE_PATH=" + c.Path.String()}
	if r.Prompt != nil {
		p := *r.Prompt
		if why := promptProblem(p); why != "" {
			return false, nil, core.Usage(core.CodeRunBadCommand, "prompt", "pass the prompt as plain text (new lines and tabs are fine)",
				"--prompt %s", why)
		}
		env = append(env, "COPSE_PROMPT="+p)
		if !strings.Contains(raw, "{prompt}") {
			script += ` "$COPSE_PROMPT"`
		}
	}
	// The started agent claims the worktree (claim implied), and its own copse calls act as
	// that session.
	sess := core.RunSession(c.Branch)
	if r.Session != nil {
		sess = *r.Session
	}
	id, err := core.ParseSession("session", sess)
	if err != nil {
		return false, nil, err
	}
	env = append(env, "COPSE_SESSION="+id.String())
	// When the command ends, the window keeps a shell in the worktree, as a tmux user
	// expects of a window they can go back to (an idle shell does not keep the worktree):
	// what tmux starts in every window copse opens without a command: its default-command
	// run by its default-shell, else that shell as a login shell (the tmux backend passes
	// both as COPSE_SHELL and COPSE_SHELL_COMMAND); $SHELL when tmux did not say. The
	// wrapper reports the command's start and end before it (agent_run.go), with the values
	// it needs as variables too.
	script, env, warnings = s.WrapRun(ctx, raw, script, env)
	script += `; if [ -n "$COPSE_SHELL" ] && [ -n "$COPSE_SHELL_COMMAND" ]; then exec "$COPSE_SHELL" -c "$COPSE_SHELL_COMMAND"; fi` +
		`; if [ -n "$COPSE_SHELL" ]; then exec "$COPSE_SHELL" -l; fi; exec "${SHELL:-/bin/sh}"`
	c.Run = &core.RunSpec{Display: raw, Argv: []string{"/bin/sh", "-c", script, "copse-run"}, Env: env, Session: id.String(), Wrapped: s.Opts.Self != ""}
	// A prompt in the request is what an agent tells the program it starts, even when the
	// program is the owner's copse.run: a person sees it first, as a command in the request.
	return fromRequest || r.Prompt != nil, warnings, nil
}

// promptProblem says why text cannot be a prompt ("" when it can): it must be valid UTF-8
// without NUL, control characters other than new line and tab, or bidirectional marks.
func promptProblem(p string) string {
	if p == "" {
		return "is empty"
	}
	if !utf8.ValidString(p) {
		return "is not valid UTF-8"
	}
	for _, r := range p {
		if r == '\n' || r == '\t' {
			continue
		}
		if textsafe.IsControl(r) || textsafe.IsBidi(r) {
			return "contains " + core.Escape(string(r)) + ", which a prompt may not"
		}
	}
	return ""
}
