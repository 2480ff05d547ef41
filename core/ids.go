package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/copse-dev/copse/core/landjobs"
	"github.com/copse-dev/copse/gitx"
	"golang.org/x/sys/unix"
)

// A linked worktree's id is the name of its admin directory, <common>/worktrees/<id>:
// git picks it when the worktree is made and keeps it for the worktree's life, it is
// unique in the repository, and it is never a path. The main checkout has none.

// WorktreeIDs maps each linked worktree's path (as git lists it) to its id, reading the
// admin directories the way git does: <admin>/gitdir holds "<path>/.git", trailing white
// space trimmed; a relative one is relative to the admin directory.
func WorktreeIDs(commonDir string) map[string]string {
	base := filepath.Join(commonDir, "worktrees")
	dir, err := os.Open(base)
	if err != nil {
		return nil
	}
	defer dir.Close()
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return nil
	}
	// Each gitdir file is opened relative to the worktrees directory: the kernel walks two
	// path components instead of the whole absolute path, once per worktree.
	dirFD := int(dir.Fd())
	ids := make(map[string]string, len(entries))
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		b, err := gitx.ReadSmallAt(dirFD, e.Name()+"/gitdir")
		if err != nil {
			continue
		}
		p := strings.TrimRight(string(b), " \t\r\n")
		p = strings.TrimSuffix(p, "/.git")
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Clean(filepath.Join(base, e.Name(), p))
		}
		ids[p] = e.Name()
	}
	return ids
}

// readSmall reads a small file with three system calls (gitx.ReadSmallAt): list reads one
// gitdir file per worktree, and os.ReadFile's nine were once the largest part of copse's
// own work in `copse list`.
func readSmall(path string) ([]byte, error) { return gitx.ReadSmallAt(unix.AT_FDCWD, path) }

// IdOf finds path's id in ids, comparing canonical paths when the plain one misses.
func IdOf(ids map[string]string, path string) string {
	if id, ok := ids[path]; ok {
		return id
	}
	cp := Canonical(path)
	for p, id := range ids {
		if Canonical(p) == cp {
			return id
		}
	}
	return ""
}

// adminDir is the admin directory of the worktree with id.
func AdminDir(commonDir, id string) string { return filepath.Join(commonDir, "worktrees", id) }

// listCommonDir finds the common dir for list without another git process when it can:
// the cached one, else the main checkout's .git directory (or the bare repository
// itself), checked by the admin layout git keeps there; else it asks git.
func (s *Env) listCommonDir(ctx context.Context, snap Snapshot) (string, error) {
	s.mu.Lock()
	commonDir := s.repo.commonDir
	s.mu.Unlock()
	if commonDir != "" {
		return commonDir, nil
	}
	if len(snap.Trees) > 0 {
		main := snap.Trees[0]
		guess := main.Path
		if !main.Bare {
			guess = filepath.Join(main.Path, ".git")
		}
		if st, err := os.Stat(filepath.Join(guess, "HEAD")); err == nil && st.Mode().IsRegular() {
			if st, err := os.Stat(filepath.Join(guess, "objects")); err == nil && st.IsDir() {
				return guess, nil
			}
		}
	}
	return s.CommonDir(ctx)
}

// ParseWorktreeID accepts an admin directory name: one path component, plain text.
func ParseWorktreeID(raw string) (string, error) {
	if err := CheckText("id", raw, 255); err != nil {
		return "", err
	}
	if raw == "." || raw == ".." || strings.ContainsAny(raw, "/\\") {
		return "", Usage(CodeBadID, "id", "use the id `copse list --json` shows", "id %s is not a worktree id", Quote(raw))
	}
	return raw, nil
}

// decorate fills a row's id and claim from git's record; commonDir ("" when unknown) is
// where an agent's lock is read for its time.
func decorate(w *Worktree, ids map[string]string, commonDir string) {
	if !w.Main && !w.Bare {
		w.ID = IdOf(ids, w.Path)
	}
	w.Claim = ClaimOf(w.Locked)
	admin := ""
	if commonDir != "" && w.ID != "" {
		admin = AdminDir(commonDir, w.ID)
	}
	if l, ok := agentLockOf(w.Locked, admin); ok {
		if l.live {
			c := l.claim
			w.Claim = &c
		} else {
			w.LockStale = true
		}
	}
}

// decorateRows fills ids and claims of list's rows. Ids are extra: if the admin
// directories cannot be read, rows go without them (git's list stays the truth).
func (s *Env) decorateRows(ctx context.Context, snap Snapshot, rows []Worktree) {
	var ids map[string]string
	var jobs []LandJob
	commonDir, err := s.listCommonDir(ctx, snap)
	if err == nil {
		var ok bool
		if ids, ok = snap.ids.idsFor(commonDir); !ok {
			ids = WorktreeIDs(commonDir)
		}
		// Plain file reads (no git, no lock): a record an owner left behind is marked
		// abandoned by the readers that run the queue (land status, the picker).
		jobs, _ = ReadJobs(landjobs.Dir(commonDir))
	}
	if err != nil {
		commonDir = ""
	}
	for i := range rows {
		decorate(&rows[i], ids, commonDir)
		rows[i].Land = newestLand(jobs, rows[i])
	}
	s.markEnded(rows)
}

// newestLand is the worktree's latest land job (jobs are ordered by ticket), matched by id
// when both have one, else by path.
func newestLand(jobs []LandJob, w Worktree) *LandJob {
	for i := len(jobs) - 1; i >= 0; i-- {
		jw := jobs[i].Worktree
		if (w.ID != "" && jw.ID != "" && jw.ID == w.ID) || ((w.ID == "" || jw.ID == "") && Canonical(jw.Path) == Canonical(w.Path)) {
			j := jobs[i]
			return &j
		}
	}
	return nil
}

// decorateOne fills one outcome row; mutations have read the common dir already.
func (s *Env) decorateOne(w *Worktree) {
	s.mu.Lock()
	commonDir := s.repo.commonDir
	s.mu.Unlock()
	var ids map[string]string
	if commonDir != "" {
		ids = WorktreeIDs(commonDir)
	}
	decorate(w, ids, commonDir)
	if w.Claim != nil {
		rows := []Worktree{*w}
		s.markEnded(rows)
		w.Claim = rows[0].Claim
	}
}

// worktreeOfID finds the listed worktree whose admin directory is id.
func (s *Env) WorktreeOfID(ctx context.Context, snap Snapshot, raw string) (gitx.Worktree, error) {
	id, err := ParseWorktreeID(raw)
	if err != nil {
		return gitx.Worktree{}, err
	}
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return gitx.Worktree{}, err
	}
	for p, got := range WorktreeIDs(commonDir) {
		if got != id {
			continue
		}
		if t, ok := Find(snap, p); ok {
			return t, nil
		}
	}
	return gitx.Worktree{}, Refused(CodeNoSuchWorktree, "`copse list --json` shows each worktree's id", "no worktree has id %s", Quote(id))
}

// PathOfID is the path of the worktree whose id is raw (for verbs that take a path, such
// as setup).
func (s *Service) PathOfID(ctx context.Context, raw string) (string, error) {
	snap, err := s.impl.ReadAndLearn(ctx)
	if err != nil {
		return "", err
	}
	t, err := s.impl.WorktreeOfID(ctx, snap, raw)
	return t.Path, err
}
