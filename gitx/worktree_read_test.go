package gitx

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitList is what git itself prints for the worktree list in dir.
func gitList(t *testing.T, r *Runner, dir string) []byte {
	t.Helper()
	c, err := WorktreeList(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Run(context.Background(), c)
	if err != nil {
		t.Fatalf("git worktree list in %s: %v", dir, err)
	}
	return out
}

// sameAsGit reads the list from git's files in each dir and compares it byte for byte with
// git's own output there.
func sameAsGit(t *testing.T, r *Runner, dirs ...string) DirectList {
	t.Helper()
	var last DirectList
	for _, dir := range dirs {
		got, ok := r.ReadWorktreeList(dir)
		if !ok {
			t.Fatalf("in %s: the direct reading refused a layout it should read", dir)
		}
		if want := gitList(t, r, dir); string(got.Raw) != string(want) {
			t.Fatalf("in %s: the direct reading differs from git's list\n got: %q\nwant: %q", dir, got.Raw, want)
		}
		last = got
	}
	return last
}

// refuses checks that the direct reading gives way to git in dir.
func refuses(t *testing.T, r *Runner, dir string) {
	t.Helper()
	if got, ok := r.ReadWorktreeList(dir); ok {
		t.Fatalf("in %s: read a layout it must leave to git:\n%q", dir, got.Raw)
	}
}

// varied is a repository with every kind of worktree record git prints: branches with
// slashes, names that sort apart from their creation order, detached, locked with and
// without a reason, prunable, an unborn branch, paths with spaces and non-ASCII.
func varied(t *testing.T) (*sandbox, string) {
	s := newSandbox(t)
	repo := s.path("repo")
	s.git(s.root, "init", "-q", "-b", "main", repo)
	s.write(filepath.Join(repo, "f"), "x\n")
	s.git(repo, "add", "f")
	s.git(repo, "commit", "-q", "-m", "one")
	wts := s.path("wts")
	for _, name := range []string{"zeta", "alpha", "Mid", "sp ace", "ünï"} {
		s.git(repo, "worktree", "add", "-q", "-b", "b/"+strings.ReplaceAll(name, " ", "-"), filepath.Join(wts, name))
	}
	s.git(repo, "worktree", "add", "-q", "--detach", filepath.Join(wts, "det"))
	s.git(repo, "worktree", "lock", "--", filepath.Join(wts, "det"))
	s.git(repo, "worktree", "lock", "--reason", "  on a USB disk\nunplugged \t", "--", filepath.Join(wts, "alpha"))
	s.git(repo, "worktree", "add", "-q", "-b", "gone", filepath.Join(wts, "gone"))
	if err := os.RemoveAll(filepath.Join(wts, "gone")); err != nil {
		t.Fatal(err)
	}
	s.git(filepath.Join(wts, "zeta"), "checkout", "-q", "--orphan", "unborn")
	return s, repo
}

func TestDirectListIsGitsListByteForByte(t *testing.T) {
	s, repo := varied(t)
	r := s.runner()
	sub := filepath.Join(repo, "deep", "er")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	wsub := s.path("wts", "Mid", "inner")
	if err := os.MkdirAll(wsub, 0o755); err != nil {
		t.Fatal(err)
	}
	got := sameAsGit(t, r, repo, sub, s.path("wts", "Mid"), wsub, s.path("wts", "det"))
	if got.CommonDir != filepath.Join(repo, ".git") {
		t.Errorf("common dir %q", got.CommonDir)
	}
	if got.IDs[s.path("wts", "sp ace")] != "sp-ace" || got.IDs[s.path("wts", "gone")] != "gone" || len(got.IDs) != 7 {
		t.Errorf("ids %v", got.IDs)
	}

	// Includes whose files cannot change the list (an identity for some directories; one
	// that is not there), in the user's config and the repository's.
	s.write(s.path("home", ".gitconfig"), "[includeIf \"gitdir:"+repo+"/\"]\n\tpath = ~/work.inc\n[include]\n\tpath = missing.inc\n")
	s.write(s.path("home", "work.inc"), "[user]\n\temail = someone@example.invalid\n")
	s.git(repo, "config", "include.path", "../local.inc")
	s.write(filepath.Join(repo, "local.inc"), "[alias]\n\tst = status\n")
	sameAsGit(t, r, repo, s.path("wts", "Mid"))

	// Branches packed (and some loose again), a branch deleted under a worktree.
	s.git(repo, "pack-refs", "--all")
	sameAsGit(t, r, repo)
	s.git(s.path("wts", "Mid"), "commit", "-q", "--allow-empty", "-m", "loose again")
	s.git(repo, "update-ref", "-d", "refs/heads/b/sp-ace")
	sameAsGit(t, r, repo, s.path("wts", "Mid"))

	// A worktree in the middle of a rebase lists detached.
	s.git(repo, "commit", "-q", "--allow-empty", "-m", "two")
	s.write(filepath.Join(repo, ".git", "worktrees", "Mid", "rebase-merge", "head-name"), "refs/heads/b/Mid\n")
	sameAsGit(t, r, repo)
}

func TestDirectListOfAnUnbornRepository(t *testing.T) {
	s := newSandbox(t)
	repo := s.path("repo")
	s.git(s.root, "init", "-q", "-b", "trunk", repo)
	got := sameAsGit(t, s.runner(), repo)
	if !strings.Contains(string(got.Raw), "HEAD "+zeroOID) {
		t.Errorf("unborn HEAD not listed as zeros: %q", got.Raw)
	}
}

// Every layout the reader does not prove it reads as git does goes to git. Each case
// changes one thing from a repository the reader accepts, and checks it did accept it first.
func TestDirectListLeavesAnythingElseToGit(t *testing.T) {
	cases := []struct {
		name  string
		setup func(s *sandbox, repo string, r *Runner) string // gives the dir to read from
	}{
		{"a git binary of the caller's", func(s *sandbox, repo string, r *Runner) string { r.Bin = "/usr/bin/git"; return repo }},
		{"a discovery variable", func(s *sandbox, repo string, r *Runner) string {
			r.Env = append(r.Env, "GIT_CEILING_DIRECTORIES="+s.root)
			return repo
		}},
		{"config from the environment", func(s *sandbox, repo string, r *Runner) string {
			r.Env = append(r.Env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.ignorecase", "GIT_CONFIG_VALUE_0=true")
			return repo
		}},
		{"core.ignorecase", func(s *sandbox, repo string, r *Runner) string {
			s.git(repo, "config", "core.ignorecase", "true")
			return repo
		}},
		{"an included file that includes", func(s *sandbox, repo string, r *Runner) string {
			s.git(repo, "config", "include.path", s.path("other"))
			s.write(s.path("other"), "[include]\n\tpath = more\n")
			return repo
		}},
		{"an included file that sets core", func(s *sandbox, repo string, r *Runner) string {
			s.write(filepath.Join(s.root, "home", ".gitconfig"), "[includeIf \"gitdir:~/\"]\n\tpath = x\n")
			s.write(filepath.Join(s.root, "home", "x"), "[core]\n\tignorecase = true\n")
			return repo
		}},
		{"an extension", func(s *sandbox, repo string, r *Runner) string {
			s.git(repo, "config", "extensions.worktreeConfig", "true")
			return repo
		}},
		{"core.bare", func(s *sandbox, repo string, r *Runner) string {
			s.git(repo, "config", "core.bare", "true")
			return s.path("wts", "a")
		}},
		{"core.worktree", func(s *sandbox, repo string, r *Runner) string {
			s.git(repo, "config", "core.worktree", repo)
			return repo
		}},
		{"a bare repository", func(s *sandbox, repo string, r *Runner) string {
			bare := s.path("bare.git")
			s.git(s.root, "clone", "-q", "--bare", repo, bare)
			s.git(bare, "worktree", "add", "-q", s.path("from-bare"), "main")
			return s.path("from-bare")
		}},
		{"inside the git dir", func(s *sandbox, repo string, r *Runner) string { return filepath.Join(repo, ".git", "refs") }},
		{"a relative gitdir", func(s *sandbox, repo string, r *Runner) string {
			s.write(filepath.Join(repo, ".git", "worktrees", "a", "gitdir"), "../../../../wts/a/.git\n")
			return repo
		}},
		{"a symbolic ref chain", func(s *sandbox, repo string, r *Runner) string {
			s.git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
			s.git(s.path("wts", "a"), "symbolic-ref", "HEAD", "refs/heads/alias")
			return repo
		}},
		{"HEAD outside refs/heads", func(s *sandbox, repo string, r *Runner) string {
			s.git(s.path("wts", "a"), "symbolic-ref", "HEAD", "refs/remotes/origin/x")
			return repo
		}},
		{"a symlinked HEAD", func(s *sandbox, repo string, r *Runner) string {
			head := filepath.Join(repo, ".git", "worktrees", "a", "HEAD")
			os.Rename(head, head+".real")
			os.Symlink("HEAD.real", head)
			return repo
		}},
		{"an admin directory half written", func(s *sandbox, repo string, r *Runner) string {
			os.Remove(filepath.Join(repo, ".git", "worktrees", "a", "commondir"))
			return repo
		}},
		{"a file among the admin directories", func(s *sandbox, repo string, r *Runner) string {
			s.write(filepath.Join(repo, ".git", "worktrees", "stray"), "")
			return repo
		}},
		{"a torn gitdir file", func(s *sandbox, repo string, r *Runner) string {
			s.write(filepath.Join(repo, ".git", "worktrees", "a", "gitdir"), s.path("wts", "a", ".git"))
			return repo
		}},
		{"a symlinked worktrees directory", func(s *sandbox, repo string, r *Runner) string {
			admin := filepath.Join(repo, ".git", "worktrees")
			if err := os.Rename(admin, s.path("admin")); err != nil {
				s.t.Fatal(err)
			}
			if err := os.Symlink(s.path("admin"), admin); err != nil {
				s.t.Fatal(err)
			}
			return repo
		}},
		{"a corrupt packed-refs", func(s *sandbox, repo string, r *Runner) string {
			s.git(repo, "pack-refs", "--all")
			s.write(filepath.Join(repo, ".git", "packed-refs"), "garbage\n")
			return repo
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			repo := s.path("repo")
			s.git(s.root, "init", "-q", "-b", "main", repo)
			s.git(repo, "commit", "-q", "--allow-empty", "-m", "one")
			s.git(repo, "worktree", "add", "-q", "-b", "a", s.path("wts", "a"))
			r := s.runner()
			sameAsGit(t, r, repo) // accepted before the one change
			refuses(t, r, tc.setup(s, repo, r))
		})
	}
}

// copse.backend and copse.sort are read from the config files where that gives git's
// answer, and from git otherwise; either way the value is git's.
func TestConfigFromFilesIsGitsAnswer(t *testing.T) {
	cases := []struct {
		name          string
		global, local string
		xdg           string
		fromFiles     bool
	}{
		{"unset", "", "", "", true},
		{"local", "", "[copse]\n\tbackend = tmux\n", "", true},
		{"global", "[copse]\n\tbackend = herdr\n", "", "", true},
		{"local over global", "[copse]\n\tbackend = herdr\n", "[Copse]\n  BACKEND=tmux\n", "", true},
		{"the last one in a file", "", "[copse]\nbackend = git\n[core]\nx = 1\n[copse]\nbackend = tmux\n", "", true},
		{"~/.gitconfig over XDG", "[copse]\nbackend = tmux\n", "", "[copse]\nbackend = herdr\n", true},
		{"another key only", "", "[copse]\nroot = ../wt\n", "", true},
		{"a subsection is another key", "", "[copse \"backend\"]\nx = y\n", "", true},
		{"a quoted value", "", "[copse]\nbackend = \"tmux\"\n", "", true},
		{"a comment after the value", "", "[copse]\nbackend = tmux # here\n", "", true},
		{"a key with no value", "", "[copse]\nbackend\n", "", false},
		{"on the header's line", "", "[copse] backend = tmux\n", "", true},
		{"a continued line hides the header", "[alias]\nx = a \\\n[copse]\nbackend = tmux\n", "", "", true},
		{"an include that cannot set it", "[include]\npath = other\n", "[copse]\nbackend = tmux\n", "", true},
		{"an included file that mentions copse", "[include]\npath = ~/other\n", "", "", false},
		{"an includeIf with a tab", "[includeIf\t\"gitdir:/\"]\npath = ~/other\n", "[copse]\nbackend = tmux\n", "", false},
		{"an include under %(prefix)/", "[include]\npath = %(prefix)/other\n", "", "", false},
		{"a BOM before the section", "\xef\xbb\xbf[copse]\nbackend = herdr\n", "", "", true},
		{"an unclosed quote elsewhere", "[alias]\nx = \"a\n", "[copse]\nbackend = tmux\n", "", false},
		{"a vertical tab before a header", "\v[copse]\nbackend = herdr\n", "", "", false},
		{"whitespace git keeps in a value", "[copse]\nbackend = a\vb\n", "", "", false},
		{"a subsection with escapes", "[copse \"a\\\"b\"]\nbackend = x\n[copse]\nbackend = tmux\n", "", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			repo := s.path("repo")
			s.git(s.root, "init", "-q", "-b", "main", repo)
			if tc.global != "" {
				s.write(filepath.Join(s.root, "home", ".gitconfig"), tc.global)
			}
			s.write(filepath.Join(s.root, "home", "other"), "[copse]\n\tbackend = herdr\n")
			if tc.name == "an include that cannot set it" {
				s.write(filepath.Join(s.root, "home", "other"), "[user]\n\tname = x\n")
			}
			if tc.xdg != "" {
				s.write(filepath.Join(s.root, "home", ".config", "git", "config"), tc.xdg)
			}
			if tc.local != "" {
				f, err := os.OpenFile(filepath.Join(repo, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(tc.local)
				f.Close()
			}
			r := s.runner()
			want, wantErr := s.gitErr(repo, "config", "--get", "copse.backend")
			wantFound := wantErr == nil
			v, found, ok := r.readConfigFromFiles(repo, "copse.backend")
			if ok != tc.fromFiles {
				t.Fatalf("read from files = %v, want %v", ok, tc.fromFiles)
			}
			if ok && (found != wantFound || v != strings.TrimSuffix(want, "\n")) {
				t.Fatalf("from files %q (found %v); git says %q (found %v)", v, found, want, wantFound)
			}
			got, gotFound, err := r.ConfigValue(context.Background(), repo, "copse.backend")
			var exit *exec.ExitError
			if errors.As(wantErr, &exit) && exit.ExitCode() != 1 { // git cannot read the config
				if ok || err == nil {
					t.Fatalf("git fails (%s), copse reads %q (from files %v, %v)", want, got, ok, err)
				}
				return
			}
			if err != nil || gotFound != wantFound || got != strings.TrimSuffix(want, "\n") {
				t.Fatalf("ConfigValue %q (found %v, %v); git says %q (found %v)", got, gotFound, err, want, wantFound)
			}
		})
	}
}

// configForm is a config file's text in one of the forms people keep it (or git refuses);
// keep false: put back the plain form after the step's check (git would fail, or the list
// is left to git, for the steps after).
type configForm struct {
	text string
	keep bool
}

var (
	// randomUserConfigs are ~/.gitconfig's forms; $ROOT is the sandbox.
	randomUserConfigs = []configForm{
		{"", true},
		{"\xef\xbb\xbf[user]\n\tname = x\n", true},
		{"[includeIf\t\"gitdir:$ROOT/\"]\n\tpath = inc\n", true},
		{"[includeIf \t\r\"gitdir:$ROOT/\"]\n\tpath = \"~/inc\" # the shared one\n", true},
		{"[include]\n\tpath = %(prefix)/inc\n", false},
		{"[ include]\n\tpath = inc\n", false},
		{"[core] bare = true\n", false},
		{"[core]\n\tbare = false\n\tignorecase = true\n", false},
		{"[alias]\n\tx = a \\\n[core]\n\tbare = true\n", true},
		{"\xef\xbb[user]\n", false},
		{"[core]\r\n\tbare = no\r\n", true},
		{"[alias]\n\tst = \"status ; -s\"\n\tlg = log\\t--oneline\n", true},
		{"\v[user]\n", false},
		{"[core]\n\tfilemode = maybe\n", false},
		{"[core]\n\tautocrlf = input\n\teditor = vi\n[push]\n\tdefault = current\n", true},
	}
	// randomIncluded are the forms of the file those includes name (~/inc).
	randomIncluded = []configForm{
		{"[user]\n\tname = y\n", true},
		{"\xef\xbb\xbf[user]\n\temail = y@example.invalid\n", true},
		{"[core]\n\tbare = true\n", false},
		{"[include]\n\tpath = inc\n", false},
		{"[user\n", false},
		{"[core]\n\tbare = \"false\"\n", true},
	}
	// randomRepoConfigs are the repository config's (after git init's lines, bare unset).
	randomRepoConfigs = []configForm{
		{plainRepoConfigText, true},
		{plainRepoConfigText + "\tbare = false\n", true},
		{"\xef\xbb\xbf" + plainRepoConfigText, true},
		{"\xef\xbb\xbf" + plainRepoConfigText + "\tbare = true\n", false},
		{plainRepoConfigText + "[core]\n\tignorecase = true\n", false},
		{plainRepoConfigText + "[extensions]\n\tworktreeConfig = true\n", false},
		{plainRepoConfigText + "[include]\n\tpath = ../../home/inc\n", true},
		{"[core] repositoryformatversion = 0\n[core \"x\"]\n\tbare = true\n", true},
	}
)

// packedForm rewrites packed-refs from git's own (its header, then its records: a ref and
// its peeled line): as git may find it from another writer, or broken. keep as above.
type packedForm struct {
	name  string
	write func(header string, records []string) string
	keep  bool
}

var randomPackedForms = []packedForm{
	{"as git wrote it", func(h string, r []string) string { return h + strings.Join(r, "") }, true},
	{"unsorted, no header", func(h string, r []string) string { return strings.Join(reversed(r), "") }, true},
	{"unsorted under a peeled header", func(h string, r []string) string {
		return "# pack-refs with: peeled \n" + strings.Join(reversed(r), "")
	}, true},
	{"unsorted under a sorted header", func(h string, r []string) string { return h + strings.Join(reversed(r), "") }, false},
	{"no final newline", func(h string, r []string) string { return strings.TrimSuffix(h+strings.Join(r, ""), "\n") }, false},
}

func reversed(r []string) []string { r = slices.Clone(r); slices.Reverse(r); return r }

// packedRecords splits packed-refs into its header line and its records (each with its
// newlines, a peeled line with its ref).
func packedRecords(b []byte) (header string, records []string) {
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) > 0 && strings.HasPrefix(lines[0], "#") {
		header, lines = lines[0], lines[1:]
	}
	for _, l := range lines {
		switch {
		case l == "":
		case strings.HasPrefix(l, "^") && len(records) > 0:
			records[len(records)-1] += l
		default:
			records = append(records, l)
		}
	}
	return header, records
}

// Random sequences of what people and agents do to worktrees, and of config files and
// packed-refs rewritten in the forms people and other tools leave them (a BOM, includes and
// includeIf headers with tabs, a key on a header's line, continued lines, a sorted header
// over unsorted refs, peeled lines, no final newline), checked after every step: where the
// direct reading accepts the repository, git lists it too, byte for byte (so with the same
// state token). Most steps must be accepted, or the test would prove nothing.
func TestDirectListAgreesWithGitThroughRandomChanges(t *testing.T) {
	names := []string{"a", "B", "feat-x", "sp ace", "ünï", "z9", "Mid", "deep/er"}
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6} { // seeds 100-139 of 90 steps agreed too
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			rnd := rand.New(rand.NewPCG(seed, 22))
			s := newSandbox(t)
			repo := s.path("repo")
			s.git(s.root, "init", "-q", "-b", "main", repo)
			s.git(repo, "commit", "-q", "--allow-empty", "-m", "one")
			r := s.runner()
			var live []string // worktree paths git has
			n := 0
			pick := func() string { return live[rnd.IntN(len(live))] }
			s.git(repo, "tag", "-a", "-m", "peeled in packed-refs", "v1")
			s.write(filepath.Join(repo, ".git", "config"), plainRepoConfigText)
			accepted, steps := 0, 0
			var restore func() // puts back a config or packed-refs form kept for one step only
			for step := 0; step < 60; step++ {
				op := rnd.IntN(17)
				if len(live) == 0 {
					op = 0
				}
				var what string
				switch op {
				case 0, 1:
					n++
					p := s.path("wts", fmt.Sprintf("%s-%d", names[rnd.IntN(len(names))], n))
					if op == 0 {
						s.git(repo, "worktree", "add", "-q", "-b", fmt.Sprintf("b/%d", n), p)
					} else {
						s.git(repo, "worktree", "add", "-q", "--detach", p)
					}
					live = append(live, p)
					what = "add " + p
				case 2:
					p := pick()
					reason := []string{"", "\v agent 7\f\n", "on a USB disk\nunplugged \t", "x"}[rnd.IntN(4)]
					s.gitErr(repo, "worktree", "lock", "--reason", reason, "--", p)
					what = "lock " + p
				case 3:
					p := pick()
					s.gitErr(repo, "worktree", "unlock", "--", p)
					what = "unlock " + p
				case 4:
					p := pick()
					os.RemoveAll(p)
					what = "rm -rf " + p
				case 5:
					s.git(repo, "worktree", "prune")
					live = slices.DeleteFunc(live, func(p string) bool { _, err := os.Stat(p); return err != nil })
					what = "prune"
				case 6:
					p := pick()
					if _, err := s.gitErr(repo, "worktree", "remove", "--force", "--force", "--", p); err == nil {
						live = slices.DeleteFunc(live, func(q string) bool { return q == p })
					}
					what = "remove " + p
				case 7:
					p := pick()
					n++
					to := s.path("moved", fmt.Sprintf("m%d", n))
					os.MkdirAll(filepath.Dir(to), 0o755)
					if _, err := s.gitErr(repo, "worktree", "move", p, to); err == nil {
						live[slices.Index(live, p)] = to
					}
					what = "move " + p
				case 8:
					p := pick()
					s.gitErr(p, "commit", "-q", "--allow-empty", "-m", "step")
					what = "commit in " + p
				case 9:
					s.git(repo, "pack-refs", "--all")
					what = "pack-refs"
				case 10:
					p := pick()
					n++
					s.gitErr(p, "checkout", "-q", []string{"--orphan", "-b", "--detach"}[rnd.IntN(3)], fmt.Sprintf("o%d", n))
					what = "checkout in " + p
				case 11:
					p := pick()
					if b, err := s.gitErr(p, "symbolic-ref", "-q", "HEAD"); err == nil {
						s.gitErr(repo, "update-ref", "-d", strings.TrimSpace(b))
					}
					what = "delete the branch of " + p
				case 12, 13, 14:
					file, forms := s.path("home", ".gitconfig"), randomUserConfigs
					if op == 13 {
						file, forms = s.path("home", "inc"), randomIncluded
					} else if op == 14 {
						file, forms = filepath.Join(repo, ".git", "config"), randomRepoConfigs
					}
					i := rnd.IntN(len(forms))
					old, _ := os.ReadFile(file)
					s.write(file, strings.ReplaceAll(forms[i].text, "$ROOT", s.root))
					if !forms[i].keep {
						restore = func() { s.write(file, string(old)) }
					}
					what = fmt.Sprintf("%s in form %d", file, i)
				case 15:
					s.git(repo, "pack-refs", "--all")
					file := filepath.Join(repo, ".git", "packed-refs")
					old, err := os.ReadFile(file)
					if err != nil {
						t.Fatal(err)
					}
					form := randomPackedForms[rnd.IntN(len(randomPackedForms))]
					header, records := packedRecords(old)
					s.write(file, form.write(header, records))
					if !form.keep {
						restore = func() { s.write(file, string(old)) }
					}
					what = "packed-refs " + form.name
				case 16:
					p := pick()
					if err := os.RemoveAll(filepath.Join(p, ".git")); err == nil {
						os.Symlink(s.path("nowhere"), filepath.Join(p, ".git"))
					}
					what = "a dangling .git in " + p
				}
				steps++
				got, ok := r.ReadWorktreeList(repo)
				if ok {
					accepted++
					want, err := gitListErr(s, r, repo)
					if err != nil {
						t.Fatalf("after step %d (%s): read a list where git fails: %v\n got: %q", step, what, err, got.Raw)
					}
					if string(got.Raw) != string(want) || stateToken(got.Raw) != stateToken(want) {
						t.Fatalf("after step %d (%s): the direct reading differs from git's list\n got: %q\nwant: %q", step, what, got.Raw, want)
					}
				}
				if restore != nil {
					restore()
					restore = nil
				}
			}
			t.Logf("accepted %d of %d", accepted, steps)
			if accepted < steps/2 {
				t.Fatalf("the direct reading accepted %d of %d steps; the test needs most", accepted, steps)
			}
		})
	}
}
