package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/copse-dev/copse/internal/textsafe"
)

const (
	defaultTimeout     = 60 * time.Second
	defaultOutputLimit = 2 << 20
	// waitDelay bounds how long Wait waits for the output pipes after git has
	// exited or been killed; a child that left the process group (setsid) and
	// kept the pipes open cannot hang copse.
	waitDelay = 2 * time.Second
)

// Runner runs Cmds. The zero value is ready to use.
type Runner struct {
	Bin         string        // "git" when empty
	Timeout     time.Duration // per command; 60s when zero
	OutputLimit int64         // cap on stdout and on stderr, each; 2 MiB when zero
	Env         []string      // extra environment entries, appended last so they win
	// Exec, when set, is handed every command instead of starting git (tests:
	// gitxtest.Fake checks each argv and answers it, or lets real git answer).
	Exec Executor
}

// Executor answers one git command. argv is Cmd.Argv (git -C DIR ARGS...); real runs it
// with real git, exactly as the Runner would have.
type Executor interface {
	Exec(ctx context.Context, argv []string, real func(context.Context) ([]byte, error)) ([]byte, error)
}

// ErrKind classifies why Run failed.
type ErrKind int

const (
	ErrExit        ErrKind = iota + 1 // git ran and exited non-zero (or died of a signal: ExitCode -1)
	ErrNotFound                       // the git executable does not exist
	ErrOutputLimit                    // stdout or stderr passed OutputLimit; git was killed
	ErrTimeout                        // Runner.Timeout (or the caller's deadline) passed; git was killed
	ErrCanceled                       // the caller's context was canceled; git was killed
	ErrStart                          // git could not be started for another reason
	ErrIO                             // git exited 0 but its output could not be fully collected
)

func (k ErrKind) String() string {
	switch k {
	case ErrExit:
		return "exit"
	case ErrNotFound:
		return "not found"
	case ErrOutputLimit:
		return "output limit"
	case ErrTimeout:
		return "timeout"
	case ErrCanceled:
		return "canceled"
	case ErrStart:
		return "start"
	case ErrIO:
		return "io"
	}
	return fmt.Sprintf("ErrKind(%d)", int(k))
}

// Error is every failure of Run. It keeps git's stderr and exit code because
// a bare "exit status 128" tells the user nothing.
type Error struct {
	Kind     ErrKind
	Argv     []string
	ExitCode int    // meaningful for ErrExit
	Limit    int64  // the output cap in bytes; meaningful for ErrOutputLimit
	Stderr   string // as much as was captured (at most OutputLimit bytes)
	// Stdout is what git printed before it failed, for ErrExit only: a push that was
	// refused says per ref why on stdout (--porcelain) and exits 1.
	Stdout string
	Err    error // the underlying error; context.Canceled for ErrCanceled
}

// maxStderrInMessage keeps Error() readable when a hook printed megabytes.
const maxStderrInMessage = 4096

func (e *Error) Error() string {
	cmd := textsafe.ShellJoin(e.Argv)
	switch e.Kind {
	case ErrExit:
		if e.ExitCode < 0 {
			return fmt.Sprintf("%s: %v", cmd, e.Err)
		}
		msg := strings.TrimSpace(e.Stderr)
		if msg == "" {
			// An empty message hides the failure; say so instead (DESIGN §4).
			return fmt.Sprintf("%s: exit %d with no error output", cmd, e.ExitCode)
		}
		if len(msg) > maxStderrInMessage {
			msg = msg[:maxStderrInMessage] + "…"
		}
		return fmt.Sprintf("%s: exit %d: %s", cmd, e.ExitCode, msg)
	case ErrNotFound:
		return fmt.Sprintf("%s: git executable not found: %v", cmd, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", cmd, e.Kind, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Command names the git command that failed, for messages: "git worktree list".
func (e *Error) Command() string { return commandName(e.Argv) }

// ExitCode returns git's exit code when err is an *Error of kind ErrExit.
func ExitCode(err error) (int, bool) {
	var e *Error
	if errors.As(err, &e) && e.Kind == ErrExit {
		return e.ExitCode, true
	}
	return 0, false
}

// exitedOneSilently reports git's way of saying "no" (unset key, missing ref,
// not an ancestor): exit 1 with nothing on stderr. Exit 1 with a message is a
// real error (e.g. `config --get` on a malformed key).
func exitedOneSilently(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == ErrExit && e.ExitCode == 1 && strings.TrimSpace(e.Stderr) == ""
}

// output is the shape of every Runner method that reads: run the command a builder made
// (the builder's error returned as it is) and parse what git printed.
func output[T any](ctx context.Context, r *Runner, c Cmd, err error, parse func([]byte) (T, error)) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return zero, err
	}
	return parse(out)
}

// plain makes a parser that cannot fail fit output.
func plain[T any](parse func([]byte) T) func([]byte) (T, error) {
	return func(b []byte) (T, error) { return parse(b), nil }
}

// Run executes c and returns its stdout when it exits 0.
//
// git gets its own process group so that on cancel, timeout or output overflow
// the whole group (git plus any hook and its children) is killed, not just git.
// On Linux git also gets SIGKILL if copse dies, even of SIGKILL (proc_linux.go).
// stdin is /dev/null unless the Cmd carries its input, and GIT_TERMINAL_PROMPT=0 stops git asking for
// credentials, so nothing can wait on a terminal.
func (r *Runner) Run(ctx context.Context, c Cmd) ([]byte, error) {
	argv := c.Argv()
	if c.dir == "" || len(c.args) == 0 {
		return nil, &Error{Kind: ErrStart, Argv: argv, Err: errors.New("command was not made by a gitx builder")}
	}
	if r.Exec != nil {
		direct := *r
		direct.Exec = nil
		return r.Exec.Exec(ctx, argv, func(ctx context.Context) ([]byte, error) { return direct.Run(ctx, c) })
	}
	bin, timeout, limit := r.Bin, r.Timeout, r.OutputLimit
	if bin == "" {
		bin = "git"
	}
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	if limit <= 0 {
		limit = defaultOutputLimit
	}
	if c.limit > 0 {
		limit = c.limit
	}

	runCtx, cancelRun := context.WithTimeout(ctx, timeout)
	defer cancelRun()
	// procCtx is also canceled by an output overflow, which kills the group
	// through cmd.Cancel exactly like a timeout does.
	procCtx, stop := context.WithCancel(runCtx)
	defer stop()

	var over atomic.Bool
	stdout := &capBuffer{limit: limit, over: &over, stop: stop}
	stderr := &capBuffer{limit: limit, over: &over, stop: stop}

	cmd := exec.CommandContext(procCtx, resolveBin(bin), argv[1:]...)
	cmd.Env = append(r.environ(c.read), c.env...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if c.stdin != nil {
		cmd.Stdin = bytes.NewReader(c.stdin)
	}
	var filter *recordFilter
	if c.keep != nil {
		filter = &recordFilter{keep: c.keep, out: stdout}
		cmd.Stdout = filter
	}
	cmd.SysProcAttr = procAttr()
	defer setStop(cmd, c)()
	cmd.WaitDelay = waitDelay

	fail := func(kind ErrKind, err error) *Error {
		return &Error{Kind: kind, Argv: argv, Stderr: stderr.buf.String(), Err: err}
	}
	if !c.read {
		// Until git has been waited for (see proc_linux.go): a thread that ended under a
		// running change would take git down half way. A read (status, list, log) is not
		// pinned: nothing copse runs ends a thread under it, and if something did, the read
		// would fail and say so, changing nothing. Pinning cost `list --status` about 4%:
		// every pinned wait holds an OS thread the pool's other goroutines cannot use.
		defer pinThread()()
	}
	if err := cmd.Start(); err != nil {
		if e := contextFailure(ctx, runCtx, timeout, fail); e != nil {
			return nil, e
		}
		// Only a failed start can mean "not found". The output cap can trip only
		// after a successful start and is classified below, so passing the cap
		// is never misreported as a missing executable.
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, fail(ErrNotFound, err)
		}
		return nil, fail(ErrStart, err)
	}
	waitErr := cmd.Wait()

	if over.Load() {
		// Checked first: git may even have exited 0, but its output was cut.
		e := fail(ErrOutputLimit, fmt.Errorf("output passed the %d-byte limit; git was stopped", limit))
		e.Limit = limit
		return nil, e
	}
	if waitErr == nil {
		if filter != nil && len(filter.partial) > 0 {
			return nil, fail(ErrIO, fmt.Errorf("output ended inside a record (%d bytes without NUL)", len(filter.partial)))
		}
		return stdout.buf.Bytes(), nil
	}
	if e := contextFailure(ctx, runCtx, timeout, fail); e != nil {
		return nil, e
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		e := fail(ErrExit, waitErr)
		e.ExitCode = ee.ExitCode()
		e.Stdout = stdout.buf.String()
		return nil, e
	}
	// exec.ErrWaitDelay: git exited 0 but something it started still held the
	// output pipes open after waitDelay.
	return nil, fail(ErrIO, waitErr)
}

// setStop sets how cmd is stopped on a timeout, a cancel and copse's death, and gives what
// Run defers. A command that may write (anything not a read, and the refresh, which is run
// as a read of the worktree but writes the index) is stopped with SIGTERM: git removes its
// lock files (index.lock, a ref's .lock) on SIGTERM, so a change cut short does not leave
// the user's next git failing on "another git process seems to be running"; once git is
// gone (it exited, or waitDelay passed and os/exec killed it), what is left of its group
// (a hook that ignored SIGTERM) is killed. A read holds no lock and is stopped with
// SIGKILL, at once.
func setStop(cmd *exec.Cmd, c Cmd) (after func()) {
	stopSig := syscall.SIGKILL
	if c.gentle || !c.read {
		stopSig = syscall.SIGTERM
		gentleDeath(cmd.SysProcAttr)
	}
	var stopped atomic.Bool
	cmd.Cancel = func() error {
		stopped.Store(true)
		// Negative pid: the whole group. git is the group leader (Setpgid).
		err := syscall.Kill(-cmd.Process.Pid, stopSig)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	return func() {
		if stopSig != syscall.SIGKILL && stopped.Load() && cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
}

// contextFailure classifies a failure caused by a context, or returns nil.
// The caller's ctx is checked first so that its cancellation is reported as
// such even when our own timeout fired at the same moment.
func contextFailure(ctx, runCtx context.Context, timeout time.Duration, fail func(ErrKind, error) *Error) *Error {
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fail(ErrTimeout, fmt.Errorf("caller's deadline passed: %w", err))
		}
		if cause := context.Cause(ctx); cause != nil && cause != err {
			return fail(ErrCanceled, fmt.Errorf("%w: %w", err, cause))
		}
		return fail(ErrCanceled, err)
	}
	if errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		return fail(ErrTimeout, fmt.Errorf("timed out after %s: %w", timeout, context.DeadlineExceeded))
	}
	return nil
}

// capBuffer collects at most limit bytes. The first write that does not fit
// marks the overflow and stops the process; the write fails so os/exec stops
// reading and nothing beyond the limit is ever buffered.
type capBuffer struct {
	buf   bytes.Buffer
	limit int64
	over  *atomic.Bool // shared by stdout and stderr
	stop  func()
}

var errOverflow = errors.New("gitx: output limit reached")

func (w *capBuffer) Write(p []byte) (int, error) {
	room := w.limit - int64(w.buf.Len())
	if int64(len(p)) <= room {
		return w.buf.Write(p)
	}
	if room > 0 {
		w.buf.Write(p[:room])
	} else {
		room = 0
	}
	w.over.Store(true)
	w.stop()
	return int(room), errOverflow
}

// ReadFrom makes capBuffer an io.ReaderFrom, so os/exec copies git's output straight into
// buf instead of through a fresh 32 KB buffer per pipe: two per git process, at 300
// worktrees 19 MB of garbage for one `list --status`, whose collection and page faults
// cost a few percent of it. Past the limit it stops exactly as Write does.
func (w *capBuffer) ReadFrom(r io.Reader) (int64, error) {
	room := max(w.limit-int64(w.buf.Len()), 0)
	n, err := w.buf.ReadFrom(io.LimitReader(r, room+1))
	if int64(w.buf.Len()) > w.limit {
		w.buf.Truncate(int(w.limit))
		w.over.Store(true)
		w.stop()
		return n, errOverflow
	}
	return n, err
}

// recordFilter passes on only the NUL-terminated records keep accepts.
type recordFilter struct {
	keep    func([]byte) bool
	out     io.Writer
	partial []byte
}

func (f *recordFilter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, 0)
		if i < 0 {
			f.partial = append(f.partial, p...)
			break
		}
		rec := p[:i+1]
		if len(f.partial) > 0 {
			rec = append(f.partial, rec...)
			f.partial = nil
		}
		if f.keep(rec[:len(rec)-1]) {
			if _, err := f.out.Write(rec); err != nil {
				return 0, err
			}
		}
		p = p[i+1:]
	}
	return n, nil
}

// repoEnv are inherited variables that would make git operate on a repository
// other than the one named by -C (e.g. GIT_DIR set by a hook that runs copse).
// From `git rev-parse --local-env-vars`, minus the config ones, which carry
// the user's own settings rather than a repository location.
var repoEnv = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_IMPLICIT_WORK_TREE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX",
	"GIT_SHALLOW_FILE", "GIT_GRAFT_FILE", "GIT_NAMESPACE",
}

// IsRepositoryEnv reports a variable that points git at a repository other than the
// directory it runs in (GIT_DIR set by a hook that runs copse). Other programs copse
// starts in a worktree (setup steps, test gates) drop these too.
func IsRepositoryEnv(name string) bool { return slices.Contains(repoEnv, name) }

// environ is os.Environ() without repoEnv, then the fixed settings, then r.Env
// (os/exec keeps the last value of a duplicated key, so r.Env wins; Run appends
// the Cmd's own env after it, which wins over all).
// resolvedBins caches where a bare program name ("git") is found on PATH, keyed by name
// and PATH: os/exec looks it up again for every command, a stat per PATH entry before the
// right one, which for `list --status` over hundreds of worktrees was thousands of stats.
var resolvedBins sync.Map // [2]string{name, PATH} -> absolute path

// resolveBin gives the absolute path of a bare name found on PATH (cached), and anything
// else unchanged; what cannot be found is left for os/exec to report as not found.
func resolveBin(bin string) string {
	if filepath.Base(bin) != bin {
		return bin
	}
	key := [2]string{bin, os.Getenv("PATH")}
	if p, ok := resolvedBins.Load(key); ok {
		return p.(string) // gone since: starting it fails as not found, as a lookup would
	}
	p, err := exec.LookPath(bin)
	if err != nil || !filepath.IsAbs(p) {
		return bin
	}
	resolvedBins.Store(key, p)
	return p
}

func (r *Runner) environ(read bool) []string {
	base := os.Environ()
	env := make([]string, 0, len(base)+3+len(r.Env))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(repoEnv, name) {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	if read {
		env = append(env, "GIT_OPTIONAL_LOCKS=0")
	}
	return append(env, r.Env...)
}
