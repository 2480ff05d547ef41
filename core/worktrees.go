package core

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/copse-dev/copse/gitx"
	"github.com/copse-dev/copse/gitx/statuscache"
)

// Env is what an operation may use: one repository's state, git's runner, the backend,
// the lock and the snapshot reads. Everything that reads git goes through s.git.
type Env struct {
	reg      *Registry
	Opts     Options
	Git      *gitx.Runner
	Dir      string // where copse was started (-C)
	repo     repoState
	Backend  Backend
	History  *History
	Session  string
	mu       sync.Mutex        // guards repo, sessAt and returnTo
	returnTo map[string]string // canonical worktree → the exact directory back returns to
	sessAt   string            // where this session is after a switch ("" = where copse started)

	// statusCache serves listings a worktree's last status when stat data proves nothing
	// it depends on changed; display only (statuses), never a decision.
	statusCache statuscache.Cache
	// untracked is the repository's core.untrackedCache, read when first needed.
	untracked untrackedSetting

	// first is the snapshot Open read; the first List uses it instead of running git
	// again, so `copse list` costs exactly one git process.
	FirstMu sync.Mutex
	First   *Snapshot
	firstAt time.Time

	// beforeLiveCheck, set only by tests, runs right before an unforced removal (prune,
	// land's clean-up) looks for live processes: a process a test starts there is one that
	// began after the scan.
	BeforeLiveCheck func(path string)
}

// repoState is what copse knows of the repository from the last worktree list.
type repoState struct {
	root      string // main checkout
	current   string // worktree holding dir ("" when none)
	commonDir string // filled lazily (mutations need it for the lock)
}

// Snapshot is one reading of `git worktree list --porcelain -z`.
type Snapshot struct {
	Trees []gitx.Worktree
	Token StateToken
	ids   *idPrefetch // Open's snapshot only: the ids read while git listed
}

func openService(ctx context.Context, opts Options) (*Service, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	dir := opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, Failed(CodeNoCWD, err, "run copse from an existing directory or pass -C DIR", "cannot read the current directory")
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, Usage(CodeBadDir, "dir", "pass -C with an existing directory", "cannot use %s: %v", Quote(dir), err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, Usage(CodeBadDir, "dir", "pass -C with an existing directory", "%s is not a directory", Escape(abs))
	}
	if opts.Registry == nil {
		return nil, Usage(CodeNoOperations, "", "hand Open a Registry (core/ops.All)", "core.Open was given no operations")
	}
	s := &Env{
		reg:     opts.Registry,
		Opts:    opts,
		Git:     &gitx.Runner{Bin: opts.GitBin, Timeout: opts.Timeout, Env: opts.Env},
		Dir:     abs,
		History: NewHistory(),
	}
	s.statusCache.Env = opts.Env
	if opts.Registry.backends == nil {
		return nil, Usage(CodeNoOperations, "", "hand Open a Registry with its backends (core/ops.All)", "core.Open was given no backends")
	}
	pick := opts.Registry.backends.Start(ctx, s, opts.Backend)
	var snap Snapshot
	if opts.ListFirst {
		snap, err = s.readDisplay(ctx, func() *idPrefetch { return prefetchIDs(abs) })
	} else {
		snap, err = s.Read(ctx)
	}
	if err != nil {
		return nil, err
	}
	s.Learn(snap)
	s.First, s.firstAt = &snap, time.Now()
	be, err := pick(ctx)
	if err != nil {
		return nil, err
	}
	s.Backend = be
	s.Session = opts.Session
	if s.Session == "" {
		s.Session = be.Session()
	}
	s.seedPrevious(snap, opts.Previous)
	if h, ok := be.(SessionMemory); ok {
		// The tmux session remembers the worktree its last switch left: back works
		// across copse processes as it does with the shell's COPSE_PREVIOUS.
		h.SeedHistory(ctx, snap)
	}
	return &Service{impl: s}, nil
}

// supersedeFirst drops Open's reading: any newer one supersedes it.
func (s *Env) supersedeFirst() {
	s.FirstMu.Lock()
	s.First = nil
	s.FirstMu.Unlock()
	if h, ok := s.Backend.(SessionMemory); ok {
		h.DropFirst() // and the panes tmux listed beside it
	}
}

// readDisplay lists the worktrees for what only shows them (list, the picker's rows): from
// git's own files, with no git process, where gitx proves it reads them exactly as git
// would print them (the same bytes, so the same state token), else as read does. The ids
// come with a reading from the files; prefetch starts their reading beside git's when
// git must list. Every decision reads git itself (read).
func (s *Env) readDisplay(ctx context.Context, prefetch func() *idPrefetch) (Snapshot, error) {
	if trees, d, ok := s.Git.WorktreesFromFiles(s.Dir); ok {
		if err := s.verifyDirect(ctx, d.Raw); err != nil {
			return Snapshot{}, err
		}
		s.supersedeFirst()
		// The common dir, resolved as git's rev-parse --path-format=absolute gives it: the
		// status cache and the ids need it, and asking git was a process on the way to
		// the picker's first statuses.
		s.mu.Lock()
		if s.repo.commonDir == "" {
			s.repo.commonDir = d.CommonDir
		}
		s.mu.Unlock()
		sum := sha256.Sum256(d.Raw)
		return Snapshot{Trees: trees, Token: StateToken(hex.EncodeToString(sum[:12])), ids: readIDs(d.CommonDir, d.IDs)}, nil
	}
	var ids *idPrefetch
	if prefetch != nil {
		ids = prefetch()
	}
	snap, err := s.Read(ctx)
	snap.ids = ids
	return snap, err
}

// VerifyDirectListEnv, set to 1 (Options.Getenv), makes every list copse reads from git's files also ask git,
// and fail when git printed other bytes while the files stayed as they were read (a second
// reading after git's agrees with the first). The tests of every package that lists set it
// (coretest.Main), so the whole suite checks the reader against git on every repository it
// makes, not only the reader's own tests (coretest.Env carries it).
const VerifyDirectListEnv = "COPSE_VERIFY_DIRECT_LIST"

func (s *Env) verifyDirect(ctx context.Context, raw []byte) error {
	if s.Opts.Getenv(VerifyDirectListEnv) != "1" {
		return nil
	}
	_, fromGit, err := s.Git.Worktrees(ctx, s.Dir)
	if err != nil {
		return nil // git failed (a worktree half added): nothing to compare
	}
	again, ok := s.Git.ReadWorktreeList(s.Dir)
	if ok && bytes.Equal(again.Raw, raw) && !bytes.Equal(fromGit, raw) {
		return fmt.Errorf("core: the worktree list read from git's files differs from git's own in %s:\n files: %q\n   git: %q", s.Dir, raw, fromGit)
	}
	return nil
}

// Read lists the worktrees with git. Failure to list from dir means dir is not in a
// repository.
func (s *Env) Read(ctx context.Context) (Snapshot, error) {
	s.supersedeFirst()
	dir := s.listDir()
	trees, raw, err := s.Git.Worktrees(ctx, dir)
	// git fails to list while another git is half-way through `worktree add` (the new
	// admin directory is there, its commondir or gitdir file not yet): that passes within
	// milliseconds, so such a list is read again a few times before it counts as failed.
	for try := 0; err != nil && try < 8 && halfAdded(err); try++ {
		select {
		case <-ctx.Done():
			try = 8
			continue
		case <-time.After(time.Duration(5<<try) * time.Millisecond):
		}
		trees, raw, err = s.Git.Worktrees(ctx, dir)
	}
	if err != nil {
		var ge *gitx.Error
		if errors.As(err, &ge) && ge.Kind == gitx.ErrExit && strings.Contains(ge.Stderr, "not a git repository") {
			return Snapshot{}, &Error{Kind: KindUsage, Code: CodeNotARepository, Err: err,
				Message: Escape(s.Dir) + " is not inside a git repository",
				Hint:    "cd into a repository or pass -C DIR"}
		}
		return Snapshot{}, GitFailure(CodeListFailed, err, "cannot list worktrees")
	}
	sum := sha256.Sum256(raw)
	return Snapshot{Trees: trees, Token: StateToken(hex.EncodeToString(sum[:12]))}, nil
}

// listDir is where git lists the worktrees from: the directory copse started in, or the
// main checkout once that directory is gone (a land typed in the worktree it cleaned up
// reads the list back after removing it).
func (s *Env) listDir() string {
	if root := s.Root(); root != "" && !Exists(s.Dir) {
		return root
	}
	return s.Dir
}

// halfAdded reports git's complaint about a worktree admin directory another git is
// still writing ("failed to read .git/worktrees/x/commondir").
func halfAdded(err error) bool {
	var ge *gitx.Error
	return errors.As(err, &ge) && ge.Kind == gitx.ErrExit && strings.Contains(ge.Stderr, "failed to read") &&
		(strings.Contains(ge.Stderr, "/commondir") || strings.Contains(ge.Stderr, "/gitdir"))
}

// firstTTL bounds how old Open's snapshot may be for the first List to reuse it.
const FirstTTL = 2 * time.Second

// Learn updates the main checkout and current worktree from a snapshot. Several
// requests may run at once on one Service (the picker checks a branch name while an
// operation runs), so the fields are guarded by s.mu.
func (s *Env) Learn(snap Snapshot) {
	root := s.Root()
	if len(snap.Trees) > 0 {
		root = snap.Trees[0].Path
	}
	current := ""
	// Fast path: git records worktree paths as given, usually already canonical; resolve
	// symlinks (a syscall per path component) only when the plain comparison finds nothing.
	for _, resolve := range []bool{false, true} {
		here := s.Dir
		if resolve {
			here = Canonical(s.Dir)
		}
		best := -1
		for _, t := range snap.Trees {
			if t.Bare {
				continue
			}
			p := t.Path
			if resolve {
				p = Canonical(p)
			}
			if Within(here, p) && len(p) > best {
				best = len(p)
				current = t.Path
			}
		}
		if current != "" {
			break
		}
	}
	s.mu.Lock()
	s.repo.root, s.repo.current = root, current
	s.mu.Unlock()
}

func (s *Env) Root() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repo.root
}

func (s *Env) Current() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repo.current
}

// CommonDir asks git once for the common git directory (the lock lives there).
func (s *Env) CommonDir(ctx context.Context) (string, error) {
	s.mu.Lock()
	commonDir := s.repo.commonDir
	s.mu.Unlock()
	if commonDir != "" {
		return commonDir, nil
	}
	commonDir, err := s.Git.CommonDir(ctx, s.Dir)
	if err != nil {
		return "", GitFailure(CodeRepoInfoFailed, err, "cannot find the git directory")
	}
	s.mu.Lock()
	s.repo.commonDir = commonDir
	s.mu.Unlock()
	return commonDir, nil
}

func (s *Env) rows(snap Snapshot) []Worktree {
	out := make([]Worktree, 0, len(snap.Trees))
	for i, t := range snap.Trees {
		out = append(out, Worktree{
			Branch: t.Branch, Path: t.Path, Head: t.Head,
			Main: i == 0 && !t.Bare, Current: t.Path == s.Current(),
			Detached: t.Detached, Bare: t.Bare, Locked: t.Locked, Prunable: t.Prunable,
			Rebasing: t.Rebasing, Bisecting: t.Bisecting,
		})
	}
	return out
}

func (s *Env) List(ctx context.Context, withStatus bool) (*Listing, error) {
	s.FirstMu.Lock()
	first := s.First
	if time.Since(s.firstAt) > FirstTTL {
		first = nil
	}
	s.First = nil
	s.FirstMu.Unlock()
	var snap Snapshot
	if first != nil {
		snap = *first
	} else {
		var err error
		if snap, err = s.readDisplay(ctx, nil); err != nil {
			return nil, err
		}
	}
	s.Learn(snap)
	rows := s.rows(snap)
	s.decorateRows(ctx, snap, rows)
	var warnings []string
	// git's list is the truth; the backend's annotations are extra. If Herdr cannot be
	// asked, show git's rows and say plainly that workspace ids are missing.
	if err := s.Backend.Annotate(ctx, rows); err != nil {
		if ctx.Err() != nil {
			return nil, AsError(err)
		}
		warnings = append(warnings, "workspace ids unavailable: "+AsError(err).Error())
	}
	if withStatus {
		idx := make(map[string]int, len(rows))
		var paths []string
		for i, r := range rows {
			if r.Bare {
				continue
			}
			idx[r.Path] = i
			paths = append(paths, r.Path)
		}
		var mu sync.Mutex
		s.statuses(ctx, NewStatusQueue(paths), 0, func(r StatusResult) {
			st := r.Status
			mu.Lock()
			rows[idx[r.Path]].Status = &st
			mu.Unlock()
		})
		// A row the pool never reached (cancelled) is an error for that row, never clean.
		for i := range rows {
			if !rows[i].Bare && rows[i].Status == nil {
				rows[i].Status = &Status{Error: "status not computed: cancelled"}
			}
		}
		found := setProcesses(rows)
		s.Backend.Agents(ctx, rows)
		setRunning(rows, found)
		s.applyAgentStates(rows)
	}
	return &Listing{RepoRoot: s.Root(), Backend: s.Backend.Name(), Worktrees: rows, Warnings: warnings, Token: snap.Token}, nil
}

// defaultWorkers bounds the status pool: git status is part CPU, part I/O wait.
func defaultWorkers() int { return min(max(2*runtime.NumCPU(), 4), 16) }

func (s *Env) statuses(ctx context.Context, q *StatusQueue, workers int, emit func(StatusResult)) {
	if workers <= 0 {
		workers = defaultWorkers()
	}
	// One write of the cache file for the whole pool, made before the last status is
	// reported: whoever waits for every status has waited for the write too (a caller that
	// then quits, or removes the repository, never cuts it short). A cancelled pool (the
	// picker quit, a new load replaced it) writes nothing: its process may be on its way out.
	var (
		wg      sync.WaitGroup
		left    atomic.Int64
		flushed atomic.Bool
	)
	left.Store(int64(q.Len()))
	// One cache pass for the pool: what every worktree of the repository depends on alike
	// is read once for the listing, not once per worktree.
	pass := s.statusCache.Pass()
	flush := func() {
		if ctx.Err() == nil && flushed.CompareAndSwap(false, true) {
			s.statusCache.Flush()
		}
	}
	for range min(workers, q.Len()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each worker takes the queue's first path when it is free, so a path moved to
			// the front runs next. Once ctx is cancelled no new path is taken.
			for ctx.Err() == nil {
				p, ok := q.next()
				if !ok {
					return
				}
				r := StatusResult{Path: p, Status: s.displayStatus(ctx, pass, p)}
				if left.Add(-1) == 0 {
					flush() // every status is computed (and stored) by now
				}
				emit(r)
			}
		}()
	}
	wg.Wait()
	flush()
}

// displayStatus is a worktree's status for a listing (list --status, the picker, pick):
// the cached one when the status cache proves nothing it depends on has changed, else
// git's, which is then cached. Nothing that decides anything calls it; they call status.
func (s *Env) displayStatus(ctx context.Context, pass *statuscache.Pass, path string) Status {
	if ctx.Err() != nil {
		return Status{Error: "status not computed: cancelled"}
	}
	st, proof, hit := pass.Lookup(path)
	if hit {
		return FromGitStatus(st)
	}
	var known *gitx.GitDirState // what the proof just read of the git directory, not read again
	if proof != nil {
		known = proof.GitDir()
	}
	display, _ := s.untrackedCache(ctx)
	st, err := s.Git.DisplayStatus(ctx, path, display, known)
	if err != nil {
		return statusFailure(err)
	}
	s.statusCache.Store(proof, st)
	return FromGitStatus(st)
}

// status reads one worktree's status from git, with the untracked cache off (it informs a
// decision); a failure becomes Status.Error for that row.
func (s *Env) status(ctx context.Context, path string) Status {
	if ctx.Err() != nil {
		return Status{Error: "status not computed: cancelled"}
	}
	st, err := s.Git.Status(ctx, path)
	if err != nil {
		return statusFailure(err)
	}
	return FromGitStatus(st)
}

// statusFailure is a status git could not read, as the row's error.
func statusFailure(err error) Status {
	msg := err.Error()
	var ge *gitx.Error
	if errors.As(err, &ge) && ge.Stderr != "" {
		msg = gitMessage(ge.Stderr)
	}
	return Status{Error: Escape(msg)}
}

func FromGitStatus(st gitx.Status) Status {
	return Status{
		Staged: st.Staged, Unstaged: st.Unstaged, Untracked: st.Untracked, Conflicted: st.Conflicted,
		Upstream: st.Upstream, Ahead: st.Ahead, Behind: st.Behind, Rebasing: st.Rebasing, Merging: st.Merging,
	}
}

func (s *Env) branches(ctx context.Context) ([]string, error) {
	b, err := s.Git.Branches(ctx, s.Dir)
	if err != nil {
		return nil, GitFailure(CodeBranchesFailed, err, "cannot list branches")
	}
	return b, nil
}

// GitFailure wraps a git error; cancellation stays cancellation.
func GitFailure(code string, err error, what string) *Error {
	var ge *gitx.Error
	if errors.As(err, &ge) {
		switch ge.Kind {
		case gitx.ErrCanceled:
			return &Error{Kind: KindCancelled, Code: CodeCancelled, Message: what + ": cancelled", Err: err}
		case gitx.ErrOutputLimit:
			name := ge.Command()
			hint := "check hooks (e.g. post-checkout) that print a lot of output"
			if name == "git worktree list" {
				hint = "a worktree may be locked with a huge reason: see `git worktree list`, then `git worktree unlock PATH`"
			}
			return &Error{Kind: KindFailed, Code: CodeOutputLimit, Err: err, Hint: hint,
				Message: what + ": " + name + " printed more than the " + byteSize(ge.Limit) + " limit"}
		case gitx.ErrTimeout:
			return &Error{Kind: KindFailed, Code: CodeTimeout, Err: err, Message: what + ": git timed out", Hint: "check hooks that hang"}
		case gitx.ErrNotFound:
			return &Error{Kind: KindFailed, Code: CodeGitNotFound, Err: err, Message: what + ": git is not installed", Hint: "install git"}
		case gitx.ErrExit:
			msg := strings.TrimSpace(ge.Stderr)
			if msg == "" {
				msg = "git exited with status " + strconv.Itoa(ge.ExitCode) + " and no error output"
			}
			return &Error{Kind: KindFailed, Code: code, Err: err, Message: what + ": " + Escape(gitMessage(msg))}
		}
	}
	return Failed(code, err, "", "%s: %s", what, Escape(err.Error()))
}

// byteSize shows an output cap: "2 MB" (MiB, as people say it), or bytes when uneven.
func byteSize(n int64) string {
	if n > 0 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MB"
	}
	return strconv.FormatInt(n, 10) + "-byte"
}

func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Canonical resolves symlinks of the longest existing prefix of p, so that two spellings
// of one place compare equal and a path reached through a symlink is seen for what it is.
func Canonical(p string) string {
	p = filepath.Clean(p)
	rest := ""
	cur := p
	for {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			if rest == "" {
				return r
			}
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether p is dir or lies inside it (both canonical).
func Within(p, dir string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

// seedPrevious takes the shell's previous directory (the shell integration hands it over as
// COPSE_PREVIOUS; git backend only, where the session is the shell). The shell records
// $PWD, which may be a subdirectory: history gets the worktree that holds it, and back
// returns to that very directory while it exists. A relative path, or one in no live
// worktree, is ignored.
func (s *Env) seedPrevious(snap Snapshot, prev string) {
	if prev == "" || !filepath.IsAbs(prev) || s.Backend.HasWorkspaces() {
		return
	}
	cp := Canonical(prev)
	best := ""
	for _, t := range snap.Trees {
		if t.Bare || t.Prunable != nil {
			continue
		}
		if Within(cp, Canonical(t.Path)) && len(t.Path) > len(best) {
			best = t.Path
		}
	}
	if best == "" {
		return
	}
	s.History.Visit(s.Session, best)
	s.mu.Lock()
	s.returnTo = map[string]string{Canonical(best): filepath.Clean(prev)}
	s.mu.Unlock()
}

// BackDir is where back should land in worktree root: the exact directory the shell
// left, if it lies in that worktree and still exists, else the root.
func (s *Env) BackDir(root string) string {
	s.mu.Lock()
	exact, ok := s.returnTo[Canonical(root)]
	s.mu.Unlock()
	if ok {
		if st, err := os.Stat(exact); err == nil && st.IsDir() {
			return exact
		}
	}
	return root
}
