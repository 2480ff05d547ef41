// Package childproc runs one short program the way copse runs herdr and tmux: in its own
// process group (a cancel kills it and anything it started, never a shell), dying with
// copse on Linux (parent-death signal), with no stdin and with each output capped so a
// runaway cannot fill memory. It knows nothing of what the program is; herdr and tmux,
// the only packages that run those programs, build the argv and read the result.
package childproc

import (
	"context"
	"os/exec"
	"time"
)

// waitDelay bounds how long Wait waits for output pipes after the process is killed.
const waitDelay = 2 * time.Second

// Spec is one run.
type Spec struct {
	Bin       string
	Args      []string
	Dir       string   // working directory
	Env       []string // the whole environment of the child
	MaxOutput int      // bytes kept of stdout and of stderr each
}

// Result is what happened.
type Result struct {
	Stdout, Stderr []byte
	Over           bool  // stdout or stderr passed MaxOutput
	StartErr       error // the process never started
	WaitErr        error // nil on exit 0
	ExitCode       int   // -1 when killed or not started
}

// capped keeps the first max bytes written to it and notes whether more came. It keeps
// accepting (and dropping) the rest so the child never blocks on a full pipe.
type capped struct {
	buf  []byte
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - len(c.buf); len(p) > room {
		c.buf = append(c.buf, p[:max(room, 0)]...)
		c.over = true
	} else {
		c.buf = append(c.buf, p...)
	}
	return len(p), nil
}

// Run runs s until it exits or ctx is done (then the whole group is killed).
func Run(ctx context.Context, s Spec) Result {
	stdout, stderr := capped{max: s.MaxOutput}, capped{max: s.MaxOutput}
	cmd := exec.CommandContext(ctx, s.Bin, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	cmd.Stdin = nil // /dev/null: these programs never prompt
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = waitDelay
	ownProcessGroup(cmd)
	res := Result{ExitCode: -1}
	defer pinThread()() // until the child has been waited for (see pdeath_linux.go)
	if err := cmd.Start(); err != nil {
		res.StartErr = err
		return res
	}
	res.WaitErr = cmd.Wait()
	res.ExitCode = cmd.ProcessState.ExitCode()
	res.Stdout, res.Stderr = stdout.buf, stderr.buf
	res.Over = stdout.over || stderr.over
	return res
}
