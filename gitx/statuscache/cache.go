// Package statuscache keeps each worktree's last `git status` and proves, from stat data
// alone, that nothing it depends on has changed since, so a listing can show it without
// starting git. It is for display only (copse list --status, the picker, pick): every
// decision (remove, prune, land, what would be lost) reads git afresh and never asks here.
//
// A status is reused only when a proof taken now equals the one taken just before git
// ran: the worktree's .git file, HEAD and the branch it names, packed-refs, the upstream's
// ref, the index file, the stat data of every file the index lists, of every directory of
// the worktree (the untracked scan) and of every .gitignore in it, info/exclude, the
// excludes file and the config files git reads, and the rebase and merge markers. It
// follows git's racy-timestamp rule: if anything it looked at was modified in the second
// the proof was taken (or later), the status is not stored, so an edit in the same second
// as the read is never missed. Where it cannot prove freshness (a split or sparse index,
// submodules, reftable, config includes, a huge tree, a clock that went backwards) it
// says so and the caller runs git.
package statuscache

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// version is the cache file's format; a file of another version is ignored (and replaced).
// It is also hashed into every proof, so a change of what a proof covers invalidates all.
const version = 1

// maxDirs bounds the untracked scan's walk: past it (a tree of build output) the proof
// would cost what git does, so the cache gives up and git runs.
const maxDirs = 4000

// maxIndexBytes bounds the index of a worktree the cache tries to prove (about 5000
// files). A proof lstat()s every file the index lists, as git status does; past a few
// thousand files that is most of git's own cost, so the proof would save little and, when
// something did change, cost nearly as much again. Such worktrees run git directly.
const maxIndexBytes = 512 << 10

// errTooBig is a worktree with more than maxDirs directories.
var errTooBig = errors.New("statuscache: too many directories to prove")

// tooBigRetry is how long a worktree found too big is not walked again: the walk up to
// maxDirs costs as much as git's status, and would be paid on top of it every time.
const tooBigRetry = 10 * time.Minute

// maxEntries bounds the cache file: past it the entries read longest ago are dropped
// (worktrees long gone among them).
const maxEntries = 8192

// maxListed bounds the directories a cached status may list (UntrackedDirs and
// IgnoredDirs); a status listing more is not cached, which bounds each entry.
const maxListed = 256

// racyMargin widens the racy second backwards: file times come from the kernel's coarse
// clock, which lags the wall clock by up to a tick.
const racyMargin = 20 * time.Millisecond

// Cache reads and writes the status cache: one file per repository,
// <git common dir>/copse-status/statuses.json, read once per Cache and written back by
// Flush (one write for a whole listing, not one per worktree). It is safe for
// concurrent use. The zero value is ready to use.
type Cache struct {
	// Env is extra environment (KEY=VALUE, later entries win) over the process's, as for
	// gitx.Runner.Env: it decides which config and excludes files git reads.
	Env []string
	// Now is the clock; time.Now when nil (tests move it).
	Now func() time.Time

	// Tests only: grain coarsens every time the proof reads to that step (a filesystem
	// with whole-second times), and off turns single checks off, so each test shows that
	// its scenario is caught by the check it names and by nothing else.
	grain time.Duration
	off   map[string]bool

	mu    sync.Mutex
	repos map[string]*repoFile // by common dir
}

// repoFile is one repository's cache file as this Cache knows it.
type repoFile struct {
	file    string
	entries map[string]entry // by worktree path
	dirty   map[string]bool  // entries to write back
}

// Proof is what one worktree's status depended on at one moment, read without git.
type Proof struct {
	worktree string
	common   string // the repository's common dir: where its cache file lives
	at       time.Time
	sum      [sha256.Size]byte
	racy     bool   // something was modified in the proof's second or later
	upstream string // the upstream whose ref the proof covers ("" = none)
}

// fileFormat is the cache file.
type fileFormat struct {
	Version int     `json:"v"`
	Entries []entry `json:"entries"`
}

// entry is one worktree's cached status.
type entry struct {
	Worktree string      `json:"worktree"`
	At       int64       `json:"at"`    // the proof's time, Unix nanoseconds
	Proof    string      `json:"proof"` // hex; "" = no usable status, only the upstream's name
	Upstream string      `json:"upstream,omitempty"`
	TooBig   bool        `json:"too_big,omitempty"` // the walk passed maxDirs at At
	Status   gitx.Status `json:"status"`
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Cache) getenv(key string) string {
	for i := len(c.Env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(c.Env[i], "="); ok && k == key {
			return v
		}
	}
	return os.Getenv(key)
}

// Lookup proves the worktree's state now and returns its cached status when the proof
// matches the stored one. The Proof (nil when freshness cannot be proved at all) is for
// Store after git has run: it was taken before git, so a change while git runs makes the
// stored proof stale rather than the status wrong.
func (c *Cache) Lookup(worktree string) (gitx.Status, *Proof, bool) {
	loc, err := locate(worktree)
	if err != nil {
		return gitx.Status{}, nil, false
	}
	stored, haveStored := c.get(loc.common, worktree)
	if haveStored && stored.TooBig {
		if age := c.now().UnixNano() - stored.At; age >= 0 && age < int64(tooBigRetry) {
			return gitx.Status{}, nil, false
		}
	}
	p, err := c.prove(loc, stored.Upstream)
	if errors.Is(err, errTooBig) {
		c.put(loc.common, entry{Worktree: worktree, At: c.now().UnixNano(), TooBig: true})
	}
	if err != nil {
		return gitx.Status{}, nil, false
	}
	if !haveStored || stored.Proof == "" || stored.Proof != hex.EncodeToString(p.sum[:]) {
		return gitx.Status{}, p, false
	}
	// A clock that went backwards could stamp a new edit with times the proof already saw.
	if p.at.UnixNano() < stored.At && !c.off["clock"] {
		return gitx.Status{}, p, false
	}
	return stored.Status, p, true
}

// Store records st, read by git after p was taken, for Flush to write. A racy proof, or
// one that did not cover the upstream git reported, keeps only the upstream's name for the
// next proof.
func (c *Cache) Store(p *Proof, st gitx.Status) {
	if p == nil {
		return
	}
	e := entry{Worktree: p.worktree, At: p.at.UnixNano(), Upstream: st.Upstream}
	if (!p.racy || c.off["racy"]) && p.upstream == st.Upstream && len(st.UntrackedDirs)+len(st.IgnoredDirs) <= maxListed {
		e.Proof, e.Status = hex.EncodeToString(p.sum[:]), st
	}
	c.put(p.common, e)
}

// Flush writes the entries stored since the last Flush into their repositories' cache
// files: each file is read again, updated and replaced by rename, so a reader sees the
// old file or the new one, and another process's entries for other worktrees are kept.
// Failures are ignored: the cache only ever saves work.
func (c *Cache) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.repos {
		if len(r.dirty) == 0 {
			continue
		}
		merged := readFile(r.file)
		for w := range r.dirty {
			merged[w] = r.entries[w]
		}
		r.dirty = nil
		write(r.file, merged)
	}
}

func (c *Cache) repo(common string) *repoFile {
	r, ok := c.repos[common]
	if !ok {
		file := filepath.Join(common, "copse-status", "statuses.json")
		r = &repoFile{file: file, entries: readFile(file)}
		if c.repos == nil {
			c.repos = map[string]*repoFile{}
		}
		c.repos[common] = r
	}
	return r
}

func (c *Cache) get(common, worktree string) (entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.repo(common).entries[worktree]
	return e, ok
}

func (c *Cache) put(common string, e entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.repo(common)
	r.entries[e.Worktree] = e
	if r.dirty == nil {
		r.dirty = map[string]bool{}
	}
	r.dirty[e.Worktree] = true
}

// readFile reads a cache file; one that is missing, corrupt or of another version reads
// as empty (and is replaced by the next Flush).
func readFile(file string) map[string]entry {
	out := map[string]entry{}
	b, err := os.ReadFile(file)
	if err != nil {
		return out
	}
	var f fileFormat
	if json.Unmarshal(b, &f) != nil || f.Version != version {
		return out
	}
	for _, e := range f.Entries {
		if e.Worktree != "" {
			out[e.Worktree] = e
		}
	}
	return out
}

func write(file string, entries map[string]entry) {
	f := fileFormat{Version: version, Entries: make([]entry, 0, len(entries))}
	for _, e := range entries {
		f.Entries = append(f.Entries, e)
	}
	if len(f.Entries) > maxEntries {
		slices.SortFunc(f.Entries, func(a, b entry) int { return cmp.Compare(b.At, a.At) })
		f.Entries = f.Entries[:maxEntries]
	}
	b, err := json.Marshal(f)
	if err != nil {
		return
	}
	// Only the cache's own directory is made: a repository removed meanwhile must not
	// come back as an empty git directory holding a cache.
	dir := filepath.Dir(file)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), file) != nil {
		os.Remove(tmp.Name())
	}
}

// location is where a worktree's git state lives.
type location struct {
	worktree, dotgit, gitDir, common string
}

// locate finds the worktree's git directory and the common one the way git does for a
// worktree root: .git is the directory (main worktree) or a "gitdir: PATH" file (linked),
// whose commondir file names the common directory.
func locate(worktree string) (location, error) {
	loc := location{worktree: worktree, dotgit: filepath.Join(worktree, ".git")}
	fi, err := os.Lstat(loc.dotgit)
	if err != nil {
		return loc, err
	}
	switch {
	case fi.IsDir():
		loc.gitDir = loc.dotgit
	case fi.Mode().IsRegular():
		b, err := readSmall(loc.dotgit)
		if err != nil {
			return loc, err
		}
		target, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
		if !ok || target == "" {
			return loc, errors.New("statuscache: bad .git file")
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(worktree, target)
		}
		loc.gitDir = target
	default:
		return loc, errors.New("statuscache: .git is neither a directory nor a file")
	}
	loc.common = loc.gitDir
	if b, err := readSmall(filepath.Join(loc.gitDir, "commondir")); err == nil {
		commonDir := strings.TrimRight(string(b), "\r\n")
		if !filepath.IsAbs(commonDir) {
			commonDir = filepath.Join(loc.gitDir, commonDir)
		}
		loc.common = filepath.Clean(commonDir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return loc, err
	}
	return loc, nil
}

func readSmall(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil && len(b) > 64<<10 {
		return nil, errors.New("statuscache: file too large")
	}
	return b, err
}

// prover hashes what it reads and notes anything modified in the racy window.
type prover struct {
	h         hash.Hash
	grain     int64 // nanoseconds; 0 = as the system reports
	threshold int64 // Unix seconds: a time at or after this is racy
	racy      bool
	buf       [8]byte
	off       map[string]bool // tests: Cache.off
}

func (p *prover) str(s string) {
	p.num(int64(len(s)))
	p.h.Write([]byte(s))
}

func (p *prover) num(n int64) {
	binary.LittleEndian.PutUint64(p.buf[:], uint64(n))
	p.h.Write(p.buf[:])
}

// stat hashes path's stat data (or that it is missing). A time in the racy window marks
// the proof racy. Any other error means the state cannot be read: no proof.
func (p *prover) stat(path string) (os.FileInfo, error) {
	p.str(path)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		p.num(-1)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return fi, p.info(fi)
}

func (p *prover) info(fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("statuscache: no stat data")
	}
	csec, cnsec, ok := changeTime(st)
	if !ok {
		return errors.New("statuscache: no change time")
	}
	m := fi.ModTime()
	msec, mnsec := m.Unix(), int64(m.Nanosecond())
	if p.grain > 0 {
		mnsec, cnsec = mnsec/p.grain*p.grain, cnsec/p.grain*p.grain
	}
	p.num(msec)
	p.num(mnsec)
	p.num(csec)
	p.num(cnsec)
	p.num(fi.Size())
	p.num(int64(fi.Mode()))
	p.num(int64(st.Ino))
	p.num(int64(st.Dev))
	p.num(int64(st.Uid))
	p.num(int64(st.Gid))
	if msec >= p.threshold || csec >= p.threshold {
		p.racy = true
	}
	return nil
}

// content hashes a small file's stat data and bytes (or that it is missing). It opens
// the file once and reads its stat data from the open file: a proof reads several such
// files per worktree, and system calls are most of its cost.
func (p *prover) content(path string) ([]byte, error) {
	p.str(path)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		p.num(-1)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 64<<10 {
		return nil, errUnprovable
	}
	if err := p.info(fi); err != nil {
		return nil, err
	}
	b := make([]byte, fi.Size())
	if _, err := readFull(f, b); err != nil {
		return nil, err
	}
	p.str(string(b))
	return b, nil
}

func (c *Cache) prove(loc location, upstream string) (*Proof, error) {
	if fi, err := os.Stat(filepath.Join(loc.gitDir, "index")); err == nil && fi.Size() > maxIndexBytes {
		return nil, errUnprovable
	}
	at := c.now()
	pr := &prover{h: sha256.New(), threshold: at.Add(-racyMargin).Unix(), grain: int64(c.grain)}
	on := func(check string) bool { return !c.off[check] }
	pr.num(version)
	pr.str(loc.worktree)
	// A linked worktree's .git file names its git directory. The main worktree's .git
	// directory is not stat'ed: its mtime moves with every lock file git (or this cache)
	// creates in it, and what in it matters is read below.
	if loc.dotgit != loc.gitDir {
		if _, err := pr.content(loc.dotgit); err != nil {
			return nil, err
		}
	}
	// reftable keeps refs in binary tables this does not read.
	if fi, _ := os.Lstat(filepath.Join(loc.common, "reftable")); fi != nil {
		return nil, errUnprovable
	}
	headFile := filepath.Join(loc.gitDir, "HEAD")
	var head []byte
	var err error
	if on("head") {
		head, err = pr.content(headFile)
	} else {
		head, err = readSmall(headFile)
	}
	if err != nil || head == nil {
		return nil, errors.Join(err, errUnprovable)
	}
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok && on("ref") {
		if err := pr.ref(loc, ref); err != nil {
			return nil, err
		}
	}
	if upstream != "" && on("upstream") {
		// git names the upstream by its short name: a remote-tracking branch or a local one.
		for _, ref := range []string{"refs/remotes/" + upstream, "refs/heads/" + upstream} {
			if err := pr.ref(loc, ref); err != nil {
				return nil, err
			}
		}
	}
	files := []string{
		filepath.Join(loc.common, "packed-refs"),
		filepath.Join(loc.common, "refs", "replace"),
		filepath.Join(loc.common, "shallow"),
		filepath.Join(loc.common, "info", "grafts"),
		filepath.Join(loc.gitDir, "MERGE_HEAD"),
		filepath.Join(loc.gitDir, "rebase-merge"),
		filepath.Join(loc.gitDir, "rebase-apply"),
	}
	if on("exclude") {
		files = append(files, filepath.Join(loc.common, "info", "exclude"))
	}
	for _, f := range files {
		if _, err := pr.stat(f); err != nil {
			return nil, err
		}
	}
	if err := c.config(pr, loc); err != nil {
		return nil, err
	}
	pr.off = c.off
	if err := pr.index(loc); err != nil {
		return nil, err
	}
	if err := pr.walk(loc.worktree, true, new(int)); err != nil {
		return nil, err
	}
	p := &Proof{worktree: loc.worktree, common: loc.common, at: at, racy: pr.racy, upstream: upstream}
	pr.h.Sum(p.sum[:0])
	return p, nil
}

// ref hashes a loose ref (refs under refs/heads and refs/remotes live in the common
// directory; packed ones are covered by packed-refs' stat). A symbolic ref is not followed.
func (p *prover) ref(loc location, ref string) error {
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return errUnprovable
	}
	b, err := p.content(filepath.Join(loc.common, filepath.FromSlash(ref)))
	if err != nil {
		return err
	}
	if bytes.HasPrefix(b, []byte("ref:")) {
		return errUnprovable
	}
	return nil
}

// config hashes the config files git reads for this worktree and the excludes file they
// name. Includes (which may depend on the directory) and config given in the environment
// are not followed: no proof.
func (c *Cache) config(p *prover, loc location) error {
	if c.getenv("GIT_CONFIG_PARAMETERS") != "" || c.getenv("GIT_CONFIG_COUNT") != "" {
		return errUnprovable
	}
	home := c.getenv("HOME")
	xdg := c.getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var files []string
	if c.getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if f := c.getenv("GIT_CONFIG_SYSTEM"); f != "" {
			files = append(files, f)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	if f := c.getenv("GIT_CONFIG_GLOBAL"); f != "" {
		files = append(files, f)
	} else {
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	files = append(files, filepath.Join(loc.common, "config"), filepath.Join(loc.gitDir, "config.worktree"))
	excludes := ""
	if xdg != "" {
		excludes = filepath.Join(xdg, "git", "ignore")
	}
	for _, f := range files {
		b, err := p.content(f)
		if err != nil {
			return err
		}
		v, ok, err := excludesFile(b)
		if err != nil {
			return err
		}
		if ok {
			excludes = v
		}
	}
	if rest, ok := strings.CutPrefix(excludes, "~/"); ok && home != "" {
		excludes = filepath.Join(home, rest)
	}
	if excludes != "" {
		if !filepath.IsAbs(excludes) {
			return errUnprovable // relative to where git runs: guessing is not proving
		}
		if _, err := p.stat(excludes); err != nil {
			return err
		}
	}
	return nil
}

// excludesFile finds core.excludesFile in one config file's text (the last one wins). An
// include, or a value written in a way this simple reading could get wrong (quotes,
// escapes, continuation lines), is errUnprovable.
func excludesFile(b []byte) (string, bool, error) {
	section, value, found := "", "", false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return "", false, errUnprovable
			}
			section = strings.ToLower(strings.TrimSpace(line[1:end]))
			if strings.HasPrefix(section, "include") {
				return "", false, errUnprovable
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		key, val, _ := strings.Cut(line, "=")
		if section == "core" && strings.EqualFold(strings.TrimSpace(key), "excludesfile") {
			val = strings.TrimSpace(val)
			if strings.ContainsAny(val, "\"\\;#") {
				return "", false, errUnprovable
			}
			value, found = val, true
		}
	}
	return value, found, nil
}

// index hashes the index file and the stat data of every file it lists.
func (p *prover) index(loc location) error {
	path := filepath.Join(loc.gitDir, "index")
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		p.num(-2) // no index yet (nothing added): every file is untracked, the walk covers it
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !p.off["index"] {
		p.str(path)
		if err := p.info(fi); err != nil {
			return err
		}
	}
	b := make([]byte, fi.Size())
	if _, err := readFull(f, b); err != nil {
		return err
	}
	entries, err := readIndex(b)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.gitlink {
			return errUnprovable // a submodule's status is read from the submodule
		}
		if p.off["entries"] {
			continue
		}
		if _, err := p.stat(filepath.Join(loc.worktree, filepath.FromSlash(e.path))); err != nil {
			return err
		}
	}
	return nil
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// walk hashes the stat data of every directory under dir and of every .gitignore in
// them: adding or removing an entry moves its directory's mtime, so an untracked file in
// a new directory shows in its parent's. A directory holding .git is another repository
// (git shows it as one untracked entry): its own stat data is hashed, not its contents.
func (p *prover) walk(dir string, top bool, dirs *int) error {
	*dirs++
	if *dirs > maxDirs {
		return errTooBig
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !p.off["walk"] {
		p.str(dir)
		err = p.info(fi)
	}
	var list []os.DirEntry
	if err == nil {
		list, err = f.ReadDir(-1)
	}
	f.Close()
	if err != nil {
		return err
	}
	if !top {
		for _, e := range list {
			if e.Name() == ".git" {
				return nil
			}
		}
	}
	for _, e := range list {
		switch {
		case e.Name() == ".git":
		case e.IsDir():
			if err := p.walk(filepath.Join(dir, e.Name()), false, dirs); err != nil {
				return err
			}
		case e.Name() == ".gitignore" && !p.off["ignore"]:
			if _, err := p.stat(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
