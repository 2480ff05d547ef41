package gitx

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// configEntry is one variable a config file sets, as git's parser hands it on: its name as
// git spells it for lookups (section and key lowercased, a quoted subsection as written:
// "core.bare", `includeif.gitdir:~/w/.path`) and its value after git's unquoting, escapes,
// comments and whitespace (hasValue false for a key with no "=", which git reads as true).
type configEntry struct {
	name, value string
	hasValue    bool
}

// parseConfig reads a config file as git 2.39's parser does (config.c: git_parse_source,
// get_base_var, get_extended_base_var, get_value, parse_value), byte by byte: a UTF-8 BOM
// skipped at the very start (a partial one refused), "\r\n" read as "\n", whitespace as
// git's isspace (space, tab, CR, LF: not \v or \f), a header followed by a key on its line,
// continued lines, quotes and the escapes \t \b \n \" \\. ok is false wherever git fails
// to parse the file (git would then fail to list), and for what git reads oddly: a NUL
// (git's value ends there) or a key before any section.
func parseConfig(text []byte) ([]configEntry, bool) {
	if bytes.IndexByte(text, 0) >= 0 {
		return nil, false
	}
	s := &configScanner{b: text}
	if len(text) > 0 && text[0] == 0xef {
		if !bytes.HasPrefix(text, []byte("\xef\xbb\xbf")) {
			return nil, false // git does not tolerate a partial BOM
		}
		s.i = 3
	}
	var out []configEntry
	base, comment := "", false
	for {
		c := s.next()
		switch {
		case c == '\n':
			if s.eof {
				return out, true
			}
			comment = false
		case comment, isGitSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			name, ok := s.header()
			if !ok || name == "" {
				return nil, false
			}
			base = name + "."
		case !isASCIIAlpha(c) || base == "":
			return nil, false // git: a bad config line; "key does not contain a section"
		default:
			e, ok := s.variable(c)
			if !ok {
				return nil, false
			}
			e.name = base + e.name
			out = append(out, e)
		}
	}
}

// configScanner is git's get_next_char over a file's bytes: "\r\n" gives '\n', and the end
// gives '\n' with eof set (a last line without its newline is read whole).
type configScanner struct {
	b   []byte
	i   int
	eof bool
}

func (s *configScanner) next() byte {
	if s.i >= len(s.b) {
		s.eof = true
		return '\n'
	}
	c := s.b[s.i]
	s.i++
	if c == '\r' && s.i < len(s.b) && s.b[s.i] == '\n' {
		s.i++
		return '\n'
	}
	return c
}

// header reads a section header after its '[': the section name lowercased, then (after
// whitespace) a quoted subsection kept as written, as "section.subsection".
func (s *configScanner) header() (string, bool) {
	var name []byte
	for {
		c := s.next()
		switch {
		case s.eof:
			return "", false
		case c == ']':
			return string(name), true
		case isGitSpace(c):
			return s.subsection(name, c)
		case !isKeyChar(c) && c != '.':
			return "", false
		}
		name = append(name, lower(c))
	}
}

func (s *configScanner) subsection(name []byte, c byte) (string, bool) {
	for isGitSpace(c) {
		if c == '\n' {
			return "", false
		}
		c = s.next()
	}
	if c != '"' {
		return "", false
	}
	name = append(name, '.')
	for {
		c := s.next()
		if c == '\n' {
			return "", false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = s.next(); c == '\n' {
				return "", false
			}
		}
		name = append(name, c)
	}
	if s.next() != ']' {
		return "", false
	}
	return string(name), true
}

// variable reads a key (its first letter already read) and its value, if any.
func (s *configScanner) variable(first byte) (configEntry, bool) {
	name := []byte{lower(first)}
	var c byte
	for {
		c = s.next()
		if s.eof || !isKeyChar(c) {
			break
		}
		name = append(name, lower(c))
	}
	for c == ' ' || c == '\t' {
		c = s.next()
	}
	if c == '\n' {
		return configEntry{name: string(name)}, true
	}
	if c != '=' {
		return configEntry{}, false
	}
	v, ok := s.value()
	return configEntry{name: string(name), value: v, hasValue: true}, ok
}

// value is git's parse_value: whitespace outside quotes collapsed to as many spaces (none
// at the ends), comments cut outside quotes, a backslash-newline continuing the line.
func (s *configScanner) value() (string, bool) {
	var v []byte
	quote, comment, spaces := false, false, 0
	for {
		c := s.next()
		switch {
		case c == '\n':
			return string(v), !quote
		case comment:
			continue
		case isGitSpace(c) && !quote:
			if len(v) > 0 {
				spaces++
			}
			continue
		case !quote && (c == ';' || c == '#'):
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			v = append(v, ' ')
		}
		switch c {
		case '\\':
			switch c = s.next(); c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false // git rejects an unknown escape
			}
			v = append(v, c)
		case '"':
			quote = !quote
		default:
			v = append(v, c)
		}
	}
}

// isGitSpace is git's isspace (sane_ctype): space, \t, \n, \r; not \v or \f.
func isGitSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isASCIIAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isKeyChar(c byte) bool { return isASCIIAlpha(c) || c >= '0' && c <= '9' || c == '-' }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// gitBool is git_config_bool for the forms copse decides itself: no value (true), "" and
// the words false/no/off (false), true/yes/on (true), in any case, and a plain decimal
// integer (zero or not). ok is false for the rest (git also takes "0x10", "1k", " 1", or
// dies on a word it does not know): git decides.
func gitBool(value string, hasValue bool) (v, ok bool) {
	if !hasValue {
		return true, true
	}
	switch strings.ToLower(value) {
	case "":
		return false, true
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	digits := strings.TrimPrefix(value, "-")
	if value == "0" || len(digits) > 0 && len(digits) < 10 && digits[0] != '0' && strings.Trim(digits, "0123456789") == "" {
		return value != "0", true
	}
	return false, false
}

// isInclude: the entry names a file to include, for any condition (copse does not evaluate
// includeIf's conditions: it reads every file that could be included).
func isInclude(e configEntry) bool {
	if e.name == "include.path" {
		return true
	}
	rest, ok := strings.CutPrefix(e.name, "includeif.")
	return ok && strings.HasSuffix(rest, ".path") && len(rest) > len(".path")
}

// includePaths gives the files the include entries of a file name, as git's
// handle_path_include resolves them: "~/" from HOME, a relative path after the including
// file's directory, joined as strings (not cleaned: ".." is the kernel's, through
// symlinks). ok=false for what copse does not resolve as git does: no value, an empty
// path, "%(prefix)/" (git's install prefix), "~" alone or "~user", ~ without an absolute HOME.
func includePaths(file string, entries []configEntry, home string) ([]string, bool) {
	var paths []string
	for _, e := range entries {
		if !isInclude(e) {
			continue
		}
		v := e.value
		switch {
		case !e.hasValue || v == "" || strings.HasPrefix(v, "%(prefix)/"):
			return nil, false
		case strings.HasPrefix(v, "~/"):
			if !filepath.IsAbs(home) {
				return nil, false
			}
			v = home + v[1:]
		case v[0] == '~':
			return nil, false
		case v[0] != '/':
			v = file[:strings.LastIndexByte(file, '/')+1] + v
		}
		paths = append(paths, v)
	}
	return paths, true
}

// ConfigFiles are the config files git reads before a repository's own, in git 2.39's
// order (do_git_config_sequence), for the environment env (as git gets it: the last of a
// name wins): the system's (GIT_CONFIG_SYSTEM, or the default git's /etc/gitconfig), unless
// GIT_CONFIG_NOSYSTEM is a true git boolean; then GIT_CONFIG_GLOBAL when it is set (empty:
// none; /dev/null: an empty file), else $XDG_CONFIG_HOME/git/config (or
// $HOME/.config/git/config) and $HOME/.gitconfig. ok is false where copse cannot name the
// files exactly: GIT_CONFIG_NOSYSTEM not a boolean it reads, a relative path (git resolves
// it from the top of the worktree after its set-up, other config reads from where it
// started), a GIT_CONFIG_SYSTEM git would normalise, or a git on PATH other than Linux's
// /usr/bin/git when the system's file is read (another build's is under its own prefix).
func ConfigFiles(env []string) ([]string, bool) {
	var files []string
	noSystem := false
	if v, set := lookupEnv(env, "GIT_CONFIG_NOSYSTEM"); set {
		var ok bool
		if noSystem, ok = gitBool(v, true); !ok {
			return nil, false
		}
	}
	if !noSystem {
		sys, set := lookupEnv(env, "GIT_CONFIG_SYSTEM")
		switch {
		case set && sys == "":
		case set:
			if !filepath.IsAbs(sys) || filepath.Clean(sys) != sys {
				return nil, false
			}
			files = append(files, sys)
		case defaultGitIsSystems():
			files = append(files, "/etc/gitconfig")
		default:
			return nil, false
		}
	}
	if g, set := lookupEnv(env, "GIT_CONFIG_GLOBAL"); set {
		if g == "" {
			return files, true
		}
		if !filepath.IsAbs(g) {
			return nil, false
		}
		return append(files, g), true
	}
	home, hasHome := lookupEnv(env, "HOME")
	if hasHome && !filepath.IsAbs(home) {
		return nil, false
	}
	switch xdg := getenv(env, "XDG_CONFIG_HOME"); {
	case xdg != "" && !filepath.IsAbs(xdg):
		return nil, false
	case xdg != "":
		files = append(files, xdg+"/git/config")
	case hasHome:
		files = append(files, home+"/.config/git/config")
	}
	if hasHome {
		files = append(files, home+"/.gitconfig")
	}
	return files, true
}

// systemGit caches, per resolved path of "git" on PATH, whether it is /usr/bin/git.
var systemGit sync.Map // string -> bool

// defaultGitIsSystems: the git copse runs (a bare "git" on PATH) is a Linux system's
// /usr/bin/git, whose system config is /etc/gitconfig (git's Makefile: prefix /usr puts
// sysconfdir at /etc). Elsewhere the file is under the build's own prefix: Homebrew's
// under its etc, macOS's /usr/bin/git a shim to Xcode's git with a prefix of its own.
func defaultGitIsSystems() bool {
	if runtime.GOOS != "linux" {
		return false
	}
	p := resolveBin("git")
	if v, ok := systemGit.Load(p); ok {
		return v.(bool)
	}
	real, err := filepath.EvalSymlinks(p)
	is := err == nil && real == "/usr/bin/git"
	systemGit.Store(p, is)
	return is
}

// lookupEnv is name's value in env as git gets it (the last entry wins) and whether it is set.
func lookupEnv(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// getenv is name's value in env as git gets it: the last entry wins.
func getenv(env []string, name string) string {
	v, _ := lookupEnv(env, name)
	return v
}

// readConfig reads one config file git would read: missing (or a directory on the way
// missing: git's access_or_die allows ENOENT and ENOTDIR) is none when optional. /dev/null
// is empty; anything else that is not a regular file (a FIFO would block, /dev/zero never
// end) is git's to read.
func readConfig(path string, optional bool) (b []byte, found, ok bool) {
	if path == os.DevNull {
		return nil, true, true
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if optional && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)) {
		return nil, false, true
	}
	if err != nil {
		return nil, false, false
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, false, false
	}
	b, err = io.ReadAll(f)
	return b, err == nil, err == nil
}

// parseRepoFormatVersion: core.repositoryformatversion as copse accepts it (0 or 1 with no
// extensions: what git init writes).
func parseRepoFormatVersion(v string) bool {
	n, err := strconv.Atoi(v)
	return err == nil && (n == 0 || n == 1) && len(v) == 1
}

// Every git command, worktree list included, reads the config through git_default_config,
// which dies on a value it cannot parse (core.filemode = maybe, a user.name with no value,
// push.default = sideways): git then lists nothing. These tables are what git 2.39.5 was
// seen to accept and refuse (each key set to "maybe", to no value, to 1 and to x7, in a
// user's config): copse reads only the forms it is sure of and leaves the rest to git.
var (
	// defaultBoolKeys are git booleans, some with words of their own.
	defaultBoolKeys = map[string][]string{
		"core.filemode": nil, "core.ignorecase": nil, "core.precomposeunicode": nil,
		"core.protecthfs": nil, "core.protectntfs": nil, "core.trustctime": nil,
		"core.quotepath": nil, "core.safecrlf": {"warn"}, "core.autocrlf": {"input"},
		"core.symlinks": nil, "core.ignorestat": nil, "core.prefersymlinkrefs": nil,
		"core.bare": nil, "core.logallrefupdates": {"always"}, "core.warnambiguousrefs": nil,
		"core.sparsecheckout": nil, "core.sparsecheckoutcone": nil, "core.preloadindex": nil,
		"core.usereplacerefs": nil, "core.fsyncobjectfiles": nil, "user.useconfigonly": nil,
		"branch.autosetupmerge": {"always", "inherit", "simple"}, "color.advice": {"auto", "always", "never"},
		"pager.color": nil, "color.pager": nil, "worktree.guessremote": nil,
	}
	// defaultIntKeys are integers, in the range git accepts.
	defaultIntKeys = map[string][2]int{
		"core.compression": {-1, 9}, "core.loosecompression": {-1, 9}, "pack.compression": {-1, 9},
		"core.abbrev": {4, 40}, "core.packedgitwindowsize": {0, 1 << 30}, "core.packedgitlimit": {0, 1 << 30},
		"core.deltabasecachelimit": {0, 1 << 30}, "core.bigfilethreshold": {0, 1 << 30}, "pack.packsizelimit": {0, 1 << 30},
	}
	// defaultWordKeys take one of a few words.
	defaultWordKeys = map[string][]string{
		"push.default":           {"nothing", "matching", "simple", "upstream", "tracking", "current"},
		"branch.autosetuprebase": {"never", "local", "remote", "always"},
		"core.createobject":      {"rename", "link"},
	}
)

// readByDefaultConfig: git_default_config (and worktree list's own config) parses name.
func readByDefaultConfig(name string) bool {
	for _, p := range []string{"core.", "user.", "author.", "committer.", "i18n.", "push.", "mailmap.", "advice.", "sparse.", "color.advice."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	_, b := defaultBoolKeys[name]
	_, i := defaultIntKeys[name]
	_, w := defaultWordKeys[name]
	return b || i || w || name == "branch.sort"
}

// defaultConfigPlain: a variable git's default config reading parses is in a form git
// accepts (and copse is sure of): true when git does not parse the name at all.
func defaultConfigPlain(e configEntry) bool {
	if !readByDefaultConfig(e.name) {
		return true
	}
	words, isBool := defaultBoolKeys[e.name]
	if isBool || strings.HasPrefix(e.name, "advice.") || strings.HasPrefix(e.name, "sparse.") {
		_, ok := gitBool(e.value, e.hasValue)
		return ok || e.hasValue && slices.Contains(words, e.value)
	}
	if !e.hasValue {
		return false // a string git requires (git: "missing value"; some keys crash it)
	}
	if r, ok := defaultIntKeys[e.name]; ok {
		if e.name == "core.abbrev" && e.value == "auto" {
			return true
		}
		n, err := strconv.Atoi(e.value)
		return err == nil && strconv.Itoa(n) == e.value && n >= r[0] && n <= r[1]
	}
	if words, ok := defaultWordKeys[e.name]; ok {
		return slices.Contains(words, e.value)
	}
	switch {
	case e.name == "core.commentchar":
		return e.value == "auto" || len(e.value) == 1
	case strings.HasPrefix(e.name, "color.advice."):
		return false // a colour git parses: git decides
	}
	return true
}
