package statuscache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/copse-dev/copse/gitx"
	"golang.org/x/sys/unix"
)

// Pass is one listing's use of the cache. What every worktree of a repository depends on
// alike (the config files git reads, packed-refs, info/exclude: repoPart) is read once per
// pass and repository, not once per worktree. A pass serves one listing and the next
// listing starts its own, so nothing it shares is older than the listing. Safe for
// concurrent use.
type Pass struct {
	c     *Cache
	mu    sync.Mutex
	repos map[string]*repoPart // by common dir
}

// Pass starts one listing's lookups.
func (c *Cache) Pass() *Pass { return &Pass{c: c} }

// repoPart is the repository-wide part of a pass's proofs. It is read once, at at, before
// the first proof that includes it is complete, so before git runs for any worktree whose
// status is stored with it; and every such proof takes at as its own time (its racy
// threshold, and the time its entry is stored with).
//
// That is why sharing it cannot make a stale status look fresh. A repository-wide file
// changed after at (before git ran for some worktree, while it ran, or after) is given a
// change time by the kernel, which no program can set back, in at's second or later. The
// file as this pass read it had an older one, or it was already in that second and made
// every proof of the pass racy, so none was stored. Either way the next pass reads other
// stat data, its digest differs, and the status is not served. A clock set back past at
// is Lookup's clock check: it compares the pass's time with the stored entry's.
type repoPart struct {
	once sync.Once
	at   time.Time
	sum  [sha256.Size]byte
	racy bool
	err  error // no proof for any worktree of this repository
}

// Lookup is Cache.Lookup within the pass.
func (ps *Pass) Lookup(worktree string) (gitx.Status, *Proof, bool) {
	c := ps.c
	t, err := openTree(worktree)
	if err != nil {
		return gitx.Status{}, nil, false
	}
	defer t.close()
	stored, haveStored := c.get(t.common, worktree)
	if haveStored && stored.TooBig {
		if age := c.now().UnixNano() - stored.At; age >= 0 && age < int64(tooBigRetry) {
			return gitx.Status{}, nil, false
		}
	}
	p, err := c.prove(t, ps.repo(t.common), stored.Upstream)
	if errors.Is(err, errTooBig) {
		c.put(t.common, entry{Worktree: worktree, At: c.now().UnixNano(), TooBig: true})
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
	return stored.Status.git(), p, true
}

func (ps *Pass) repo(common string) *repoPart {
	ps.mu.Lock()
	r, ok := ps.repos[common]
	if !ok {
		r = &repoPart{}
		if ps.repos == nil {
			ps.repos = map[string]*repoPart{}
		}
		ps.repos[common] = r
	}
	ps.mu.Unlock()
	r.once.Do(func() {
		r.at = ps.c.now()
		pr := ps.c.newProver(r.at)
		if r.err = ps.c.proveRepo(pr, common); r.err == nil {
			r.racy = pr.racy
			pr.sum(r.sum[:0])
		}
	})
	return r
}

// tree is one worktree opened for a proof: its directory and its git directory stay open
// while it is proved, and the files in them are named relative to them, which spares the
// kernel walking the same long path for each of them.
type tree struct {
	path   string
	root   int // the worktree's directory, open
	gitDir string
	git    int // the git directory, open
	common string
	// A linked worktree's .git file, read once: it names the git directory and is hashed.
	linked bool
	dotgit []byte
	dotSt  unix.Stat_t
}

// openTree finds the worktree's git directory and the common one the way git does for a
// worktree root: .git is the directory (main worktree) or a "gitdir: PATH" file (linked),
// whose commondir file names the common directory. A .git that is a symbolic link, or
// anything else, is no proof.
func openTree(path string) (*tree, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	t := &tree{path: path, root: fd, git: -1}
	ok := false
	defer func() {
		if !ok {
			t.close()
		}
	}()
	gfd, err := unix.Openat(fd, ".git", unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Fstat(gfd, &t.dotSt); err != nil {
		unix.Close(gfd)
		return nil, err
	}
	switch t.dotSt.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		t.git, t.gitDir = gfd, filepath.Join(path, ".git")
	case unix.S_IFREG:
		b, err := readOpen(gfd, &t.dotSt)
		unix.Close(gfd)
		if err != nil {
			return nil, err
		}
		target, found := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
		if !found || target == "" {
			return nil, errors.New("statuscache: bad .git file")
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(path, target)
		}
		t.linked, t.dotgit, t.gitDir = true, b, target
		if t.git, err = unix.Open(target, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
			t.git = -1
			return nil, err
		}
	default:
		unix.Close(gfd)
		return nil, errors.New("statuscache: .git is neither a directory nor a file")
	}
	t.common = t.gitDir
	b, err := readSmallAt(t.git, "commondir")
	if err != nil {
		return nil, err
	}
	if b != nil {
		commonDir := strings.TrimRight(string(b), "\r\n")
		if !filepath.IsAbs(commonDir) {
			commonDir = filepath.Join(t.gitDir, commonDir)
		}
		t.common = filepath.Clean(commonDir)
	}
	ok = true
	return t, nil
}

func (t *tree) close() {
	if t.git >= 0 {
		unix.Close(t.git)
	}
	unix.Close(t.root)
}

// missing: the file (or a directory on its path) does not exist.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR)
}

// openSmall opens a small file for reading (nil, -1 when missing). O_NONBLOCK keeps a
// FIFO put in a file's place from blocking the open; for a file it changes nothing.
func openSmall(dir int, name string) (int, error) {
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if missing(err) {
		return -1, nil
	}
	return fd, err
}

// readOpen reads a small regular file whole, of the size its stat data gives.
func readOpen(fd int, st *unix.Stat_t) ([]byte, error) {
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > 64<<10 {
		return nil, errUnprovable
	}
	b := make([]byte, st.Size)
	for n := 0; n < len(b); {
		m, err := unix.Read(fd, b[n:])
		if err != nil {
			return nil, err
		}
		if m == 0 {
			return nil, errors.New("statuscache: file shrank while read")
		}
		n += m
	}
	return b, nil
}

// readSmallAt reads a small file that is not hashed (nil when missing).
func readSmallAt(dir int, name string) ([]byte, error) {
	fd, err := openSmall(dir, name)
	if err != nil || fd < 0 {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	return readOpen(fd, &st)
}

// prover hashes what it reads and notes anything modified in the racy window. What it
// hashes is gathered in buf and hashed in large writes.
type prover struct {
	h         hash.Hash
	buf       []byte
	grain     int64 // nanoseconds; 0 = as the system reports
	threshold int64 // Unix seconds: a time at or after this is racy
	racy      bool
	off       map[string]bool // tests: Cache.off
}

// dirBufs are the walk's buffers for reading directory entries, shared by the proofs
// running at once.
var dirBufs = sync.Pool{New: func() any { b := make([]byte, 8<<10); return &b }}

func (c *Cache) newProver(at time.Time) *prover {
	return &prover{h: sha256.New(), buf: make([]byte, 0, 8<<10), threshold: at.Add(-racyMargin).Unix(),
		grain: int64(c.grain), off: c.off}
}

func (p *prover) str(s string) {
	p.num(int64(len(s)))
	p.buf = append(p.buf, s...)
	if len(p.buf) >= 8<<10 {
		p.h.Write(p.buf)
		p.buf = p.buf[:0]
	}
}

func (p *prover) num(n int64) {
	p.buf = binary.LittleEndian.AppendUint64(p.buf, uint64(n))
}

// sum appends the digest of everything hashed, and then of extra, to b.
func (p *prover) sum(b []byte, extra ...[]byte) []byte {
	p.h.Write(p.buf)
	for _, e := range extra {
		p.h.Write(e)
	}
	return p.h.Sum(b)
}

// stat hashes the stat data of name (relative to dir, or absolute) or that it is missing,
// and says which.
// A time in the racy window marks the proof racy. Any other error means the state cannot
// be read: no proof.
func (p *prover) stat(dir int, name string) (exists bool, err error) {
	p.str(name)
	var st unix.Stat_t
	err = unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if missing(err) {
		p.num(-1)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, p.info(&st)
}

func (p *prover) info(st *unix.Stat_t) error {
	msec, mnsec, csec, cnsec, ok := fileTimes(st)
	if !ok {
		return errors.New("statuscache: no change time")
	}
	if p.grain > 0 {
		mnsec, cnsec = mnsec/p.grain*p.grain, cnsec/p.grain*p.grain
	}
	p.num(msec)
	p.num(mnsec)
	p.num(csec)
	p.num(cnsec)
	p.num(st.Size)
	p.num(int64(st.Mode))
	p.num(int64(st.Ino))
	p.num(int64(st.Dev))
	p.num(int64(st.Uid))
	p.num(int64(st.Gid))
	if msec >= p.threshold || csec >= p.threshold {
		p.racy = true
	}
	return nil
}

// content hashes a small file's stat data and bytes (or that it is missing), and returns
// the bytes. Its stat data comes from the open file: one open, one fstat, one read.
func (p *prover) content(dir int, name string) ([]byte, error) {
	p.str(name)
	fd, err := openSmall(dir, name)
	if err != nil {
		return nil, err
	}
	if fd < 0 {
		p.num(-1)
		return nil, nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	b, err := readOpen(fd, &st)
	if err != nil {
		return nil, err
	}
	if err := p.info(&st); err != nil {
		return nil, err
	}
	p.str(string(b))
	return b, nil
}

// proveRepo hashes what every worktree of the repository depends on alike: reftable's
// absence, packed-refs, replace refs, shallow and grafts, info/exclude, the config files
// git reads before the worktree's own and the excludes file they name.
func (c *Cache) proveRepo(p *prover, common string) error {
	p.num(version)
	p.str(common)
	// reftable keeps refs in binary tables this does not read.
	var st unix.Stat_t
	if err := unix.Lstat(filepath.Join(common, "reftable"), &st); !missing(err) {
		return errors.Join(err, errUnprovable)
	}
	files := []string{"packed-refs", filepath.Join("refs", "replace"), "shallow", filepath.Join("info", "grafts")}
	if !c.off["exclude"] {
		files = append(files, filepath.Join("info", "exclude"))
	}
	for _, f := range files {
		if _, err := p.stat(unix.AT_FDCWD, filepath.Join(common, f)); err != nil {
			return err
		}
	}
	if c.getenv("GIT_CONFIG_PARAMETERS") != "" || c.getenv("GIT_CONFIG_COUNT") != "" {
		return errUnprovable // config given in the environment is not followed
	}
	home := c.getenv("HOME")
	xdg := c.getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	// The files git reads, named as git names them (GIT_CONFIG_NOSYSTEM a git boolean,
	// GIT_CONFIG_GLOBAL= none at all): gitx's one reading of that sequence.
	configs, ok := gitx.ConfigFiles(append(os.Environ(), c.Env...))
	if !ok {
		return errUnprovable
	}
	configs = append(configs, filepath.Join(common, "config"))
	excludes := ""
	if xdg != "" {
		excludes = filepath.Join(xdg, "git", "ignore")
	}
	for _, f := range configs {
		if err := c.config(p, unix.AT_FDCWD, f, &excludes); err != nil {
			return err
		}
	}
	return c.excludes(p, excludes)
}

// config hashes one config file (relative to dir) and notes the excludes file it names.
// Includes (which may depend on the directory) are not followed: no proof.
func (c *Cache) config(p *prover, dir int, name string, excludes *string) error {
	if name == os.DevNull {
		// GIT_CONFIG_GLOBAL=/dev/null, the usual way to ignore the user's config: an empty
		// file to git (a device, not the regular file the reading below insists on).
		p.str(name)
		return nil
	}
	var b []byte
	var err error
	if c.off["config"] {
		b, err = readSmallAt(dir, name)
	} else {
		b, err = p.content(dir, name)
	}
	if err != nil {
		return err
	}
	v, ok, err := excludesFile(b)
	if err != nil {
		return err
	}
	if ok {
		*excludes = v
	}
	return nil
}

// excludes hashes the stat data of the excludes file the config names.
func (c *Cache) excludes(p *prover, file string) error {
	if rest, ok := strings.CutPrefix(file, "~/"); ok {
		if home := c.getenv("HOME"); home != "" {
			file = filepath.Join(home, rest)
		}
	}
	if file == "" {
		return nil
	}
	if !filepath.IsAbs(file) {
		return errUnprovable // relative to where git runs: guessing is not proving
	}
	_, err := p.stat(unix.AT_FDCWD, file)
	return err
}

// prove hashes what the worktree's status depends on beyond the repository-wide part r:
// its .git file, HEAD and the branch it names, the upstream's ref, the rebase and merge
// markers, the worktree's config, the index and the stat data of every file it lists, and
// the walk of the worktree's directories.
func (c *Cache) prove(t *tree, r *repoPart, upstream string) (*Proof, error) {
	if r.err != nil {
		return nil, r.err
	}
	pr := c.newProver(r.at)
	on := func(check string) bool { return !c.off[check] }
	pr.num(version)
	pr.str(t.path)
	// A linked worktree's .git file names its git directory. The main worktree's .git
	// directory is not stat'ed: its mtime moves with every lock file git (or this cache)
	// creates in it, and what in it matters is read below.
	if t.linked {
		pr.str(".git")
		if err := pr.info(&t.dotSt); err != nil {
			return nil, err
		}
		pr.str(string(t.dotgit))
	}
	pr.str(t.gitDir)
	var head []byte
	var err error
	if on("head") {
		head, err = pr.content(t.git, "HEAD")
	} else {
		head, err = readSmallAt(t.git, "HEAD")
	}
	if err != nil || head == nil {
		return nil, errors.Join(err, errUnprovable)
	}
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok && on("ref") {
		if err := pr.ref(t.common, ref); err != nil {
			return nil, err
		}
	}
	if upstream != "" && on("upstream") {
		// git names the upstream by its short name: a remote-tracking branch or a local one.
		for _, ref := range []string{"refs/remotes/" + upstream, "refs/heads/" + upstream} {
			if err := pr.ref(t.common, ref); err != nil {
				return nil, err
			}
		}
	}
	state := gitx.GitDirState{Dir: t.gitDir}
	for _, f := range []string{"MERGE_HEAD", "rebase-merge", "rebase-apply"} {
		exists, err := pr.stat(t.git, f)
		if err != nil {
			return nil, err
		}
		if exists {
			state.Merging = state.Merging || f == "MERGE_HEAD"
			state.Rebasing = state.Rebasing || f != "MERGE_HEAD"
		}
	}
	// The worktree's own config comes last in git's order: an excludes file it names wins
	// over the shared one (both are hashed).
	excludes := ""
	if err := c.config(pr, t.git, "config.worktree", &excludes); err != nil {
		return nil, err
	}
	if err := c.excludes(pr, excludes); err != nil {
		return nil, err
	}
	if err := pr.index(t); err != nil {
		return nil, err
	}
	if err := pr.walk(t.root, t.path, true, new(int)); err != nil {
		return nil, err
	}
	p := &Proof{worktree: t.path, common: t.common, at: r.at, racy: pr.racy || r.racy, upstream: upstream, gitDir: state}
	pr.sum(p.sum[:0], r.sum[:])
	return p, nil
}

// ref hashes a loose ref (refs under refs/heads and refs/remotes live in the common
// directory; packed ones are covered by packed-refs' stat). A symbolic ref is not followed.
func (p *prover) ref(common, ref string) error {
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return errUnprovable
	}
	b, err := p.content(unix.AT_FDCWD, filepath.Join(common, filepath.FromSlash(ref)))
	if err != nil {
		return err
	}
	if bytes.HasPrefix(b, []byte("ref:")) {
		return errUnprovable
	}
	return nil
}

// index hashes the index file and the stat data of every file it lists. A worktree whose
// index is past maxIndexBytes is not proved.
func (p *prover) index(t *tree) error {
	fd, err := openSmall(t.git, "index")
	if err != nil {
		return err
	}
	if fd < 0 {
		p.num(-2) // no index yet (nothing added): every file is untracked, the walk covers it
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxIndexBytes {
		return errUnprovable
	}
	if !p.off["index"] {
		p.str("index")
		if err := p.info(&st); err != nil {
			return err
		}
	}
	b := make([]byte, st.Size)
	for n := 0; n < len(b); {
		m, err := unix.Read(fd, b[n:])
		if err != nil {
			return err
		}
		if m == 0 {
			return errors.New("statuscache: index shrank while read")
		}
		n += m
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
		if _, err := p.stat(t.root, e.path); err != nil {
			return err
		}
	}
	return nil
}

// walk hashes the stat data of every directory under dir (open as fd) and of every
// .gitignore in them: adding or removing an entry moves its directory's mtime, so an
// untracked file in a new directory shows in its parent's. A directory holding .git is
// another repository (git shows it as one untracked entry): its own stat data is hashed,
// not its contents. walk closes fd unless it is the top (the tree's own), and before it
// opens the subdirectories: a deep tree holds one descriptor at a time.
func (p *prover) walk(fd int, dir string, top bool, dirs *int) error {
	subdirs, err := p.dir(fd, dir, top, dirs)
	if !top {
		unix.Close(fd)
	}
	if err != nil {
		return err
	}
	for _, name := range subdirs {
		path := filepath.Join(dir, name)
		sub, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		if err := p.walk(sub, path, false, dirs); err != nil {
			return err
		}
	}
	return nil
}

// dir hashes one directory of the walk and returns its subdirectories to walk.
func (p *prover) dir(fd int, dir string, top bool, dirs *int) ([]string, error) {
	*dirs++
	if *dirs > maxDirs {
		return nil, errTooBig
	}
	if !p.off["walk"] {
		p.str(dir)
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return nil, err
		}
		if err := p.info(&st); err != nil {
			return nil, err
		}
	}
	buf := dirBufs.Get().(*[]byte)
	l, err := listDir(fd, *buf)
	dirBufs.Put(buf)
	if err != nil {
		return nil, err
	}
	if !top && l.git {
		return nil, nil
	}
	if l.gitignore && !p.off["ignore"] {
		if _, err := p.stat(fd, ".gitignore"); err != nil {
			return nil, err
		}
	}
	return l.subdirs, nil
}

// dirList is what the walk needs of one directory: its subdirectories, and whether it
// holds .git and .gitignore.
type dirList struct {
	subdirs        []string
	git, gitignore bool
}

// add notes one entry of the directory open as fd. An entry whose type the directory does
// not record is looked at; one gone meanwhile is skipped (its directory's mtime moved).
func (l *dirList) add(fd int, name []byte, typ uint8) error {
	switch string(name) {
	case ".", "..":
		return nil
	case ".git":
		l.git = true
		return nil
	}
	if typ == unix.DT_UNKNOWN {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if missing(err) {
				return nil
			}
			return err
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			typ = unix.DT_DIR
		}
	}
	switch {
	case typ == unix.DT_DIR:
		l.subdirs = append(l.subdirs, string(name))
	case string(name) == ".gitignore":
		l.gitignore = true
	}
	return nil
}
