package gitx

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// plainRepoConfigText is the repository config git init writes, without its core.bare
// line: so a core.bare set anywhere else decides whether git lists the main worktree bare.
const plainRepoConfigText = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tlogallrefupdates = true\n"

// stateToken is core's state token of a list's bytes (core/worktrees.go: the first 12
// bytes of its SHA-256): the same bytes give the same token.
func stateToken(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:12])
}

// gitListErr is git's own list in dir, or its failure.
func gitListErr(s *sandbox, r *Runner, dir string) ([]byte, error) {
	c, err := WorktreeList(dir)
	if err != nil {
		s.t.Fatal(err)
	}
	return r.Run(s.t.Context(), c)
}

// oneWorktree is a repository with one commit and one linked worktree "a", its config as
// git init writes it but without core.bare.
func oneWorktree(t *testing.T) (*sandbox, string) {
	s := newSandbox(t)
	repo := s.path("repo")
	s.git(s.root, "init", "-q", "-b", "main", repo)
	s.git(repo, "commit", "-q", "--allow-empty", "-m", "one")
	s.git(repo, "worktree", "add", "-q", "-b", "a", s.path("wts", "a"))
	s.write(filepath.Join(repo, ".git", "config"), plainRepoConfigText)
	return s, repo
}

// readRule is one layout and what the direct reading must do with it: read it (git's list
// byte for byte, the same state token) or leave it to git. gitSays, when set, is in git's
// list (the layout matters: a reading that ignored it would differ); gitFails: git cannot
// list at all, so no reading may show one.
type readRule struct {
	name     string
	files    map[string]string // relative to the sandbox root; "repo/.git/config" replaces the repository's
	env      []string
	read     bool
	gitSays  string
	gitFails bool
}

func checkReadRules(t *testing.T, rules []readRule) {
	for _, tc := range rules {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, repo := oneWorktree(t)
			r := s.runner()
			sameAsGit(t, r, repo) // read before the one change
			checkOneRule(t, s, r, repo, tc)
		})
	}
}

// Config files as people keep them, read as git 2.39 reads them or left to git: the UTF-8
// BOM Notepad writes, whitespace git accepts (or refuses) in headers, includes git resolves
// in ways copse does not (%(prefix)/), and the keys that change the list (core.bare) set in
// the user's or system's file rather than the repository's.
func TestDirectListReadsConfigFilesAsGitDoes(t *testing.T) {
	bare := "[core]\n\tbare = true\n"
	checkReadRules(t, []readRule{
		{name: "a BOM before the repository's first section", read: false, gitSays: "\x00bare\x00",
			files: map[string]string{"repo/.git/config": "\xef\xbb\xbf" + plainRepoConfigText + "\tbare = true\n"}},
		{name: "a BOM before a harmless section", read: true,
			files: map[string]string{"home/.gitconfig": "\xef\xbb\xbf[user]\n\tname = x\n"}},
		{name: "a partial BOM", gitFails: true,
			files: map[string]string{"home/.gitconfig": "\xef\xbb[user]\n\tname = x\n"}},
		{name: "an includeIf header with a tab", gitSays: "\x00bare\x00",
			files: map[string]string{"home/.gitconfig": "[includeIf\t\"gitdir:$ROOT/\"]\n\tpath = inc\n", "home/inc": bare}},
		{name: "an includeIf header with a space, a tab and a CR", gitSays: "\x00bare\x00",
			files: map[string]string{"home/.gitconfig": "[includeIf \t\r\"gitdir:$ROOT/\"]\n\tpath = inc\n", "home/inc": bare}},
		{name: "an includeIf header with a harmless include", read: true,
			files: map[string]string{"home/.gitconfig": "[includeIf\t\"gitdir:$ROOT/\"]\n\tpath = inc\n", "home/inc": "[user]\n\tname = x\n"}},
		{name: "a header with a space inside its brackets", gitFails: true,
			files: map[string]string{"home/.gitconfig": "[ user]\n\tname = x\n"}},
		{name: "a vertical tab before a header", gitFails: true,
			files: map[string]string{"home/.gitconfig": "\v[user]\n\tname = x\n"}},
		{name: "an include under %(prefix)/", // git's install prefix: copse cannot name the file
			files: map[string]string{"home/.gitconfig": "[include]\n\tpath = %(prefix)/inc\n", "home/%(prefix)/inc": "[user]\n\tname = x\n"}},
		{name: "a quoted include path with a comment", gitSays: "\x00bare\x00",
			files: map[string]string{"home/.gitconfig": "[include]\n\tpath = \"inc\" ; the shared one\n", "home/inc": bare}},
		{name: "a quoted harmless include path", read: true,
			files: map[string]string{"home/.gitconfig": "[include]\n\tpath = \"in c\"\n", "home/in c": "[user]\n\tname = x\n"}},
		{name: "an included file git cannot parse", gitFails: true,
			files: map[string]string{"home/.gitconfig": "[include]\n\tpath = inc\n", "home/inc": "[user\n"}},
		{name: "core.bare in ~/.gitconfig", gitSays: "\x00bare\x00",
			files: map[string]string{"home/.gitconfig": bare}},
		{name: "core.bare false in ~/.gitconfig", read: true,
			files: map[string]string{"home/.gitconfig": "[core]\n\tbare = off\n"}},
		{name: "core.bare on the header's line", gitSays: "\x00bare\x00",
			files: map[string]string{"home/.gitconfig": "[core] bare\n"}},
		{name: "a continued line that makes a header a value", read: true,
			files: map[string]string{"home/.gitconfig": "[alias]\n\tx = a \\\n[core]\n\tbare = true\n"}},
		{name: "an unclosed quote", gitFails: true,
			files: map[string]string{"home/.gitconfig": "[alias]\n\tx = \"a\n"}},
		{name: "a key before any section", // git says "key does not contain a section" and goes on
			files: map[string]string{"home/.gitconfig": "bare = true\n[user]\n\tname = x\n"}},
		{name: "a key that starts with a digit", gitFails: true,
			files: map[string]string{"home/.gitconfig": "[alias]\n\t9x = y\n"}},
		{name: "a key with a comment and no value", gitFails: true,
			files: map[string]string{"home/.gitconfig": "[alias]\n\tx # y\n"}},
		{name: "core.bare in the system's file", gitSays: "\x00bare\x00",
			files: map[string]string{"sys.cfg": bare}, env: []string{"GIT_CONFIG_NOSYSTEM=", "GIT_CONFIG_SYSTEM=$ROOT/sys.cfg"}},
		{name: "a boolean git cannot parse", gitFails: true,
			files: map[string]string{"home/.gitconfig": "[core]\n\tfilemode = maybe\n"}},
		{name: "a name with no value where git needs one", gitFails: true,
			files: map[string]string{"home/.gitconfig": "[user]\n\tname\n"}},
		{name: "a word git does not know", gitFails: true,
			files: map[string]string{"home/.gitconfig": "[push]\n\tdefault = sideways\n"}},
		{name: "a number out of git's range", gitFails: true,
			files: map[string]string{"home/.gitconfig": "[core]\n\tabbrev = 41\n"}},
		{name: "values git parses", read: true,
			files: map[string]string{"home/.gitconfig": "[core]\n\tautocrlf = input\n\tabbrev = auto\n\tcompression = -1\n\teditor = vi\n" +
				"\tlogAllRefUpdates = always\n[push]\n\tdefault = current\n[advice]\n\tdetachedHead\n[user]\n\tname = A \"B\" C\n"}},
		{name: "core.ignorecase in ~/.gitconfig",
			files: map[string]string{"home/.gitconfig": "[core]\n\tignorecase = yes\n"}},
		{name: "core.worktree in ~/.gitconfig",
			files: map[string]string{"home/.gitconfig": "[core]\n\tworktree = /\n"}},
		{name: "an extension in ~/.gitconfig",
			files: map[string]string{"home/.gitconfig": "[extensions]\n\tworktreeConfig = true\n"}},
	})
}

// The environment as git reads it: GIT_CONFIG_NOSYSTEM is a git boolean ("0", "false",
// "no", "off" and "" read the system's file), GIT_CONFIG_GLOBAL= names no global file at
// all, a relative GIT_CONFIG_GLOBAL is git's to resolve (from the worktree's top, after
// its set-up) and /dev/null is an empty file.
func TestDirectListReadsTheEnvironmentAsGitDoes(t *testing.T) {
	bare := "[core]\n\tbare = true\n"
	var rules []readRule
	for _, v := range []string{"0", "false", "No", "off", ""} {
		rules = append(rules, readRule{name: "GIT_CONFIG_NOSYSTEM=" + v + " reads the system's file", gitSays: "\x00bare\x00",
			files: map[string]string{"sys.cfg": bare}, env: []string{"GIT_CONFIG_NOSYSTEM=" + v, "GIT_CONFIG_SYSTEM=$ROOT/sys.cfg"}})
	}
	for _, v := range []string{"1", "true", "YES", "on", "2", "-1"} {
		rules = append(rules, readRule{name: "GIT_CONFIG_NOSYSTEM=" + v + " skips it", read: true,
			files: map[string]string{"sys.cfg": bare}, env: []string{"GIT_CONFIG_NOSYSTEM=" + v, "GIT_CONFIG_SYSTEM=$ROOT/sys.cfg"}})
	}
	rules = append(rules,
		readRule{name: "GIT_CONFIG_NOSYSTEM not a boolean", gitFails: true,
			env: []string{"GIT_CONFIG_NOSYSTEM=maybe"}},
		readRule{name: "GIT_CONFIG_NOSYSTEM in a form git reads and copse does not", // 0k is 0 to git
			files: map[string]string{"sys.cfg": bare}, env: []string{"GIT_CONFIG_NOSYSTEM=0k", "GIT_CONFIG_SYSTEM=$ROOT/sys.cfg"}},
		readRule{name: "GIT_CONFIG_SYSTEM= names none", read: true,
			env: []string{"GIT_CONFIG_NOSYSTEM=0", "GIT_CONFIG_SYSTEM="}},
		readRule{name: "GIT_CONFIG_GLOBAL= names none", read: true, // ~/.gitconfig is not read
			files: map[string]string{"home/.gitconfig": "[core]\n\tignorecase = true\n", "home/.config/git/config": bare},
			env:   []string{"GIT_CONFIG_GLOBAL="}},
		readRule{name: "a relative GIT_CONFIG_GLOBAL", gitSays: "\x00bare\x00",
			files: map[string]string{"repo/rel.cfg": bare}, env: []string{"GIT_CONFIG_GLOBAL=rel.cfg"}},
		readRule{name: "GIT_CONFIG_GLOBAL=/dev/null", read: true,
			files: map[string]string{"home/.gitconfig": bare}, env: []string{"GIT_CONFIG_GLOBAL=/dev/null"}},
	)
	checkReadRules(t, rules)
}

// checkOneRule makes the case's change (its files, its environment) and checks what the
// direct reading does with it against git.
func checkOneRule(t *testing.T, s *sandbox, r *Runner, repo string, tc readRule) {
	t.Helper()
	for name, text := range tc.files {
		s.write(s.path(name), strings.ReplaceAll(text, "$ROOT", s.root))
	}
	for _, kv := range tc.env {
		r.Env = append(slices.Clip(r.Env), strings.ReplaceAll(kv, "$ROOT", s.root))
	}
	want, gitErr := gitListErr(s, r, repo)
	switch {
	case tc.gitFails && gitErr == nil:
		t.Fatalf("git listed the layout, the case needs it to fail:\n%q", want)
	case !tc.gitFails && gitErr != nil:
		t.Fatalf("git: %v", gitErr)
	case tc.gitSays != "" && !bytes.Contains(want, []byte(tc.gitSays)):
		t.Fatalf("git's list lacks %q, so the case proves nothing:\n%q", tc.gitSays, want)
	}
	got, ok := r.ReadWorktreeList(repo)
	switch {
	case ok && !tc.read:
		t.Fatalf("read a layout it must leave to git:\n got: %q\n git: %q (%v)", got.Raw, want, gitErr)
	case !ok && tc.read:
		t.Fatalf("left to git a layout it reads as git does; git: %q", want)
	case ok && (!bytes.Equal(got.Raw, want) || stateToken(got.Raw) != stateToken(want)):
		t.Fatalf("the direct reading differs from git's list\n got: %q\nwant: %q", got.Raw, want)
	}
}

// ConfigFiles names the files git reads, in git's order: checked against git's own
// `config --list --show-origin` run with exactly that environment (no process environment
// under it), each file setting a key of its own (and the machine's /etc/gitconfig, when it
// sets anything, where git reads it).
func TestConfigFilesAreTheOnesGitReads(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, xdg := filepath.Join(root, "home"), filepath.Join(root, "xdg")
	files := map[string]string{
		filepath.Join(root, "sys.cfg"):                  "[t]\n\tsys = 1\n",
		filepath.Join(root, "global.cfg"):               "[t]\n\tglobal = 1\n",
		filepath.Join(home, ".gitconfig"):               "[t]\n\thome = 1\n",
		filepath.Join(home, ".config", "git", "config"): "[t]\n\thomexdg = 1\n",
		filepath.Join(xdg, "git", "config"):             "[t]\n\txdg = 1\n",
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := "PATH=" + os.Getenv("PATH")
	sys := "GIT_CONFIG_SYSTEM=" + filepath.Join(root, "sys.cfg")
	for _, env := range [][]string{
		{path, "HOME=" + home},
		{path, "HOME=" + home, "XDG_CONFIG_HOME=" + xdg},
		{path, "HOME=" + home, "XDG_CONFIG_HOME="},
		{path, "HOME=" + home, "XDG_CONFIG_HOME=" + xdg, "GIT_CONFIG_GLOBAL="},
		{path, "HOME=" + home, "GIT_CONFIG_GLOBAL=" + filepath.Join(root, "global.cfg")},
		{path, "HOME=" + home, "GIT_CONFIG_GLOBAL=/dev/null"},
		{path, "XDG_CONFIG_HOME=" + xdg},
		{path},
		{path, "HOME=" + home, sys},
		{path, "HOME=" + home, sys, "GIT_CONFIG_NOSYSTEM=0"},
		{path, "HOME=" + home, sys, "GIT_CONFIG_NOSYSTEM="},
		{path, "HOME=" + home, sys, "GIT_CONFIG_NOSYSTEM=off"},
		{path, "HOME=" + home, sys, "GIT_CONFIG_NOSYSTEM=1"},
		{path, "HOME=" + home, sys, "GIT_CONFIG_NOSYSTEM=On"},
		{path, "HOME=" + home, "GIT_CONFIG_SYSTEM="},
	} {
		names, ok := ConfigFiles(env)
		if !ok && !defaultGitIsSystems() && !slices.ContainsFunc(env, func(kv string) bool {
			return strings.HasPrefix(kv, "GIT_CONFIG_SYSTEM=") || kv == "GIT_CONFIG_NOSYSTEM=1" || kv == "GIT_CONFIG_NOSYSTEM=On"
		}) {
			t.Logf("%q: the system's file of this git is not known (not Linux's /usr/bin/git)", env)
			continue
		}
		if !ok {
			t.Errorf("%q: ConfigFiles cannot name the files", env)
			continue
		}
		var want []string // what git reads of the files this test wrote, in its order
		cmd := exec.Command("git", "config", "--list", "--show-origin")
		cmd.Env, cmd.Dir = env, root
		out, err := cmd.Output()
		if err != nil && len(out) > 0 {
			t.Fatalf("%q: git config: %v", env, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if f, _, ok := strings.Cut(strings.TrimPrefix(line, "file:"), "\t"); ok && (len(want) == 0 || want[len(want)-1] != f) {
				want = append(want, f) // every file git read that sets something (/etc/gitconfig too)
			}
		}
		var got []string
		for _, f := range names {
			if b, err := os.ReadFile(f); err == nil {
				if entries, _ := parseConfig(b); len(entries) > 0 {
					got = append(got, f)
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: ConfigFiles names %q (of them, written here: %q); git reads %q", env, names, got, want)
		}
	}
	for _, env := range [][]string{
		{"HOME=" + home, "GIT_CONFIG_GLOBAL=rel.cfg"},
		{"HOME=home"},
		{"HOME=" + home, "XDG_CONFIG_HOME=xdg"},
		{"HOME=" + home, "GIT_CONFIG_SYSTEM=sys.cfg"},
		{"HOME=" + home, "GIT_CONFIG_SYSTEM=" + root + "/x/../sys.cfg"},
		{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=maybe"},
		{"HOME=" + home, "GIT_CONFIG_NOSYSTEM= 1"},
	} {
		if names, ok := ConfigFiles(env); ok {
			t.Errorf("%q: ConfigFiles names %q; it cannot know them as git does", env, names)
		}
	}
}

// A lock reason is trimmed as git's strbuf_trim trims it: space, tab, CR and LF, not the
// vertical tab or form feed (git's isspace has neither).
func TestDirectListKeepsVerticalTabAndFormFeedInLockReasons(t *testing.T) {
	t.Parallel()
	s, repo := oneWorktree(t)
	r := s.runner()
	s.write(filepath.Join(repo, ".git", "worktrees", "a", "locked"), "\v on a disk\f \r\n\t")
	got := sameAsGit(t, r, repo)
	if !bytes.Contains(got.Raw, []byte("locked \v on a disk\f\x00")) {
		t.Fatalf("git kept \\v and \\f, the list does not show them: %q", got.Raw)
	}
}

// A worktree whose .git is a dangling symlink is not prunable to git (should_prune_worktree
// asks lstat whether the .git is there), and the list does not call it so.
func TestDirectListADanglingDotGitIsNotPrunable(t *testing.T) {
	t.Parallel()
	s, repo := oneWorktree(t)
	r := s.runner()
	dotgit := s.path("wts", "a", ".git")
	if err := os.Remove(dotgit); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(s.path("nowhere"), dotgit); err != nil {
		t.Fatal(err)
	}
	if got := sameAsGit(t, r, repo); bytes.Contains(got.Raw, []byte("prunable")) {
		t.Fatalf("git does not call it prunable: %q", got.Raw)
	}
	// A checkout gone, and one under a file where a directory was: prunable to both.
	if err := os.RemoveAll(s.path("wts", "a")); err != nil {
		t.Fatal(err)
	}
	s.write(s.path("wts", "a"), "a file\n")
	if got := sameAsGit(t, r, repo); !bytes.Contains(got.Raw, []byte("prunable")) {
		t.Fatalf("git calls it prunable: %q", got.Raw)
	}
}

// packed-refs is read as git's packed-backend reads it, or left to git: peeled tag lines,
// an unsorted file without the "sorted" trait (git sorts it), and git's failures (no final
// newline, a peeled line with no ref before it, a blank line); a "sorted" header over
// unsorted lines is git's to binary-search.
func TestDirectListReadsPackedRefsAsGitDoes(t *testing.T) {
	type packedCase struct {
		name     string
		edit     func(lines []string, oid string) string // the file from git's packed lines (no header)
		read     bool
		gitFails bool
		gitSays  string
	}
	cases := []packedCase{
		{name: "as git writes it, peeled tags included", read: true,
			edit: func(l []string, oid string) string {
				return "# pack-refs with: peeled fully-peeled sorted \n" + strings.Join(l, "\n") + "\n"
			}},
		{name: "unsorted with no header", read: true,
			edit: func(l []string, oid string) string { return strings.Join(reversedRefs(l), "\n") + "\n" }},
		{name: "unsorted under a header without sorted", read: true,
			edit: func(l []string, oid string) string {
				return "# pack-refs with: peeled\n" + strings.Join(reversedRefs(l), "\n") + "\n"
			}},
		{name: "unsorted under a sorted header", gitSays: "HEAD " + zeroOID, // git misses refs that are there
			edit: func(l []string, oid string) string {
				return "# pack-refs with: peeled fully-peeled sorted \n" + strings.Join(reversedRefs(l), "\n") + "\n"
			}},
		{name: "no final newline", gitFails: true,
			edit: func(l []string, oid string) string { return strings.Join(l, "\n") }},
		{name: "a peeled line first", gitFails: true,
			edit: func(l []string, oid string) string { return "^" + oid + "\n" + strings.Join(l, "\n") + "\n" }},
		{name: "a blank line", gitFails: true,
			edit: func(l []string, oid string) string { return l[0] + "\n\n" + strings.Join(l[1:], "\n") + "\n" }},
		{name: "a ref twice",
			edit: func(l []string, oid string) string {
				return strings.Join(l, "\n") + "\n" + zeroOID[:39] + "1 refs/heads/a\n"
			}},
		{name: "a header git does not know", gitFails: true,
			edit: func(l []string, oid string) string { return "# packed\n" + strings.Join(l, "\n") + "\n" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, repo := oneWorktree(t)
			r := s.runner()
			for _, b := range []string{"b", "c", "z"} {
				s.git(repo, "branch", b)
				s.git(repo, "tag", "-a", "-m", "t", "t"+b)
			}
			s.git(repo, "worktree", "add", "-q", s.path("wts", "z"), "z")
			s.git(repo, "pack-refs", "--all")
			packed := filepath.Join(repo, ".git", "packed-refs")
			b, err := os.ReadFile(packed)
			if err != nil {
				t.Fatal(err)
			}
			sameAsGit(t, r, repo)
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")[1:]
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "^") }) {
				t.Fatalf("no peeled line to test with:\n%s", b)
			}
			oid := strings.TrimSpace(s.git(repo, "rev-parse", "HEAD"))
			s.write(packed, tc.edit(lines, oid))
			checkOneRule(t, s, r, repo, readRule{read: tc.read, gitFails: tc.gitFails, gitSays: tc.gitSays})
		})
	}
}

// reversedRefs reverses the order of the records (a ref with its peeled line) of packed
// lines.
func reversedRefs(lines []string) []string {
	var recs [][]string
	for _, l := range lines {
		if strings.HasPrefix(l, "^") {
			recs[len(recs)-1] = append(recs[len(recs)-1], l)
		} else {
			recs = append(recs, []string{l})
		}
	}
	slices.Reverse(recs)
	return slices.Concat(recs...)
}

// A config file that is not a regular file (a FIFO, which would block the reading until a
// writer came, or /dev/zero, which never ends) is git's to read; /dev/null is empty.
func TestDirectListLeavesConfigDevicesToGit(t *testing.T) {
	t.Parallel()
	s, repo := oneWorktree(t)
	fifo := s.path("fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, global := range []string{fifo, "/dev/zero"} {
		r := s.runner()
		r.Env = append(slices.Clip(r.Env), "GIT_CONFIG_GLOBAL="+global)
		done := make(chan bool, 1)
		go func() { _, ok := r.ReadWorktreeList(repo); done <- ok }()
		select {
		case ok := <-done:
			if ok {
				t.Errorf("GIT_CONFIG_GLOBAL=%s: read a list from a config file that is a device", global)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("GIT_CONFIG_GLOBAL=%s: the reading hangs", global)
		}
	}
	r := s.runner()
	r.Env = append(slices.Clip(r.Env), "GIT_CONFIG_GLOBAL="+os.DevNull)
	sameAsGit(t, r, repo)
}

// The user's config with GIT_CONFIG_GLOBAL unset: $XDG_CONFIG_HOME/git/config (or
// $HOME/.config/git/config) and then ~/.gitconfig, each read as git reads it. Serial: it
// unsets the process's GIT_CONFIG_GLOBAL (coretest.Main's unreadable file), which a
// Runner's Env can override but not remove.
func TestDirectListReadsTheXDGConfigAsGitDoes(t *testing.T) {
	bare := "[core]\n\tbare = true\n"
	for _, tc := range []readRule{
		{name: "core.bare in $XDG_CONFIG_HOME/git/config", gitSays: "\x00bare\x00",
			files: map[string]string{"home/.config/git/config": bare}},
		{name: "core.bare in $HOME/.config/git/config", gitSays: "\x00bare\x00",
			files: map[string]string{"home/.config/git/config": bare}, env: []string{"XDG_CONFIG_HOME="}},
		{name: "core.bare in a XDG_CONFIG_HOME of its own", gitSays: "\x00bare\x00",
			files: map[string]string{"xdg/git/config": bare}, env: []string{"XDG_CONFIG_HOME=$ROOT/xdg"}},
		{name: "a harmless XDG config under a BOM", read: true,
			files: map[string]string{"home/.config/git/config": "\xef\xbb\xbf[user]\n\tname = x\n", "home/.gitconfig": "[core]\n\tbare = no\n"}},
		{name: "a XDG config git cannot parse", gitFails: true,
			files: map[string]string{"home/.config/git/config": "[user\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, repo := oneWorktree(t)
			t.Setenv("GIT_CONFIG_GLOBAL", "")
			os.Unsetenv("GIT_CONFIG_GLOBAL")
			s.env = slices.DeleteFunc(slices.Clone(s.env), func(kv string) bool { return strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") })
			r := s.runner()
			sameAsGit(t, r, repo)
			checkOneRule(t, s, r, repo, tc)
		})
	}
}
