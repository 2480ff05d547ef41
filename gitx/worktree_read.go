package gitx

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// DirectList is a worktree list read from git's own files instead of from git: the exact
// bytes `git worktree list --porcelain -z` prints for the same files, the common dir they
// were read from (symlinks resolved, as git prints the main worktree's path), and each
// linked worktree's admin id (path → id), read on the way.
type DirectList struct {
	Raw       []byte
	CommonDir string
	IDs       map[string]string
}

// ReadWorktreeList reads what `git worktree list --porcelain -z` would print in dir, without
// starting git. At 300 worktrees git costs about ten times the system calls of this reader
// (it sets up a repository and a ref store per worktree) and a process; `copse list` and the
// picker's rows are mostly that cost.
//
// It gives ok=false, and the caller runs git, whenever the repository is anything but the
// layout it proves it reads exactly as git does: a non-default git binary or a test
// executor; a GIT_ variable that changes discovery or config; config files copse cannot
// name as git does or that git would not parse (ConfigFiles, parseConfig); a bare
// repository, a separate git dir, core.worktree, any extensions (reftable, sha256,
// worktreeConfig), core.bare or core.ignorecase (git's sort order) set true, in any file
// git reads or one an include there names (an included file may not include further); a
// filesystem boundary or another owner on the way up (git's discovery and
// safe.directory); relative worktree paths; a HEAD or ref that is a symlink, a chain of
// symbolic refs, outside refs/heads, or not in the plain format git writes; a packed-refs
// git would fail on or binary-search wrongly; a symlinked worktrees directory; an admin
// directory git would report or skip; a prunable reason other than a missing checkout.
// Its output is tested byte for byte against git's on each layout it accepts, and refuses
// the rest: it is a faster reading of the same files, never a guess.
//
// It is for display (list, the picker): decisions read git itself.
func (r *Runner) ReadWorktreeList(dir string) (DirectList, bool) {
	common, _, ok := r.plainRepository(dir)
	if !ok {
		return DirectList{}, false
	}
	real, err := filepath.EvalSymlinks(common)
	if err != nil || filepath.Base(real) != ".git" {
		return DirectList{}, false
	}
	rd := refReader{common: common}
	head, branch, ok := rd.head(unix.AT_FDCWD, filepath.Join(common, "HEAD"))
	if !ok {
		return DirectList{}, false
	}
	var out bytes.Buffer
	writeRecord(&out, record{path: filepath.Dir(real), head: head, branch: branch})
	linked, ids, ok := rd.linked()
	if !ok {
		return DirectList{}, false
	}
	for _, rec := range linked {
		writeRecord(&out, rec)
	}
	return DirectList{Raw: out.Bytes(), CommonDir: real, IDs: ids}, true
}

// plainRepository finds dir's common dir and reads git's config files, when git would run
// as the default git with an environment that changes neither discovery nor config (other
// than naming the config files, read as git reads them: ConfigFiles), and the config
// cannot change what `worktree list` prints (configFiles.plainForList).
func (r *Runner) plainRepository(dir string) (string, configFiles, bool) {
	env := r.environ(true)
	if (r.Bin != "" && r.Bin != "git") || r.Exec != nil || !plainGitEnv(env) || (os.Geteuid() == 0 && getenv(env, "SUDO_UID") != "") {
		return "", configFiles{}, false
	}
	common, ok := discoverCommonDir(dir)
	if !ok {
		return "", configFiles{}, false
	}
	cf, ok := readConfigFiles(env, common)
	if !ok || !cf.plainForList() {
		return "", configFiles{}, false
	}
	return common, cf, true
}

// record is one worktree as the porcelain list prints it.
type record struct {
	path, head, branch string // branch "" = detached
	locked, prunable   *string
}

func writeRecord(b *bytes.Buffer, r record) {
	field := func(s string) { b.WriteString(s); b.WriteByte(0) }
	field("worktree " + r.path)
	field("HEAD " + r.head)
	if r.branch == "" {
		field("detached")
	} else {
		field("branch " + r.branch)
	}
	if r.locked != nil {
		if *r.locked == "" {
			field("locked")
		} else {
			field("locked " + *r.locked)
		}
	}
	if r.prunable != nil {
		field("prunable " + *r.prunable)
	}
	b.WriteByte(0)
}

// plainGitEnv: the environment git would run with names no variable that changes where git
// looks or what config it reads (GIT_CEILING_DIRECTORIES, GIT_CONFIG_COUNT, …). The ones
// allowed only name people, programs, transports or tracing.
func plainGitEnv(env []string) bool {
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "GIT_") {
			continue
		}
		switch {
		case strings.HasPrefix(name, "GIT_AUTHOR_"), strings.HasPrefix(name, "GIT_COMMITTER_"),
			strings.HasPrefix(name, "GIT_TRACE"), strings.HasPrefix(name, "GIT_SSH"),
			strings.HasPrefix(name, "GIT_SSL_"), strings.HasPrefix(name, "GIT_HTTP_"), strings.HasPrefix(name, "GIT_CURL_"):
		case slices.Contains([]string{"GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS", "GIT_PAGER",
			"GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_ASKPASS", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_MERGE_AUTOEDIT"}, name):
		default:
			return false
		}
	}
	return true
}

// discoverCommonDir walks up from dir as git's discovery does, for the two layouts it
// accepts: a .git directory (the main worktree) and a .git file naming
// <common>/worktrees/<id> whose commondir is "../..". Anything else, a filesystem boundary
// crossed on the way (git stops there) or a directory another user owns (git's
// safe.directory refuses it), gives ok=false.
func discoverCommonDir(dir string) (string, bool) {
	euid := uint32(os.Geteuid())
	var start unix.Stat_t
	if unix.Stat(dir, &start) != nil {
		return "", false
	}
	for d := filepath.Clean(dir); ; {
		var st unix.Stat_t
		if unix.Stat(d, &st) != nil || st.Dev != start.Dev {
			return "", false
		}
		dotgit := filepath.Join(d, ".git")
		var gst unix.Stat_t
		err := unix.Lstat(dotgit, &gst)
		switch {
		case err == nil && gst.Mode&unix.S_IFMT == unix.S_IFDIR:
			if st.Uid != euid || gst.Uid != euid || !isGitDirPlain(dotgit) || exists(filepath.Join(dotgit, "commondir")) {
				return "", false
			}
			return dotgit, true
		case err == nil && gst.Mode&unix.S_IFMT == unix.S_IFREG:
			if st.Uid != euid || gst.Uid != euid {
				return "", false
			}
			return commonOfGitFile(dotgit, euid)
		case err == nil || !errors.Is(err, unix.ENOENT):
			return "", false
		}
		if isGitDirPlain(d) || filepath.Base(d) == ".git" {
			return "", false // inside a bare repository or a git dir: git decides
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

func commonOfGitFile(dotgit string, euid uint32) (string, bool) {
	b, err := readFileAt(unix.AT_FDCWD, dotgit)
	if err != nil {
		return "", false
	}
	gitDir, ok := strings.CutPrefix(string(b), "gitdir: ")
	if !ok {
		return "", false
	}
	gitDir, ok = strings.CutSuffix(gitDir, "\n")
	if !ok || !filepath.IsAbs(gitDir) || filepath.Clean(gitDir) != gitDir || filepath.Base(filepath.Dir(gitDir)) != "worktrees" {
		return "", false
	}
	var st unix.Stat_t
	if unix.Stat(gitDir, &st) != nil || st.Uid != euid {
		return "", false
	}
	if b, err := readFileAt(unix.AT_FDCWD, filepath.Join(gitDir, "commondir")); err != nil || string(b) != "../..\n" {
		return "", false
	}
	common := filepath.Dir(filepath.Dir(gitDir))
	if filepath.Base(common) != ".git" || !isGitDirPlain(common) {
		return "", false
	}
	return common, true
}

// isGitDirPlain: a regular HEAD and objects and refs directories, what git checks first.
func isGitDirPlain(d string) bool {
	var st unix.Stat_t
	if unix.Lstat(filepath.Join(d, "HEAD"), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if unix.Stat(filepath.Join(d, sub), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return false
		}
	}
	return true
}

func exists(p string) bool {
	var st unix.Stat_t
	return unix.Lstat(p, &st) == nil
}

// plainListKey: one variable of a config file git reads is in a form git parses
// (defaultConfigPlain) and sets none of what changes the list: no extension, no
// core.worktree, core.bare and core.ignorecase only false. A core.repositoryformatversion
// counts in the repository's own file only (git's set-up reads no other), where it must be
// 0 or 1 (what git init writes).
func plainListKey(e configEntry, repo bool) bool {
	if !defaultConfigPlain(e) {
		return false
	}
	switch {
	case strings.HasPrefix(e.name, "extensions."), e.name == "core.worktree":
		return false
	case e.name == "core.bare", e.name == "core.ignorecase":
		v, ok := gitBool(e.value, e.hasValue)
		return ok && !v
	case e.name == "core.repositoryformatversion" && repo:
		return e.hasValue && parseRepoFormatVersion(e.value)
	}
	return true
}

// configFiles is git's config as files, read once and parsed as git parses them: the
// system's, the user's and the repository's in git's order (the repository's last), and
// every file an include in them names, whatever its condition (a condition copse does not
// evaluate: it only needs to know such a file cannot matter).
type configFiles struct {
	main     []configFile
	included []configFile
}

type configFile struct {
	path    string
	entries []configEntry
}

// readConfigFiles reads them. ok=false when copse cannot name the files as git does
// (ConfigFiles), one cannot be read or parsed as git parses it, the repository's is
// missing, or an include names its file in a way copse does not resolve exactly as git does.
func readConfigFiles(env []string, common string) (configFiles, bool) {
	files, ok := ConfigFiles(env)
	if !ok {
		return configFiles{}, false
	}
	var c configFiles
	home, _ := lookupEnv(env, "HOME")
	repo := filepath.Join(common, "config")
	for _, f := range append(files, repo) {
		b, found, ok := readConfig(f, f != repo)
		if !ok {
			return configFiles{}, false
		}
		if !found {
			continue
		}
		entries, ok := parseConfig(b)
		if !ok {
			return configFiles{}, false
		}
		c.main = append(c.main, configFile{path: f, entries: entries})
		paths, ok := includePaths(f, entries, home)
		if !ok {
			return configFiles{}, false
		}
		for _, p := range paths {
			b, found, ok := readConfig(p, true) // git skips an include whose file is not there
			if !ok {
				return configFiles{}, false
			}
			if !found {
				continue
			}
			entries, ok := parseConfig(b)
			if !ok {
				return configFiles{}, false
			}
			c.included = append(c.included, configFile{path: p, entries: entries})
		}
	}
	return c, true
}

// plainForList: no config git reads changes what `worktree list` prints (plainListKey, in
// every file: core.bare or core.ignorecase in the user's or system's file count as much as
// in the repository's), and no included file includes further.
func (c configFiles) plainForList() bool {
	for i, f := range c.main {
		for _, e := range f.entries {
			if !plainListKey(e, i == len(c.main)-1) {
				return false
			}
		}
	}
	for _, f := range c.included {
		for _, e := range f.entries {
			if isInclude(e) || !plainListKey(e, false) {
				return false
			}
		}
	}
	return true
}

// noIncludedSection: no included file sets a variable of section (lowercase).
func (c configFiles) noIncludedSection(section string) bool {
	for _, f := range c.included {
		for _, e := range f.entries {
			if strings.HasPrefix(e.name, section+".") {
				return false
			}
		}
	}
	return true
}

// refReader resolves HEADs against one common dir's loose refs and packed-refs.
type refReader struct {
	common string
	packed map[string]string // read on first need
	read   bool
	bad    bool
}

// isSHA1: a repository with no extensions names objects by SHA-1.
func isSHA1(s string) bool { return len(s) == 40 && isOID(s) }

const zeroOID = "0000000000000000000000000000000000000000"

// head reads a HEAD file (relative to dirFD) and gives the list's HEAD and branch fields:
// a detached object id, or a branch under refs/heads/ and its object id (all zeros when
// the branch is unborn, as git prints it).
func (rd *refReader) head(dirFD int, path string) (oid, branch string, ok bool) {
	b, err := readFileAt(dirFD, path)
	if err != nil {
		return "", "", false
	}
	s, ok := strings.CutSuffix(string(b), "\n")
	if !ok {
		return "", "", false
	}
	if isSHA1(s) {
		return s, "", s != zeroOID
	}
	name, ok := strings.CutPrefix(s, "ref: ")
	if !ok || !strings.HasPrefix(name, "refs/heads/") || !plainRefName(name) {
		return "", "", false
	}
	oid, ok = rd.resolve(name)
	return oid, name, ok
}

func (rd *refReader) resolve(name string) (string, bool) {
	b, err := readFileAt(unix.AT_FDCWD, filepath.Join(rd.common, filepath.FromSlash(name)))
	if err == nil {
		s, ok := strings.CutSuffix(string(b), "\n")
		return s, ok && isSHA1(s) && s != zeroOID
	}
	if !errors.Is(err, unix.ENOENT) {
		return "", false // a directory, a symlink, unreadable: git decides
	}
	if !rd.read {
		rd.read = true
		rd.packed, rd.bad = readPackedRefs(filepath.Join(rd.common, "packed-refs"))
	}
	if rd.bad {
		return "", false
	}
	if oid, ok := rd.packed[name]; ok {
		return oid, true
	}
	return zeroOID, true // unborn
}

// readPackedRefs parses packed-refs as git's packed-backend reads it, strictly: an
// optional "# pack-refs with:" header, "<oid> <ref>" lines and the "^<oid>" line of a peeled
// tag after its ref, each ending in a newline. bad is true for anything else: a file without
// its final newline or with a line git does not parse (git fails to read it); a ref twice
// (git's lookup finds either); and a header that says "sorted" over lines that are not in
// strictly increasing byte order (git then trusts the order and binary-searches, so it may
// miss refs that are there).
func readPackedRefs(path string) (refs map[string]string, bad bool) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		return nil, true
	}
	if len(b) == 0 {
		return nil, false
	}
	if b[len(b)-1] != '\n' {
		return nil, true
	}
	lines := strings.Split(string(b[:len(b)-1]), "\n")
	sorted := false
	if traits, ok := strings.CutPrefix(lines[0], "# pack-refs with:"); ok {
		sorted = slices.Contains(strings.Split(traits, " "), "sorted")
		lines = lines[1:]
	}
	refs = make(map[string]string, len(lines))
	prev, afterRef := "", false
	for _, line := range lines {
		if line != "" && line[0] == '^' {
			if !afterRef || !isSHA1(line[1:]) {
				return nil, true
			}
			afterRef = false
			continue
		}
		oid, name, ok := strings.Cut(line, " ")
		if _, dup := refs[name]; !ok || !isSHA1(oid) || name == "" || dup || (sorted && len(refs) > 0 && name <= prev) {
			return nil, true
		}
		refs[name] = oid
		prev, afterRef = name, true
	}
	return refs, false
}

// plainRefName is git's check_refname_format, strictly: components that are not empty, do
// not start with '.' or end with ".lock", no "..", "@{", control characters, space or any of
// ~^:?*[\ and no trailing '/' or '.'.
func plainRefName(name string) bool {
	if strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.HasSuffix(name, ".") {
		return false
	}
	for _, c := range strings.Split(name, "/") {
		if c == "" || c[0] == '.' || strings.HasSuffix(c, ".lock") {
			return false
		}
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= ' ' || c == 0x7f || strings.IndexByte("~^:?*[\\", c) >= 0 {
			return false
		}
	}
	return true
}

// linked reads <common>/worktrees: each admin directory's gitdir, commondir, HEAD and
// locked files, and whether its checkout exists (git's "prunable"), sorted by path as git
// lists them.
func (rd *refReader) linked() ([]record, map[string]string, bool) {
	base := filepath.Join(rd.common, "worktrees")
	var st unix.Stat_t
	switch err := unix.Lstat(base, &st); {
	case errors.Is(err, unix.ENOENT):
		return nil, map[string]string{}, true
	case err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return nil, nil, false // a symlink git follows, or no directory: git decides
	}
	dir, err := os.Open(base)
	if err != nil {
		return nil, nil, false
	}
	defer dir.Close()
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return nil, nil, false
	}
	fd := int(dir.Fd())
	recs := make([]record, 0, len(entries))
	ids := make(map[string]string, len(entries))
	for _, e := range entries {
		if !e.IsDir() {
			return nil, nil, false // git reads it and skips it, or errs: git decides
		}
		rec, ok := rd.linkedOne(fd, e.Name())
		if !ok {
			return nil, nil, false
		}
		ids[rec.path] = e.Name()
		recs = append(recs, rec)
	}
	slices.SortFunc(recs, func(a, b record) int { return strings.Compare(a.path, b.path) })
	return recs, ids, true
}

func (rd *refReader) linkedOne(fd int, id string) (record, bool) {
	b, err := readFileAt(fd, id+"/gitdir")
	if err != nil {
		return record{}, false
	}
	dotgit, ok := strings.CutSuffix(string(b), "\n")
	if !ok || dotgit == "" || strings.TrimSpace(dotgit) != dotgit || !filepath.IsAbs(dotgit) || strings.ContainsRune(dotgit, 0) {
		return record{}, false
	}
	path := strings.TrimSuffix(dotgit, "/.git")
	if b, err := readFileAt(fd, id+"/commondir"); err != nil || string(b) != "../..\n" {
		return record{}, false
	}
	head, branch, ok := rd.head(fd, id+"/HEAD")
	if !ok {
		return record{}, false
	}
	rec := record{path: path, head: head, branch: branch}
	switch b, err := readFileAt(fd, id+"/locked"); {
	case err == nil:
		reason := strings.Trim(string(b), " \t\n\r") // git's strbuf_trim: its isspace keeps \v and \f
		if strings.ContainsRune(reason, 0) {
			return record{}, false
		}
		rec.locked = &reason
	case !errors.Is(err, unix.ENOENT):
		return record{}, false
	default:
		// git's should_prune_worktree asks file_exists, an lstat: a .git that is a dangling
		// symlink exists, so that worktree is not prunable.
		var st unix.Stat_t
		switch err := unix.Lstat(dotgit, &st); {
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
			reason := "gitdir file points to non-existent location"
			rec.prunable = &reason
		case err != nil:
			return record{}, false
		}
	}
	return rec, true
}

// readFileAt reads a small regular file relative to dirFD (unix.AT_FDCWD for a path),
// refusing a symlink (O_NOFOLLOW), as git's ref files are read.
func readFileAt(dirFD int, path string) ([]byte, error) {
	return readSmallFlags(dirFD, path, unix.O_NOFOLLOW)
}

// ReadSmallAt reads a small file relative to the directory open as dirFD (unix.AT_FDCWD
// for a path relative to the current directory) with three system calls: open, one read,
// close. os.ReadFile costs about three times as many (fstat, two fcntl, a refused epoll
// registration); copse reads one or more such files per worktree on every listing.
func ReadSmallAt(dirFD int, path string) ([]byte, error) { return readSmallFlags(dirFD, path, 0) }

func readSmallFlags(dirFD int, path string, flags int) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Openat(dirFD, path, unix.O_RDONLY|unix.O_CLOEXEC|flags, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		want := cap(buf) - len(buf)
		buf = buf[:len(buf)+n]
		if n < want {
			// A regular file read short is at its end: the read that would return 0 is
			// saved. (A file being rewritten meanwhile may read torn either way; every
			// reader checks what it read.)
			return buf, nil
		}
	}
}

// WorktreesFromFiles is Worktrees read by ReadWorktreeList, with no git process: ok=false
// when the list must come from git.
func (r *Runner) WorktreesFromFiles(dir string) ([]Worktree, DirectList, bool) {
	d, ok := r.ReadWorktreeList(dir)
	if !ok {
		return nil, DirectList{}, false
	}
	list, err := ParseWorktreeList(d.Raw)
	if err != nil {
		return nil, DirectList{}, false
	}
	for i := range list {
		addHeldBranch(&list[i])
	}
	return list, d, true
}

// configFromFiles are the keys ConfigValue reads from the config files themselves when it
// can prove the answer is git's: the two every listing and picker start asks
// (copse.backend beside the list, copse.sort for the first frame), where a git process was
// a third of `copse list`'s cost inside tmux. Settings that choose what runs (copse.test,
// copse.run, copse.root, …) always ask git.
var configFromFiles = map[string]bool{"copse.backend": true, "copse.sort": true}

// readConfigFromFiles gives `git config --get key` for a "copse.name" key from the system,
// user and repository config files, when the same proof as ReadWorktreeList holds (no
// extensions, no config from the environment), no included file sets a copse.* variable,
// and every assignment of the key has a value of letters, digits and ._-/:@+~ only (as
// git's parser reads it: quotes and comments are git's). The last assignment wins, as in
// git. ok=false: ask git.
func (r *Runner) readConfigFromFiles(dir, key string) (value string, found, ok bool) {
	section, name, _ := strings.Cut(key, ".")
	if section != "copse" || name == "" || strings.Contains(name, ".") {
		return "", false, false
	}
	_, cf, ok := r.plainRepository(dir)
	if !ok || !cf.noIncludedSection("copse") {
		return "", false, false
	}
	for _, f := range cf.main {
		v, in, plain := plainConfigValue(f.entries, name)
		if !plain {
			return "", false, false
		}
		if in {
			value, found = v, true
		}
	}
	return value, found, true
}

// plainConfigValue finds the last copse.<name> in one file's entries. plain is false when
// an assignment of it has no value or a value outside plainValue.
func plainConfigValue(entries []configEntry, name string) (value string, found, plain bool) {
	want := "copse." + strings.ToLower(name)
	for _, e := range entries {
		if e.name != want {
			continue
		}
		if !e.hasValue || !plainValue(e.value) {
			return "", false, false
		}
		value, found = e.value, true
	}
	return value, found, true
}

func plainValue(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-/:@+~", c) >= 0) {
			return false
		}
	}
	return true
}
