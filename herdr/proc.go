package herdr

import (
	"context"
	"os"

	"github.com/copse-dev/copse/internal/childproc"
)

// MaxOutput caps what is kept of herdr's stdout and of its stderr: a reply is one line,
// so more is a runaway, reported as ErrOutputLimit rather than buffered.
const MaxOutput = 2 << 20

// neutralDir is the working directory of commands with no --cwd (remove, --version):
// nothing relative is resolved against it, and it never keeps a worktree busy.
const neutralDir = "/"

type procResult = childproc.Result

// runProcess runs bin with args in its own process group, so that cancelling ctx kills
// herdr and anything it started, never a shell (internal/childproc).
func runProcess(ctx context.Context, bin string, args []string, dir string, env []string) procResult {
	return childproc.Run(ctx, childproc.Spec{Bin: bin, Args: args, Dir: dir, Env: env, MaxOutput: MaxOutput})
}

// childEnv is env (the process environment when nil) with the variables every child of
// copse gets (DESIGN, safety core 7); later entries win in os/exec.
func childEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+2)
	out = append(out, env...)
	return append(out, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
}
