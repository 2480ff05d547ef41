// Package statuscache keeps each worktree's last `git status` and proves, from stat data
// alone, that nothing it depends on has changed since, so a listing can show it without
// starting git. It is for display only (copse list --status, the picker, pick): every
// decision (remove, prune, land, what would be lost) reads git afresh and never asks here.
//
// A status is reused only when a proof taken now equals the one taken just before git
// ran: the worktree's .git file, HEAD and the branch it names, packed-refs, every ref the
// upstream's printed name can stand for, the index file, the stat data of every file the
// index lists, of every directory of the worktree git scans for untracked files (those
// holding a .git included, unless the .git makes a repository the index lists nothing
// of: then what makes it one) and of every .gitignore and .gitattributes in it,
// info/exclude and info/attributes, the excludes and attributes files and the config
// files git reads (a symbolic link and the file it resolves to), and the rebase and merge
// markers. It follows git's racy-timestamp rule: if anything it looked at was modified in
// the second the proof was taken (or later), the status is not stored, so an edit in the
// same second as the read is never missed. Where it cannot prove freshness (a split or
// sparse index, submodules, reftable, config includes, legacy remotes/ files, a huge
// tree, a clock that went backwards) it says so and the caller runs git. A listing proves
// its worktrees in one Pass, which reads what they all depend on alike (config,
// packed-refs, info/exclude) once.
//
// Two parts of a proof may be read other than when the rest is. The directories a warm
// proof stats are the ones the last walk recorded, without listing them, as git's
// untracked cache trusts a directory whose stat data holds (proveWalk). And the upstream
// git reports is proved after git ran when the proof before could not know it (a cold
// listing's), trusted only if its refs did not change since the proof (withUpstream).
package statuscache

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// version is the cache file's format; a file of another version is ignored (and replaced).
// It is also hashed into every proof, so a change of what a proof covers invalidates all.
const version = 5

// maxDirs bounds the untracked scan's walk: past it (a tree of build output) the proof
// would cost what git does, so the cache gives up and git runs.
const maxDirs = 4000

// maxIndexBytes bounds the index of a worktree the cache tries to prove (about 300,000
// files): the proof reads it whole. Below it a proof costs one stat per file the index
// lists, each relative to its directory and allocating nothing, which is part of what git
// status spends on the same files (it also reads and checksums the index, scans every
// directory and compares HEAD's tree). The bound was once 512 KB (about 5000 files), when
// the proof cost as much as git; worktrees past it ran git every time, warm or not. A
// variable for tests.
var maxIndexBytes int64 = 32 << 20

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
	// Tests only: listed, when set, counts the directories whose entries a proof read.
	listed *atomic.Int64

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
	// base is the digest of everything but the upstream's refs and the repository's
	// part (repoSum), and baseRacy whether any of it was racy: Store completes the proof
	// with the upstream git reported when it is not the one proved (withUpstream).
	base     [sha256.Size]byte
	repoSum  [sha256.Size]byte
	baseRacy bool
	// walkSum and walkRec are the walk's own digest and record (proveWalk), stored with
	// the status so that the next proof can prove only the directories recorded.
	walkSum [sha256.Size]byte
	walkRec []string
	gitDir  gitx.GitDirState
}

// GitDir is the worktree's git directory and whether a rebase or merge is in progress in
// it, as the proof read them just before git runs: git's status need not read them again
// (gitx.Runner.StatusIn), and the status stored says what the proof covers.
func (p *Proof) GitDir() *gitx.GitDirState { return &p.gitDir }

// fileFormat is the cache file.
type fileFormat struct {
	Version int     `json:"v"`
	Entries []entry `json:"entries"`
}

// entry is one worktree's cached status.
// Its names are short and its zero values left out: the picker reads the whole file before
// its rows on screen can show their statuses, and decoding the long form took about 5 ms
// at 300 worktrees.
type entry struct {
	Worktree string `json:"w"`
	At       int64  `json:"t"`           // the proof's time, Unix nanoseconds
	Proof    string `json:"p,omitempty"` // hex; "" = no usable status, only the upstream's name
	Upstream string `json:"u,omitempty"`
	TooBig   bool   `json:"b,omitempty"` // the walk passed maxDirs at At
	// Walk is the walk's record (the directories walked, each its flags and its path
	// relative to the worktree) and WalkSum the first half of its digest, hex (the
	// picker decodes the whole file before its first frame): see proveWalk.
	Walk    []string `json:"d,omitempty"`
	WalkSum string   `json:"ws,omitempty"`
	Status  status   `json:"s"`
}

// status is gitx.Status as the cache file keeps it (TestStatusKeepsEveryField fails when
// gitx.Status gains a field this does not carry).
type status struct {
	OID           string   `json:"o,omitempty"`
	Branch        string   `json:"br,omitempty"`
	Upstream      string   `json:"up,omitempty"`
	HasUpstream   bool     `json:"hu,omitempty"`
	Ahead         int      `json:"a,omitempty"`
	Behind        int      `json:"be,omitempty"`
	Staged        int      `json:"s,omitempty"`
	Unstaged      int      `json:"un,omitempty"`
	Untracked     int      `json:"ut,omitempty"`
	Conflicted    int      `json:"c,omitempty"`
	Rebasing      bool     `json:"r,omitempty"`
	Merging       bool     `json:"m,omitempty"`
	Ignored       int      `json:"i,omitempty"`
	IgnoredSample []string `json:"is,omitempty"`
	UntrackedDirs []string `json:"ud,omitempty"`
	IgnoredDirs   []string `json:"id,omitempty"`
}

// walkKey is the part of a walk's digest an entry keeps.
func walkKey(sum [sha256.Size]byte) string { return hex.EncodeToString(sum[:sha256.Size/2]) }

func fromGit(s gitx.Status) status {
	return status{s.OID, s.Branch, s.Upstream, s.HasUpstream, s.Ahead, s.Behind, s.Staged, s.Unstaged,
		s.Untracked, s.Conflicted, s.Rebasing, s.Merging, s.Ignored, s.IgnoredSample, s.UntrackedDirs, s.IgnoredDirs}
}

func (s status) git() gitx.Status {
	return gitx.Status{OID: s.OID, Branch: s.Branch, Upstream: s.Upstream, HasUpstream: s.HasUpstream,
		Ahead: s.Ahead, Behind: s.Behind, Staged: s.Staged, Unstaged: s.Unstaged, Untracked: s.Untracked,
		Conflicted: s.Conflicted, Rebasing: s.Rebasing, Merging: s.Merging, Ignored: s.Ignored,
		IgnoredSample: s.IgnoredSample, UntrackedDirs: s.UntrackedDirs, IgnoredDirs: s.IgnoredDirs}
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
// stored proof stale rather than the status wrong. It is a Pass of one worktree: a
// listing of many uses one Pass for all of them.
func (c *Cache) Lookup(worktree string) (gitx.Status, *Proof, bool) {
	return c.Pass().Lookup(worktree)
}

// Store records st, read by git after p was taken, for Flush to write. A proof that did
// not cover the upstream git reported (a cold listing's, which cannot know it) is
// completed with that upstream's refs as they are now, trusted only if they have not
// changed since the proof (withUpstream). A racy proof, or one that could not be
// completed, keeps only the upstream's name for the next proof.
func (c *Cache) Store(p *Proof, st gitx.Status) {
	if p == nil {
		return
	}
	e := entry{Worktree: p.worktree, At: p.at.UnixNano(), Upstream: st.Upstream}
	sum, racy, covered := p.sum, p.racy, p.upstream == st.Upstream
	if !covered && !c.off["adopt"] {
		var err error
		sum, racy, err = c.withUpstream(p, st.Upstream, true)
		covered = err == nil
	}
	if (!racy || c.off["racy"]) && covered && len(st.UntrackedDirs)+len(st.IgnoredDirs) <= maxListed {
		e.Proof, e.Status = hex.EncodeToString(sum[:]), fromGit(st)
		e.Walk, e.WalkSum = p.walkRec, walkKey(p.walkSum)
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

// coreFiles finds core.excludesFile and core.attributesFile in one config file's text (the
// last of each wins), by their lower-cased names. An include, or a value written in a way
// this simple reading could get wrong (quotes, escapes, continuation lines), is
// errUnprovable.
func coreFiles(b []byte) (map[string]string, error) {
	section, found := "", map[string]string(nil)
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		// A line that ends in a backslash goes on in the next one, which then is no key of
		// its own to git, whatever it looks like.
		if strings.HasSuffix(line, "\\") {
			return nil, errUnprovable
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return nil, errUnprovable
			}
			section = strings.ToLower(strings.TrimSpace(line[1:end]))
			if strings.HasPrefix(section, "include") {
				return nil, errUnprovable
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		key, val, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if section != "core" || (key != "excludesfile" && key != "attributesfile") {
			continue
		}
		val = strings.TrimSpace(val)
		if strings.ContainsAny(val, "\"\\;#") {
			return nil, errUnprovable
		}
		if found == nil {
			found = map[string]string{}
		}
		found[key] = val
	}
	return found, nil
}
