package statuscache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
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
	p, err := c.prove(t, ps.repo(t.common), stored)
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
		target, found := gitfileTarget(b, path)
		if !found {
			return nil, errors.New("statuscache: bad .git file")
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

// gitfileTarget is the git directory a .git file in dir names, as git's
// read_gitfile_gently reads it: "gitdir: PATH" with the line ends stripped, a relative
// PATH taken from dir.
func gitfileTarget(b []byte, dir string) (string, bool) {
	target, found := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
	if !found || target == "" {
		return "", false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return target, true
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

// maxSmallFile bounds the files a proof reads whole (HEAD, refs, config files). A
// repository's config holds a section per branch that tracks an upstream, about 70 bytes
// each: 64 KB, the bound before, left every worktree of a repository of a thousand such
// branches to git.
const maxSmallFile = 4 << 20

// readOpen reads a small regular file whole, of the size its stat data gives.
func readOpen(fd int, st *unix.Stat_t) ([]byte, error) {
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxSmallFile {
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
	// afterGit: the refs are read after git ran (withUpstream), so a change since the
	// proof's time must make the proof racy.
	afterGit bool
	// record, when not nil, gathers the walk's record (proveWalk).
	record []string
	listed *atomic.Int64 // tests: Cache.listed
	// root is the worktree proved and tracked every directory (relative to it, with
	// slashes) under which its index lists a file, for the walk's question "does git scan
	// this directory".
	root    string
	tracked map[string]bool
}

// dirBufs are the walk's buffers for reading directory entries, shared by the proofs
// running at once.
var dirBufs = sync.Pool{New: func() any { b := make([]byte, 8<<10); return &b }}

func (c *Cache) newProver(at time.Time) *prover {
	return &prover{h: sha256.New(), buf: make([]byte, 0, 8<<10), threshold: at.Add(-racyMargin).Unix(),
		grain: int64(c.grain), off: c.off, listed: c.listed}
}

func (p *prover) str(s string) {
	p.num(int64(len(s)))
	p.buf = append(p.buf, s...)
	if len(p.buf) >= 8<<10 {
		p.h.Write(p.buf)
		p.buf = p.buf[:0]
	}
}

// bytes is str of a byte slice.
func (p *prover) bytes(b []byte) {
	p.num(int64(len(b)))
	p.buf = append(p.buf, b...)
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
	exists, _, err = p.statAs(dir, name, false)
	return exists, err
}

// statOpened is stat for a file git opens by its name, following symbolic links (an
// excludes or attributes file, info/exclude, packed-refs): the entry's own stat data and,
// when it is a symbolic link, that of the file it resolves to, or that it resolves to
// none. A dotfiles manager links ~/.config/git/ignore into its own repository, and an edit
// there moves only the target's times.
func (p *prover) statOpened(dir int, name string) (exists bool, err error) {
	exists, _, err = p.statAs(dir, name, !p.off["follow"])
	return exists, err
}

// statAs hashes name's stat data as stat and statOpened say, and returns its file type
// (of the entry itself, not of a symbolic link's target).
func (p *prover) statAs(dir int, name string, follow bool) (exists bool, typ uint32, err error) {
	p.str(name)
	var st unix.Stat_t
	err = unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if missing(err) {
		p.num(-1)
		return false, 0, nil
	}
	if err != nil {
		return false, 0, err
	}
	if err := p.info(&st); err != nil {
		return false, 0, err
	}
	typ = uint32(st.Mode) & unix.S_IFMT
	if !follow || typ != unix.S_IFLNK {
		return true, typ, nil
	}
	p.str("->")
	err = unix.Fstatat(dir, name, &st, 0)
	if missing(err) || errors.Is(err, unix.ELOOP) {
		p.num(-1) // dangling: git reads no file there
		return true, typ, nil
	}
	if err != nil {
		return false, 0, err
	}
	return true, typ, p.info(&st)
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
// absence, packed-refs, replace refs, shallow and grafts, info/exclude and
// info/attributes, the config files git reads before the worktree's own, the excludes and
// attributes files they name and the system's attributes file.
func (c *Cache) proveRepo(p *prover, common string) error {
	p.num(version)
	p.str(common)
	if err := c.proveAttrReplaceEnv(p); err != nil {
		return err
	}
	// reftable keeps refs in binary tables this does not read.
	var st unix.Stat_t
	if err := unix.Lstat(filepath.Join(common, "reftable"), &st); !missing(err) {
		return errors.Join(err, errUnprovable)
	}
	files := []string{"packed-refs", filepath.Join("refs", "replace"), "shallow", filepath.Join("info", "grafts")}
	if !c.off["exclude"] {
		files = append(files, filepath.Join("info", "exclude"))
	}
	// info/attributes is the common directory's (git keeps info/ there for every worktree),
	// and it decides how a stat-dirty file is compared: a text or eol attribute turns a
	// file whose index entry's stat data no longer matches modified, or clean again.
	if !c.off["attributes"] {
		files = append(files, filepath.Join("info", "attributes"))
	}
	for _, f := range files {
		if _, err := p.statOpened(unix.AT_FDCWD, filepath.Join(common, f)); err != nil {
			return err
		}
	}
	if !c.off["remotes"] {
		for _, d := range []string{"remotes", "branches"} {
			if err := p.noLegacyRemotes(filepath.Join(common, d)); err != nil {
				return err
			}
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
	var named userFiles // git's defaults, which a config's core.excludesFile or core.attributesFile replaces
	if xdg != "" {
		named.excludes = filepath.Join(xdg, "git", "ignore")
		named.attributes = filepath.Join(xdg, "git", "attributes")
	}
	for _, f := range configs {
		if err := c.config(p, unix.AT_FDCWD, f, &named); err != nil {
			return err
		}
	}
	if err := c.userFiles(p, named); err != nil {
		return err
	}
	// The system's attributes file is stat'ed whether or not GIT_ATTR_NOSYSTEM leaves it
	// unread: one more file proved than git reads can only cost a status, never hide one.
	if c.off["attributes"] {
		return nil
	}
	_, err := p.statOpened(unix.AT_FDCWD, systemAttributes)
	return err
}

// noLegacyRemotes proves the directory dir (remotes/ or branches/ of the common
// directory) holds no file. git reads a remote from such a file when the config gives the
// remote no url (the layout before remotes lived in config), and which ref the upstream
// is then follows from that file's Pull lines, which this does not read: no proof. An
// empty one (git init's template makes branches/) is proved by its stat data, which a
// file added moves.
func (p *prover) noLegacyRemotes(dir string) error {
	exists, typ, err := p.statAs(unix.AT_FDCWD, dir, false)
	if err != nil || !exists {
		return err
	}
	if typ != unix.S_IFDIR {
		return errUnprovable
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if len(names) > 0 {
		return errUnprovable
	}
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// proveAttrReplaceEnv hashes the variables that change which attributes and replace refs
// git reads, so a status one process stored (with GIT_ATTR_NOSYSTEM set, say) is not
// served to another that would read other files. A replace-ref namespace other than
// refs/replace/ (GIT_REPLACE_REF_BASE) is not what the proof stats: no proof.
func (c *Cache) proveAttrReplaceEnv(p *prover) error {
	if c.getenv("GIT_REPLACE_REF_BASE") != "" {
		return errUnprovable
	}
	if p.off["env"] {
		return nil
	}
	for _, k := range []string{"GIT_ATTR_NOSYSTEM", "GIT_NO_REPLACE_OBJECTS"} {
		p.str(k + "=" + c.getenv(k))
	}
	return nil
}

// systemAttributes is the attributes file git reads for every repository of the system
// (its ETC_GITATTRIBUTES, beside the /etc/gitconfig read above).
const systemAttributes = "/etc/gitattributes"

// userFiles are the files the config files name for git to read besides the worktree's
// own: core.excludesFile and core.attributesFile (or their defaults), "" for none.
type userFiles struct {
	excludes, attributes string
}

// config hashes one config file (relative to dir) and notes the excludes and attributes
// files it names. Includes (which may depend on the directory) are not followed: no proof.
func (c *Cache) config(p *prover, dir int, name string, named *userFiles) error {
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
	found, err := coreFiles(b)
	if err != nil {
		return err
	}
	if v, ok := found["excludesfile"]; ok {
		named.excludes = v
	}
	if v, ok := found["attributesfile"]; ok {
		named.attributes = v
	}
	return nil
}

// userFiles hashes the stat data of the excludes and attributes files the config names
// (a symbolic link and the file it resolves to).
func (c *Cache) userFiles(p *prover, named userFiles) error {
	for _, f := range []struct {
		file, check string
	}{{named.excludes, "excludesfile"}, {named.attributes, "attributes"}} {
		if c.off[f.check] {
			continue
		}
		if err := c.statUserFile(p, f.file); err != nil {
			return err
		}
	}
	return nil
}

// statUserFile hashes the stat data of a file a config value names.
func (c *Cache) statUserFile(p *prover, file string) error {
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
	_, err := p.statOpened(unix.AT_FDCWD, file)
	return err
}

// prove hashes what the worktree's status depends on beyond the repository-wide part r:
// its .git file, HEAD and the branch it names, the upstream's ref, the rebase and merge
// markers, the worktree's config, the index and the stat data of every file it lists, and
// the walk of the worktree's directories.
func (c *Cache) prove(t *tree, r *repoPart, stored entry) (*Proof, error) {
	upstream := stored.Upstream
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
	// The worktree's own config comes last in git's order: an excludes or attributes file
	// it names wins over the shared one (both are hashed).
	var named userFiles
	if err := c.config(pr, t.git, "config.worktree", &named); err != nil {
		return nil, err
	}
	if err := c.userFiles(pr, named); err != nil {
		return nil, err
	}
	if err := pr.index(t); err != nil {
		return nil, err
	}
	walkSum, walkRec, walkRacy, err := c.proveWalk(t, pr, r.at, stored)
	if err != nil {
		return nil, err
	}
	pr.bytes(walkSum[:])
	p := &Proof{worktree: t.path, common: t.common, at: r.at, baseRacy: pr.racy || walkRacy || r.racy, gitDir: state,
		repoSum: r.sum, walkSum: walkSum, walkRec: walkRec}
	pr.sum(p.base[:0])
	sum, racy, err := c.withUpstream(p, upstream, false)
	if err != nil {
		return nil, err
	}
	p.sum, p.racy, p.upstream = sum, racy, upstream
	return p, nil
}

// withUpstream is the proof p completed with the refs the upstream's printed name can
// stand for (none for ""), and whether it is racy. The upstream's part is hashed apart
// from the rest, so that Store can complete a proof taken before git ran with the upstream
// git then reported (afterGit): a cold listing learns each branch's upstream only from
// git's answer, and without this stored nothing for a worktree that tracks one.
//
// A ref read after git ran may not be the one git read. It is trusted only when it has not
// changed since the proof's time: the ref file's own times and those of the nearest
// directory above it that exists (where its creation, deletion or renaming shows) must
// be older than the racy threshold, or the proof is racy and its status is not stored.
// That is the argument repoPart makes for the files read once per pass: the kernel gives
// a change after the proof's time a change time in its second or later, which no program
// can set back. packed-refs, where a ref missing as a file may live, is in the
// repository's part, read before git ran.
func (c *Cache) withUpstream(p *Proof, upstream string, afterGit bool) (sum [sha256.Size]byte, racy bool, err error) {
	u := c.newProver(p.at)
	u.afterGit = afterGit && !c.off["upstreamrace"]
	if upstream != "" && !c.off["upstream"] {
		for _, ref := range upstreamRefs(upstream) {
			if err := u.ref(p.common, ref); err != nil {
				return sum, false, err
			}
		}
	}
	h := sha256.New()
	h.Write(p.base[:])
	h.Write(u.sum(nil))
	h.Write(p.repoSum[:])
	h.Sum(sum[:0])
	return sum, p.baseRacy || u.racy, nil
}

// upstreamRefs are the refs an upstream's name, as git status prints it, can stand for.
// git finds the upstream's full ref from the branch's config (hashed with the config
// files) and prints it shortened as shorten_unambiguous_ref does: the shortest name that
// no earlier rule of rev-parse's (refs/%s, refs/tags/%s, refs/heads/%s, refs/remotes/%s,
// refs/remotes/%s/HEAD) resolves to another ref. So the ref is one of those expansions of
// the printed name (or the name itself, printed whole), and every one is hashed: a moved
// remote-tracking branch is seen when a local branch of the same name made git print
// "remotes/origin/main", and creating or deleting a ref that changes how git shortens the
// name is seen too.
func upstreamRefs(name string) []string {
	refs := make([]string, 0, 6)
	if strings.HasPrefix(name, "refs/") {
		refs = append(refs, name)
	}
	return append(refs, "refs/"+name, "refs/tags/"+name, "refs/heads/"+name, "refs/remotes/"+name, "refs/remotes/"+name+"/HEAD")
}

// ref hashes a loose ref (refs under refs/heads and refs/remotes live in the common
// directory; packed ones are covered by packed-refs' stat). A symbolic ref is not followed.
func (p *prover) ref(common, ref string) error {
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return errUnprovable
	}
	path := filepath.Join(common, filepath.FromSlash(ref))
	if p.afterGit {
		p.racyAbove(common, path)
	}
	b, err := p.content(unix.AT_FDCWD, path)
	if errors.Is(err, errUnprovable) {
		// A directory there is no loose ref (refs/remotes/main when a remote is called
		// main): git's lookup goes on to packed-refs and the next rule. Looked at only when
		// the read failed, so a missing ref costs one open.
		var st unix.Stat_t
		if unix.Lstat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			p.num(-3)
			return nil
		}
	}
	if err != nil {
		return err
	}
	if bytes.HasPrefix(b, []byte("ref:")) {
		return errUnprovable
	}
	return nil
}

// racyAbove marks the proof racy when the nearest directory above path (up to top) that
// exists was modified in the racy window or later: a file created, deleted or renamed
// there since. It hashes nothing: a proof completed after git ran (withUpstream) must
// hash what a proof taken before git hashes.
func (p *prover) racyAbove(top, path string) {
	var st unix.Stat_t
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		err := unix.Lstat(dir, &st)
		if err == nil {
			break
		}
		if !missing(err) || dir == top || len(dir) <= len(top) {
			p.racy = true // unreadable: not trusted
			return
		}
	}
	msec, _, csec, _, ok := fileTimes(&st)
	if !ok || msec >= p.threshold || csec >= p.threshold {
		p.racy = true
	}
}

// index hashes the index file and the stat data of every file it lists. A worktree whose
// index is past maxIndexBytes is not proved.
func (p *prover) index(t *tree) error {
	p.root = t.path
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
	p.tracked = map[string]bool{}
	dirs := dirStack{root: t.root}
	defer dirs.close()
	var lastDir []byte
	return eachIndexEntry(b, func(path []byte, gitlink bool) error {
		if gitlink {
			return errUnprovable // a submodule's status is read from the submodule
		}
		dir, base := splitPath(path)
		if !bytes.Equal(dir, lastDir) {
			lastDir = append(lastDir[:0], dir...)
			p.noteTracked(dir)
		}
		if p.off["entries"] {
			return nil
		}
		// The stat data of every file the index lists, each named relative to its own
		// directory (opened once): a shorter walk for the kernel than from the top, and no
		// allocation per file. On a worktree of 20,000 files this loop is the proof.
		p.bytes(path)
		fd, err := dirs.open(dir)
		if err != nil {
			return err
		}
		if fd < 0 {
			p.num(-1) // a directory on its path is gone (or is no directory)
			return nil
		}
		err = fstatatNoFollow(fd, base, &st)
		if missing(err) || errors.Is(err, unix.ELOOP) {
			p.num(-1)
			return nil
		}
		if err != nil {
			return err
		}
		return p.info(&st)
	})
}

// splitPath splits an index path at its last slash ("" for a file at the top).
func splitPath(path []byte) (dir, base []byte) {
	if i := bytes.LastIndexByte(path, '/'); i >= 0 {
		return path[:i], path[i+1:]
	}
	return nil, path
}

// noteTracked records that the index lists a file under dir and under each directory
// above it, for tracks.
func (p *prover) noteTracked(dir []byte) {
	for len(dir) > 0 {
		if p.tracked[string(dir)] {
			return
		}
		p.tracked[string(dir)] = true
		i := bytes.LastIndexByte(dir, '/')
		if i < 0 {
			return
		}
		dir = dir[:i]
	}
}

// dirStack keeps open the directories along the path of the index entry being proved.
// The index is sorted, so a directory's files come together, with its subdirectories'
// among them: each directory is opened once.
type dirStack struct {
	root  int
	names [][]byte // the open directories' paths, each below the one before
	fds   []int    // their descriptors; -1 for one that could not be opened as a directory
	buf   []byte
}

// open returns a descriptor of dir (relative to the top; nil is the top), or -1 when dir
// or a directory above it is missing, or is not a directory (a symbolic link): git then
// sees no file there either.
func (d *dirStack) open(dir []byte) (int, error) {
	if len(dir) == 0 {
		return d.root, nil
	}
	for n := len(d.names); n > 0; n-- {
		top := d.names[n-1]
		if bytes.Equal(top, dir) {
			return d.fds[n-1], nil
		}
		if len(dir) > len(top) && dir[len(top)] == '/' && bytes.HasPrefix(dir, top) {
			break
		}
		d.pop()
	}
	parent, at := d.root, 0
	if n := len(d.names); n > 0 {
		parent, at = d.fds[n-1], len(d.names[n-1])+1
	}
	for at <= len(dir) {
		end := bytes.IndexByte(dir[at:], '/')
		if end < 0 {
			end = len(dir)
		} else {
			end += at
		}
		fd := -1
		if parent >= 0 {
			var err error
			d.buf = append(d.buf[:0], dir[at:end]...)
			fd, err = unix.Openat(parent, string(d.buf), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				if !missing(err) && !errors.Is(err, unix.ELOOP) {
					return -1, err
				}
				fd = -1
			}
		}
		d.names = append(d.names, dir[:end:end])
		d.fds = append(d.fds, fd)
		parent, at = fd, end+1
	}
	return parent, nil
}

func (d *dirStack) pop() {
	n := len(d.names) - 1
	if d.fds[n] >= 0 {
		unix.Close(d.fds[n])
	}
	d.names, d.fds = d.names[:n], d.fds[:n]
}

func (d *dirStack) close() {
	for len(d.names) > 0 {
		d.pop()
	}
}

// proveWalk hashes the walk of the worktree's directories (what git's untracked scan
// depends on) apart from the rest of the proof, and returns its digest, its record (the
// directories walked, in order, with what each holds of .git, .gitignore and
// .gitattributes) and whether it was racy. When the stored entry has a record, it first
// proves only the directories recorded, as git's untracked cache does: one stat each, no
// listing of their entries. If that gives the stored walk's digest, every recorded
// directory has the stat data it had when it was listed, so none gained, lost or renamed
// an entry since (any such change moves its directory's mtime past the racy threshold the
// stored proof met), and a full walk would list the same directories and hash the same
// data. Otherwise (something changed, or no record) it walks every directory.
func (c *Cache) proveWalk(t *tree, main *prover, at time.Time, stored entry) (sum [sha256.Size]byte, rec []string, racy bool, err error) {
	newWalker := func() *prover {
		w := c.newProver(at)
		w.root, w.tracked = main.root, main.tracked
		return w
	}
	if len(stored.Walk) > 0 && stored.WalkSum != "" && !c.off["replay"] {
		w := newWalker()
		if ok, err := w.replay(t, stored.Walk); err == nil && ok {
			w.sum(sum[:0])
			if walkKey(sum) == stored.WalkSum {
				return sum, stored.Walk, w.racy, nil
			}
		}
	}
	w := newWalker()
	w.record = []string{}
	if err := w.walk(t.root, t.path, true, new(int)); err != nil {
		return sum, nil, false, err
	}
	w.sum(sum[:0])
	return sum, w.record, w.racy, nil
}

// Walk record flags: the first byte of each record is '0' plus these.
const (
	recGit           = 1
	recGitignore     = 2
	recGitattributes = 4
)

// replay hashes the directories of a walk's record as dir hashed them when it listed them,
// reading only their stat data (and, for those holding .git, .gitignore or
// .gitattributes, what dir reads of those). It says false when the record no longer fits
// (a directory gone or no longer one): the caller walks.
func (p *prover) replay(t *tree, rec []string) (bool, error) {
	for _, r := range rec {
		if r == "" || r[0] < '0' || r[0] > '0'+7 {
			return false, nil
		}
		flags, rel := r[0]-'0', r[1:]
		top := rel == ""
		dir := t.path
		if !top {
			dir = filepath.Join(t.path, rel)
		}
		var st unix.Stat_t
		fd := t.root
		if flags != 0 && !top {
			var err error
			if fd, err = unix.Openat(t.root, rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
				return false, nil
			}
		}
		ok, err := p.replayDir(fd, rel, dir, top, flags, &st)
		if fd != t.root {
			unix.Close(fd)
		}
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// replayDir is dir's hashing of one recorded directory (open as fd when it has flags or is
// the top; else named rel from the top).
func (p *prover) replayDir(fd int, rel, dir string, top bool, flags byte, st *unix.Stat_t) (bool, error) {
	if !p.off["walk"] {
		p.str(dir)
		var err error
		if fd >= 0 && (top || flags != 0) {
			err = unix.Fstat(fd, st)
		} else {
			err = unix.Fstatat(fd, rel, st, unix.AT_SYMLINK_NOFOLLOW)
		}
		if err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return false, nil
		}
		if err := p.info(st); err != nil {
			return false, err
		}
	}
	if !top && flags&recGit != 0 {
		if p.off["nested"] {
			return true, nil
		}
		repo, err := p.nestedGit(fd, dir)
		if err != nil {
			return false, err
		}
		if repo && !p.tracks(dir) {
			return true, nil
		}
	}
	if flags&recGitignore != 0 && !p.off["ignore"] {
		if _, err := p.statOpened(fd, ".gitignore"); err != nil {
			return false, err
		}
	}
	if flags&recGitattributes != 0 && !p.off["gitattributes"] {
		if _, err := p.statOpened(fd, ".gitattributes"); err != nil {
			return false, err
		}
	}
	return true, nil
}

// walk hashes the stat data of every directory under dir (open as fd) and of every
// .gitignore and .gitattributes in them: adding or removing an entry moves its directory's
// mtime, so an untracked file in a new directory shows in its parent's. A directory
// holding .git is walked like any other: git scans it for untracked files when the index
// lists files in it, or when that .git does not make it a repository (a stray .git), and
// which of those holds is proved by nestedGit. walk closes fd unless it is the top (the
// tree's own), and before it opens the subdirectories: a deep tree holds one descriptor
// at a time.
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
	if p.listed != nil {
		p.listed.Add(1)
	}
	buf := dirBufs.Get().(*[]byte)
	l, err := listDir(fd, *buf)
	dirBufs.Put(buf)
	if err != nil {
		return nil, err
	}
	if p.record != nil {
		flags := byte(0)
		if l.git {
			flags |= recGit
		}
		if l.gitignore {
			flags |= recGitignore
		}
		if l.gitattributes {
			flags |= recGitattributes
		}
		rel := ""
		if !top {
			rel = dir[len(p.root)+1:]
		}
		p.record = append(p.record, string('0'+flags)+rel)
	}
	if !top && l.git {
		if p.off["nested"] {
			return nil, nil // tests: the walk as it was, stopping at every .git
		}
		repo, err := p.nestedGit(fd, dir)
		if err != nil {
			return nil, err
		}
		if repo && !p.tracks(dir) {
			return nil, nil // one entry to git, which reads nothing in it
		}
	}
	// git 2.32 and later open in-tree .gitignore and .gitattributes without following a
	// symbolic link, older ones follow it: a link's target is proved too (more than a new
	// git reads, never less).
	if l.gitignore && !p.off["ignore"] {
		if _, err := p.statOpened(fd, ".gitignore"); err != nil {
			return nil, err
		}
	}
	if l.gitattributes && !p.off["gitattributes"] {
		if _, err := p.statOpened(fd, ".gitattributes"); err != nil {
			return nil, err
		}
	}
	return l.subdirs, nil
}

// nestedGit hashes what decides whether git takes the directory dir (open as fd), which
// holds .git, for a repository of its own (dir.c's is_nonbare_repository_dir): a .git
// directory, or a .git file naming one, whose HEAD is valid and whose objects and refs
// (in the common directory its commondir names, for a linked worktree's) git may enter.
// It says whether it found one by a test stricter than git's: a HEAD that names a branch
// (git also takes an object id or a symbolic link into refs/; those are walked, which
// proves more than git reads, never less). A .git that is a symbolic link or neither a
// file nor a directory is not followed: no proof.
//
// A directory's own times are left out: objects/ and refs/ move with every object and
// branch the other repository makes, and only their type, owner and mode decide here.
func (p *prover) nestedGit(fd int, dir string) (repo bool, err error) {
	if p.off["nestedgit"] {
		return false, nil
	}
	p.str(filepath.Join(dir, ".git"))
	var st unix.Stat_t
	err = unix.Fstatat(fd, ".git", &st, unix.AT_SYMLINK_NOFOLLOW)
	if missing(err) {
		p.num(-1) // gone since the listing: its directory's mtime moved
		return false, nil
	}
	if err != nil {
		return false, err
	}
	p.num(int64(st.Mode & unix.S_IFMT))
	var gitDir string
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		gitDir = filepath.Join(dir, ".git")
	case unix.S_IFREG:
		b, err := p.content(fd, ".git")
		if err != nil {
			return false, err
		}
		target, ok := gitfileTarget(b, dir)
		if !ok {
			return false, nil // no gitfile to git: its bytes are hashed
		}
		gitDir = target
	default:
		return false, errUnprovable
	}
	return p.isGitDir(gitDir)
}

// isGitDir hashes what git's is_git_directory reads of dir, and says whether it passes.
func (p *prover) isGitDir(dir string) (bool, error) {
	p.str(dir)
	head, err := p.headRef(dir)
	if err != nil {
		return false, err
	}
	common := dir
	b, err := p.content(unix.AT_FDCWD, filepath.Join(dir, "commondir"))
	if err != nil {
		return false, err
	}
	if b != nil {
		c := strings.TrimRight(string(b), "\r\n")
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		common = c
	}
	ok := head
	for _, name := range []string{"objects", "refs"} {
		path := filepath.Join(common, name)
		p.str(path)
		var st unix.Stat_t
		if err := unix.Stat(path, &st); err != nil {
			if !missing(err) && !errors.Is(err, unix.ELOOP) && !errors.Is(err, unix.EACCES) {
				return false, err
			}
			p.num(-1)
			ok = false
			continue
		}
		p.num(int64(st.Mode))
		p.num(int64(st.Ino))
		p.num(int64(st.Dev))
		p.num(int64(st.Uid))
		p.num(int64(st.Gid))
		ok = ok && unix.Access(path, unix.X_OK) == nil
	}
	return ok, nil
}

// headRef hashes a git directory's HEAD (its type and bytes) and says whether it names a
// branch ("ref: refs/…", as validate_headref takes it).
func (p *prover) headRef(dir string) (bool, error) {
	path := filepath.Join(dir, "HEAD")
	p.str(path)
	var st unix.Stat_t
	err := unix.Lstat(path, &st)
	if missing(err) {
		p.num(-1)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	p.num(int64(st.Mode & unix.S_IFMT))
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		// A symbolic link (git checks where it points) or anything else: its own stat data.
		return false, p.info(&st)
	}
	b, err := readSmallAt(unix.AT_FDCWD, path)
	if err != nil {
		return false, err
	}
	p.str(string(b))
	rest, ok := bytes.CutPrefix(b, []byte("ref:"))
	return ok && bytes.HasPrefix(bytes.TrimLeft(rest, " \t\n\v\f\r"), []byte("refs/")), nil
}

// tracks says whether the index lists a file under dir (a path in the walk): git then
// scans dir for untracked files whatever .git it holds (directory_exists_in_index).
func (p *prover) tracks(dir string) bool {
	rel, err := filepath.Rel(p.root, dir)
	if err != nil || rel == "." {
		return true
	}
	return p.tracked[filepath.ToSlash(rel)]
}

// dirList is what the walk needs of one directory: its subdirectories, and whether it
// holds .git and .gitignore.
type dirList struct {
	subdirs                       []string
	git, gitignore, gitattributes bool
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
	case string(name) == ".gitattributes":
		l.gitattributes = true
	}
	return nil
}
