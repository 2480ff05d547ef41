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
// executor; a GIT_ variable that changes discovery or config; a bare repository, a separate
// git dir, core.worktree, any extensions (reftable, sha256, worktreeConfig) or
// core.ignorecase (git's sort order), also in an included file (an include is fine when
// its file mentions none of core, extensions or a further include); a filesystem boundary
// or another owner on the way up (git's discovery and safe.directory); relative worktree
// paths; a HEAD or ref that is a
// symlink, a chain of symbolic refs, outside refs/heads, or not in the plain format git
// writes; an admin directory git would report or skip; a prunable reason other than a
// missing checkout. Its output is tested byte for byte against git's on each layout it
// accepts, and refuses the rest: it is a faster reading of the same files, never a guess.
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
// as the default git with an environment that changes neither discovery nor config, and
// the config cannot change what `worktree list` prints (configFiles.plainForList).
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
			"GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_ASKPASS", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_MERGE_AUTOEDIT"}, name):
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

// configEntry is one line of a config file that sets something: the section header it
// stands under (inside the brackets, as written, trimmed) and the key (lowercased) and
// value (trimmed, comments and quotes left in).
type configEntry struct {
	header, key, value string
	hasValue           bool
}

// section is the entry's header lowercased ("core", `includeif "gitdir:~/w/"`).
func (e configEntry) section() string { return strings.ToLower(e.header) }

// parseConfig splits a config file into its entries, for the readers below that each look
// at a few keys. ok is false for what a line-by-line reading could misplace: a continued
// line (a backslash at its end), an unclosed header, a header with anything but a comment
// after it on its line.
func parseConfig(text []byte) ([]configEntry, bool) {
	var out []configEntry
	header := ""
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasSuffix(line, "\\") {
			return nil, false
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return nil, false
			}
			if rest := strings.TrimSpace(line[end+1:]); rest != "" && rest[0] != '#' && rest[0] != ';' {
				return nil, false // "[core] bare = true" on one line
			}
			header = line[1:end]
			continue
		}
		k, v, has := strings.Cut(line, "=")
		out = append(out, configEntry{header: header, key: strings.ToLower(strings.TrimSpace(k)), value: strings.TrimSpace(v), hasValue: has})
	}
	return out, true
}

// plainRepoConfig reads the repository's config for what changes the list: core.bare,
// core.worktree, core.ignorecase, any extension. It accepts only a file it parses with
// none of those set (bare false, ignorecase false, as git init writes); a quoted value in
// [core] refuses. An include's files are checked by readConfigFiles.
func plainRepoConfig(text []byte) bool {
	entries, ok := parseConfig(text)
	if !ok {
		return false
	}
	for _, e := range entries {
		switch sec := strings.TrimSpace(e.section()); {
		case strings.HasPrefix(sec, "extensions"):
			return false
		case sec == "core" && !plainCoreKey(e.key, e.value):
			return false
		}
	}
	return true
}

// plainCoreKey: one key of [core] sets none of what changes the list.
func plainCoreKey(key, value string) bool {
	if i := strings.IndexAny(value, "#;"); i >= 0 {
		value = strings.TrimSpace(value[:i])
	}
	if strings.ContainsAny(value, `"\`) {
		return false
	}
	switch key {
	case "bare", "ignorecase":
		v := strings.ToLower(value)
		return v == "false" || v == "no" || v == "off" || v == "0"
	case "worktree":
		return false
	case "repositoryformatversion":
		return value == "0" || value == "1"
	}
	return true
}

// configFiles is git's config as files, read once: the system's, the user's and the
// repository's in git's order (the repository's last), and every file an include in them
// names, whatever its condition (a condition copse does not evaluate: it only needs to know
// such a file cannot matter).
type configFiles struct {
	main     []configFile
	included [][]byte // lowercased
}

type configFile struct {
	path string
	text []byte
}

// readConfigFiles reads them. ok=false when one cannot be read, the repository's is missing,
// or an include names its file in a way copse does not resolve exactly as git does.
func readConfigFiles(env []string, common string) (configFiles, bool) {
	var c configFiles
	repo := filepath.Join(common, "config")
	for _, f := range append(userConfigFiles(env), repo) {
		b, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) && f != repo {
			continue
		}
		if err != nil {
			return configFiles{}, false
		}
		c.main = append(c.main, configFile{path: f, text: b})
		if !bytes.Contains(bytes.ToLower(b), []byte("include")) {
			continue
		}
		paths, ok := includePaths(f, b, getenv(env, "HOME"))
		if !ok {
			return configFiles{}, false
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if errors.Is(err, os.ErrNotExist) {
				continue // git skips an include whose file is not there
			}
			if err != nil {
				return configFiles{}, false
			}
			c.included = append(c.included, bytes.ToLower(b))
		}
	}
	return c, true
}

// plainForList: no config git reads changes what `worktree list` prints — no ignorecase
// (its sort order) in the system's and user's files, the repository's plain
// (plainRepoConfig), and no included file that mentions core, extensions, ignorecase or a
// further include.
func (c configFiles) plainForList() bool {
	for i, f := range c.main {
		if i == len(c.main)-1 {
			if !plainRepoConfig(f.text) {
				return false
			}
		} else if bytes.Contains(bytes.ToLower(f.text), []byte("ignorecase")) {
			return false
		}
	}
	return c.noIncludedMentions("include", "ignorecase", "core", "extensions")
}

// noIncludedMentions: no included file mentions any of words (lowercase).
func (c configFiles) noIncludedMentions(words ...string) bool {
	for _, b := range c.included {
		for _, w := range words {
			if bytes.Contains(b, []byte(w)) {
				return false
			}
		}
	}
	return true
}

// includePaths gives the files [include] and [includeIf "…"] sections name, resolved as
// git does: "~/" from HOME, a relative path from the including file's directory. ok=false
// for a path copse would have to unquote or unescape, "~user", or ~ without HOME.
func includePaths(file string, text []byte, home string) ([]string, bool) {
	entries, ok := parseConfig(text)
	if !ok {
		return nil, false
	}
	var paths []string
	for _, e := range entries {
		sec := e.section()
		if (sec != "include" && !strings.HasPrefix(sec, "includeif ")) || e.key != "path" {
			continue
		}
		v := e.value
		switch {
		case v == "" || strings.ContainsAny(v, "\"#;\\"):
			return nil, false
		case strings.HasPrefix(v, "~/"):
			if home == "" {
				return nil, false
			}
			v = filepath.Join(home, v[2:])
		case strings.HasPrefix(v, "~"):
			return nil, false
		case !filepath.IsAbs(v):
			v = filepath.Join(filepath.Dir(file), v)
		}
		paths = append(paths, v)
	}
	return paths, true
}

// userConfigFiles are the config files git reads before the repository's, in its order:
// system, then the user's (XDG, then ~/.gitconfig), or GIT_CONFIG_GLOBAL alone.
func userConfigFiles(env []string) []string {
	var files []string
	if getenv(env, "GIT_CONFIG_NOSYSTEM") == "" {
		files = append(files, "/etc/gitconfig")
	}
	if g := getenv(env, "GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		home := getenv(env, "HOME")
		xdg := getenv(env, "XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	return files
}

// getenv is name's value in env as git gets it: the last entry wins.
func getenv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
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

// readPackedRefs parses packed-refs strictly: its header, "<oid> <ref>" lines and the "^<oid>"
// lines of peeled tags. bad is true for anything else.
func readPackedRefs(path string) (refs map[string]string, bad bool) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		return nil, true
	}
	refs = map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case line == "":
		case i == 0 && strings.HasPrefix(line, "# pack-refs with:"):
		case line[0] == '^':
			if !isSHA1(line[1:]) {
				return nil, true
			}
		default:
			oid, name, ok := strings.Cut(line, " ")
			if !ok || !isSHA1(oid) {
				return nil, true
			}
			refs[name] = oid
		}
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
	dir, err := os.Open(base)
	if errors.Is(err, os.ErrNotExist) {
		return nil, map[string]string{}, true
	}
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
		reason := strings.Trim(string(b), " \t\n\v\f\r") // git's strbuf_trim: ASCII space only
		if strings.ContainsRune(reason, 0) {
			return record{}, false
		}
		rec.locked = &reason
	case !errors.Is(err, unix.ENOENT):
		return record{}, false
	default:
		var st unix.Stat_t
		switch err := unix.Stat(dotgit, &st); {
		case errors.Is(err, unix.ENOENT):
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
// extensions, no config from the environment), no included file mentions copse, and every
// assignment of the key is a plain `name = value` under a plain [copse] header with a value
// of letters, digits and ._-/:@+~ only. The last assignment wins, as in git. ok=false: ask
// git.
func (r *Runner) readConfigFromFiles(dir, key string) (value string, found, ok bool) {
	section, name, _ := strings.Cut(key, ".")
	if section != "copse" || name == "" || strings.Contains(name, ".") {
		return "", false, false
	}
	_, cf, ok := r.plainRepository(dir)
	if !ok || !cf.noIncludedMentions("copse") {
		return "", false, false
	}
	for _, f := range cf.main {
		v, in, plain := plainConfigValue(string(f.text), name)
		if !plain {
			return "", false, false
		}
		if in {
			value, found = v, true
		}
	}
	return value, found, true
}

// plainConfigValue finds the last `name = value` under [copse] in one config file. plain is
// false when the file mentions the key (or the section) in any other shape.
func plainConfigValue(text, name string) (value string, found, plain bool) {
	entries, ok := parseConfig([]byte(text))
	if !ok {
		return "", false, false
	}
	name = strings.ToLower(name)
	for _, e := range entries {
		if !strings.EqualFold(e.header, "copse") {
			if strings.EqualFold(strings.TrimSpace(e.header), "copse") {
				return "", false, false // "[ copse ]"
			}
			continue
		}
		if e.key != name {
			if strings.ContainsAny(e.value, `\"`) {
				return "", false, false // a quoted value could hide the key
			}
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
