package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/copse-dev/copse/internal/liveproc"
)

// Mutations of one repository are serialised twice over: an in-process semaphore (the
// picker and MCP server run several requests in one process) and an advisory flock on
// <common dir>/copse.lock (two copse processes, or copse and an agent's copse, cannot race).
//
// The holder writes who it is into the lock file once it has the flock; a waiter reads it
// after LockNoticeAfter and tells the user (Options.OnLockWait), and gives up after
// copse.lockTimeout (default DefaultLockTimeout) with code lock_timeout. The timeout is read
// from git config only when the lock is contended, so the usual path runs no extra git.

const (
	// LockNoticeAfter is how long a wait for the lock lasts before the holder is named.
	LockNoticeAfter = time.Second
	// DefaultLockTimeout bounds a wait for the lock when copse.lockTimeout is unset.
	DefaultLockTimeout = 30 * time.Second
	// lockFileName lives in the git common directory.
	lockFileName = "copse.lock"
)

// LockHolder is who holds the repository lock, as the holder recorded it. The zero value
// means the holder is unknown (it has not written yet, or the file cannot be read).
type LockHolder struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
	Session string    `json:"session,omitempty"` // the holder's session ("" when it had none to say)
}

// String names the holder for humans: `copse remove x (pid 42, since 12:00:01)`.
func (h LockHolder) String() string {
	if h.PID <= 0 {
		return "another process (it has not said who it is)"
	}
	cmd := h.Command
	if cmd == "" {
		cmd = "a process"
	}
	since := ""
	if h.Session != "" {
		since = ", session " + Escape(h.Session)
	}
	if !h.Since.IsZero() {
		since += ", since " + h.Since.Local().Format("15:04:05")
	}
	return fmt.Sprintf("%s (pid %d%s)", Escape(cmd), h.PID, since)
}

type lockNoticeKey struct{}

// WithLockWait returns a ctx whose requests report a wait for the repository lock to fn
// instead of Options.OnLockWait (the picker shows it in its status line). fn runs on the
// waiting goroutine and must not block.
func WithLockWait(ctx context.Context, fn func(LockHolder)) context.Context {
	return context.WithValue(ctx, lockNoticeKey{}, fn)
}

// repoLock is one repository's in-process half of the lock.
type repoLock struct {
	sem    chan struct{} // capacity 1: held while a request of this process has the lock
	mu     sync.Mutex
	holder LockHolder // who in this process holds sem
}

var (
	repoLocksMu sync.Mutex
	repoLocks   = map[string]*repoLock{}
)

func processLock(commonDir string) *repoLock {
	repoLocksMu.Lock()
	defer repoLocksMu.Unlock()
	l, ok := repoLocks[commonDir]
	if !ok {
		l = &repoLock{sem: make(chan struct{}, 1)}
		repoLocks[commonDir] = l
	}
	return l
}

// lockExisting is the lock for a mutation's checks (Prepare, dry runs): it waits for a
// holder like lock does, but never creates the lock file. No file means no holder.
func (s *Env) lockExisting(ctx context.Context) (func(), error) {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	return s.lockRepo(ctx, commonDir, false)
}

// lockRepo takes both locks, waiting until ctx is done or copse.lockTimeout passes. With
// create false a missing lock file is not made (and the flock half is skipped). The
// returned func releases what was taken.
func (s *Env) lockRepo(ctx context.Context, commonDir string, create bool) (func(), error) {
	w := &lockWait{s: s, ctx: ctx, start: time.Now()}
	rl := processLock(commonDir)
	self := LockHolder{PID: os.Getpid(), Command: processCommand(), Since: time.Now().UTC().Truncate(time.Second)}
	if sess, ok, err := ResolveSession(nil, s.Opts.Getenv); err == nil && ok {
		self.Session = sess.s // the agent's session, when this copse runs for one
	}

	// The in-process half.
	select {
	case rl.sem <- struct{}{}:
	default:
		w.holder = func() LockHolder { rl.mu.Lock(); defer rl.mu.Unlock(); return rl.holder }
	wait:
		for {
			select {
			case rl.sem <- struct{}{}:
				break wait
			case <-ctx.Done():
				return nil, lockErr(ctx.Err())
			case <-time.After(50 * time.Millisecond):
				if err := w.check(); err != nil {
					return nil, err
				}
			}
		}
	}
	rl.mu.Lock()
	rl.holder = self
	rl.mu.Unlock()
	releaseSem := func() { <-rl.sem }

	f, writable, err := s.openLockFile(ctx, commonDir, create)
	if err != nil {
		releaseSem()
		return nil, err
	}
	if f == nil { // no lock file and not ours to create: nobody holds the lock
		return releaseSem, nil
	}
	w.holder = func() LockHolder { return readHolder(f) }
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			releaseSem()
			return nil, Failed(CodeLockFailed, err, "", "cannot lock %s", Escape(f.Name()))
		}
		if err := w.check(); err != nil {
			f.Close()
			releaseSem()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			releaseSem()
			return nil, lockErr(ctx.Err())
		case <-time.After(delay):
		}
	}
	if writable {
		writeHolder(f, self)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
		releaseSem()
	}, nil
}

// openLockFile opens <commonDir>/copse.lock for the flock. With create it makes a missing
// file with the permissions core.sharedRepository asks for (the config is read only then);
// without, a missing file is (nil, false, nil). A file this process may not write (a
// read-only repository checked by a dry run) is opened read-only: flock needs no more,
// only the holder record is skipped.
func (s *Env) openLockFile(ctx context.Context, commonDir string, create bool) (*os.File, bool, error) {
	name := filepath.Join(commonDir, lockFileName)
	for {
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		if err == nil {
			return f, true, nil
		}
		if !create && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)) {
			if f, err := os.Open(name); err == nil {
				return f, false, nil
			}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, false, lockOpenErr(commonDir, err)
		}
		if !create {
			return nil, false, nil
		}
		perm, err := s.sharedPerm(ctx)
		if err != nil {
			return nil, false, err
		}
		f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue // another copse made it first: open theirs
		}
		if err != nil {
			return nil, false, lockOpenErr(commonDir, err)
		}
		if perm != nil {
			if fi, err := f.Stat(); err == nil {
				_ = f.Chmod(perm(fi.Mode().Perm()))
			}
		}
		return f, true, nil
	}
}

func lockOpenErr(commonDir string, err error) error {
	return Failed(CodeLockFailed, err, "check that the git directory is writable", "cannot open the copse lock in %s", Escape(commonDir))
}

// sharedPerm reads core.sharedRepository and returns how git would adjust a new file's
// mode (nil: leave the umask's mode), following git's calc_shared_perm: "group" (true, 1)
// adds group read/write, "all" (world, everybody, 2) adds read for others too, and an
// octal mode such as 0640 replaces the permission bits.
func (s *Env) sharedPerm(ctx context.Context) (func(fs.FileMode) fs.FileMode, error) {
	v, ok, err := s.Git.ConfigValue(ctx, s.Dir, "core.sharedRepository")
	if err != nil {
		return nil, GitFailure(CodeConfigFailed, err, "cannot read git config core.sharedRepository")
	}
	if !ok {
		return nil, nil
	}
	v = strings.ToLower(strings.TrimSpace(v))
	var add fs.FileMode
	switch v {
	case "", "umask", "false", "no", "off", "0":
		return nil, nil
	case "group", "true", "yes", "on", "1":
		add = 0o660
	case "all", "world", "everybody", "2":
		add = 0o664
	default:
		n, err := strconv.ParseUint(v, 8, 32)
		if err != nil || n&0o600 != 0o600 {
			return nil, Usage(CodeBadConfig, "core.sharedRepository", "see `git help config` (core.sharedRepository)",
				"git config core.sharedRepository is %s, which git does not accept either", Quote(v))
		}
		exact := fs.FileMode(n) & 0o666
		return func(fs.FileMode) fs.FileMode { return exact }, nil
	}
	return func(m fs.FileMode) fs.FileMode {
		if m&0o200 == 0 {
			return m | add&^0o222
		}
		return m | add
	}, nil
}

// maxHolderRecord bounds what a waiter reads of the lock file.
const maxHolderRecord = 4096

func writeHolder(f *os.File, h LockHolder) {
	b, err := json.Marshal(h)
	if err != nil {
		return
	}
	// Best effort: the record only helps a waiter name the holder.
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt(append(b, '\n'), 0)
	}
}

func readHolder(f *os.File) LockHolder {
	buf := make([]byte, maxHolderRecord)
	n, _ := f.ReadAt(buf, 0)
	var h LockHolder
	if json.Unmarshal(buf[:n], &h) != nil {
		return LockHolder{}
	}
	return h
}

// processCommand is this process's command line for the holder record, shortened.
func processCommand() string {
	if len(os.Args) == 0 {
		return ""
	}
	args := append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...)
	cmd := strings.Join(args, " ")
	if len(cmd) > 200 {
		cmd = cmd[:200] + "…"
	}
	return cmd
}

// lockWait is one contended wait: it names the holder after LockNoticeAfter and gives up
// after the configured timeout, read on the first contention.
type lockWait struct {
	s        *Env
	ctx      context.Context
	start    time.Time
	holder   func() LockHolder
	timeout  time.Duration // 0 until read
	notified bool
}

// check runs while the lock is contended.
func (w *lockWait) check() error {
	if w.timeout == 0 {
		t, err := w.s.LockTimeout(w.ctx)
		if err != nil {
			return err
		}
		w.timeout = t
	}
	waited := time.Since(w.start)
	if !w.notified && waited >= LockNoticeAfter {
		w.notified = true
		notify := w.s.Opts.OnLockWait
		if fn, ok := w.ctx.Value(lockNoticeKey{}).(func(LockHolder)); ok {
			notify = fn
		}
		if notify != nil {
			notify(w.holder())
		}
	}
	if waited >= w.timeout {
		h := w.holder()
		hint := "wait for it to finish and run the command again, or wait longer: `git config copse.lockTimeout 2m`"
		if h.PID > 0 {
			hint = fmt.Sprintf("wait for pid %d to finish and run the command again, or wait longer: `git config copse.lockTimeout 2m`", h.PID)
		}
		held := ""
		if !h.Since.IsZero() {
			held = " for " + FormatSpan(time.Since(h.Since).Round(time.Second))
		}
		if h.PID > 0 && liveproc.Stopped(h.PID) {
			// A stopped holder never lets go by itself: say so, and how to move it.
			held += ", which is stopped (Ctrl-Z or SIGSTOP)"
			hint = fmt.Sprintf("continue it (`fg` in its terminal, or kill -CONT %d) or end it (kill %d), then run the command again", h.PID, h.PID)
		}
		return &Error{Kind: KindFailed, Code: CodeLockTimeout, Hint: hint,
			Message: fmt.Sprintf("gave up after %s waiting for the repository lock, held by %s%s; nothing changed", FormatSpan(w.timeout), h, held)}
	}
	return nil
}

// lockTimeout is copse.lockTimeout: a Go duration ("45s", "2m") or whole seconds, at most a day.
func (s *Env) LockTimeout(ctx context.Context) (time.Duration, error) {
	v, ok, err := s.Git.ConfigValue(ctx, s.Dir, "copse.lockTimeout")
	if err != nil {
		return 0, GitFailure(CodeConfigFailed, err, "cannot read git config copse.lockTimeout")
	}
	if !ok {
		return DefaultLockTimeout, nil
	}
	d, err := ParseSpan(v, TimeoutRule)
	if err != nil {
		return 0, SpanError(CodeBadConfig, "copse.lockTimeout", v, TimeoutRule, err, "set a positive duration: `git config copse.lockTimeout 30s`")
	}
	return d, nil
}

func lockErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return Failed(CodeLockTimeout, err, "another copse is changing this repository; try again when it is done", "timed out waiting for the repository lock")
	}
	return &Error{Kind: KindCancelled, Code: CodeCancelled, Message: "cancelled while waiting for the repository lock; nothing changed", Err: err}
}
