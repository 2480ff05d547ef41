package statuscache

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// fixture is a real repository with one linked worktree, a cache and a git runner.
type fixture struct {
	t        *testing.T
	repo, wt string
	env      []string
	c        *Cache
	git      *gitx.Runner
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@copse.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@copse.invalid",
	}
	f := &fixture{t: t, repo: filepath.Join(root, "app"), wt: filepath.Join(root, "wt"), env: env,
		c: &Cache{Env: env}, git: &gitx.Runner{Env: env}}
	f.run(root, "init", "-q", "-b", "main", f.repo)
	f.write(filepath.Join(f.repo, "a.txt"), "a\n")
	f.write(filepath.Join(f.repo, "sub", "b.txt"), "b\n")
	f.run(f.repo, "add", ".")
	f.run(f.repo, "commit", "-q", "-m", "initial")
	f.run(f.repo, "worktree", "add", "-q", "-b", "feat", f.wt, "main")
	return f
}

func (f *fixture) run(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), f.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (f *fixture) write(path, content string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) home() string { return filepath.Join(filepath.Dir(f.repo), "home") }

func (f *fixture) mkdir(path string) {
	f.t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		f.t.Fatal(err)
	}
}

// symlink makes link point at target, making link's directory first.
func (f *fixture) symlink(target, link string) {
	f.t.Helper()
	f.mkdir(filepath.Dir(link))
	if err := os.Symlink(target, link); err != nil {
		f.t.Fatal(err)
	}
}

// originUpstream gives the linked worktree's branch the upstream origin/main as a clone
// has it: a remote with the usual fetch refspec, a remote-tracking ref, the branch's
// remote and merge.
func (f *fixture) originUpstream() {
	f.t.Helper()
	f.run(f.repo, "config", "remote.origin.url", filepath.Join(filepath.Dir(f.repo), "nowhere.git"))
	f.run(f.repo, "config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*")
	f.run(f.repo, "update-ref", "refs/remotes/origin/main", "main")
	f.run(f.wt, "config", "branch.feat.remote", "origin")
	f.run(f.wt, "config", "branch.feat.merge", "refs/heads/main")
	f.run(f.wt, "commit", "-q", "--allow-empty", "-m", "ahead")
}

// trackDeep commits a file in sub/deep of the linked worktree.
func (f *fixture) trackDeep() {
	f.t.Helper()
	f.write(filepath.Join(f.wt, "sub", "deep", "c.txt"), "c\n")
	f.run(f.wt, "add", "sub/deep/c.txt")
	f.run(f.wt, "commit", "-q", "-m", "deep")
}

// statDirtyCRLF commits crlf.txt with a CRLF line end in the linked worktree, then moves
// its mtime back an hour: its stat data no longer matches the index, so git status
// compares its content, as the attributes then in force convert it.
func (f *fixture) statDirtyCRLF() {
	f.t.Helper()
	path := filepath.Join(f.wt, "crlf.txt")
	f.write(path, "crlf\r\n")
	f.run(f.wt, "add", "crlf.txt")
	f.run(f.wt, "commit", "-q", "-m", "crlf")
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, past, past); err != nil {
		f.t.Fatal(err)
	}
}

// truth is git's status now.
func (f *fixture) truth() gitx.Status {
	f.t.Helper()
	st, err := f.git.Status(context.Background(), f.wt)
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

// read is what a display shows: the cached status when the cache proves it fresh, else
// git's, which is then stored.
func (f *fixture) read() (gitx.Status, bool) {
	f.t.Helper()
	st, proof, hit := f.c.Lookup(f.wt)
	if hit {
		return st, true
	}
	st = f.truth()
	f.c.Store(proof, st)
	f.c.Flush()
	return st, false
}

// prime reads until the cache serves the status and checks it is git's.
func (f *fixture) prime() gitx.Status {
	f.t.Helper()
	for range 3 {
		if st, hit := f.read(); hit {
			if want := f.truth(); !reflect.DeepEqual(st, want) {
				f.t.Fatalf("primed cache serves %+v, git says %+v", st, want)
			}
			return st
		}
	}
	f.t.Fatal("the cache never served an unchanged worktree's status")
	return gitx.Status{}
}

// ahead is a clock past every file time the test makes, so nothing it touches counts
// as racy and only the check under test can catch a change.
func ahead() time.Time { return time.Now().Add(2 * time.Second) }

// Each change below alters what git status reports; the cache must never serve the old
// one. Run once more with the checks it names turned off, the cache does serve the stale
// status: that is the proof the scenario is caught by those checks (and the test would
// fail if they were removed).
func TestCacheNeverServesAStaleStatus(t *testing.T) {
	cases := []struct {
		name   string
		checks []string
		setup  func(f *fixture)
		change func(f *fixture)
	}{
		{"untracked file in a new directory", []string{"walk"}, nil, func(f *fixture) {
			f.write(filepath.Join(f.wt, "sub", "new", "deep", "n.txt"), "n\n")
		}},
		{"file deleted", []string{"entries", "walk"}, nil, func(f *fixture) {
			if err := os.Remove(filepath.Join(f.wt, "sub", "b.txt")); err != nil {
				f.t.Fatal(err)
			}
		}},
		{"git add", []string{"index"}, func(f *fixture) {
			f.write(filepath.Join(f.wt, "a.txt"), "changed\n")
		}, func(f *fixture) { f.run(f.wt, "add", "a.txt") }},
		{"commit", []string{"ref", "index"}, nil, func(f *fixture) {
			f.run(f.wt, "commit", "-q", "--allow-empty", "-m", "more")
		}},
		{"branch switch", []string{"head", "ref", "index"}, func(f *fixture) {
			f.run(f.wt, "branch", "other")
		}, func(f *fixture) { f.run(f.wt, "switch", "-q", "other") }},
		{".gitignore changed", []string{"ignore"}, func(f *fixture) {
			f.write(filepath.Join(f.wt, "sub", ".gitignore"), "nothing\n")
			f.write(filepath.Join(f.wt, "sub", "junk.log"), "j\n")
		}, func(f *fixture) { f.write(filepath.Join(f.wt, "sub", ".gitignore"), "*.log\n") }},
		{"index rewritten by another git command", []string{"index"}, nil, func(f *fixture) {
			f.run(f.wt, "update-index", "--chmod=+x", "a.txt")
		}},
		{"info/exclude", []string{"exclude"}, func(f *fixture) {
			f.write(filepath.Join(f.wt, "junk.log"), "j\n")
		}, func(f *fixture) {
			f.write(filepath.Join(f.repo, ".git", "info", "exclude"), "junk.log\n")
		}},
		{"git stash", []string{"entries", "index", "walk"}, func(f *fixture) {
			f.write(filepath.Join(f.wt, "a.txt"), "changed\n")
		}, func(f *fixture) { f.run(f.wt, "stash", "-q") }},
		{"upstream moved", []string{"upstream"}, func(f *fixture) {
			f.run(f.wt, "branch", "-q", "--set-upstream-to=main")
		}, func(f *fixture) { f.run(f.repo, "commit", "-q", "--allow-empty", "-m", "on main") }},
		// A local branch called origin/main makes git print the upstream as
		// "remotes/origin/main"; the ref it counts ahead and behind against is still
		// refs/remotes/origin/main, which a fetch moves.
		{"remote-tracking upstream moved while a local branch has its short name", []string{"upstream"}, func(f *fixture) {
			f.originUpstream()
			f.run(f.repo, "branch", "origin/main", "main")
		}, func(f *fixture) {
			f.run(f.repo, "commit", "-q", "--allow-empty", "-m", "fetched")
			f.run(f.repo, "update-ref", "refs/remotes/origin/main", "main")
		}},
		// refs/remotes/main is then a directory, one of the names "main" can stand for: no
		// ref, and no reason to give up the proof.
		{"local upstream moved while a remote has its name", []string{"upstream"}, func(f *fixture) {
			f.run(f.wt, "branch", "-q", "--set-upstream-to=main")
			f.run(f.repo, "update-ref", "refs/remotes/main/x", "main")
		}, func(f *fixture) { f.run(f.repo, "commit", "-q", "--allow-empty", "-m", "on main") }},
		{"a local branch takes the upstream's short name", []string{"upstream"}, func(f *fixture) {
			f.originUpstream()
		}, func(f *fixture) { f.run(f.repo, "branch", "origin/main", "main") }},

		// git scans a directory holding .git for untracked files when the index lists files
		// in it: the .git makes it no repository of its own to the outer one.
		{"untracked file under a nested repository whose directory has tracked files", []string{"nested"}, func(f *fixture) {
			f.trackDeep()
			f.run(f.wt, "init", "-q", "sub")
		}, func(f *fixture) { f.write(filepath.Join(f.wt, "sub", "deep", "new.txt"), "n\n") }},
		{"untracked file under a .git file in a directory with tracked files", []string{"nested"}, func(f *fixture) {
			f.trackDeep()
			f.write(filepath.Join(f.wt, "sub", ".git"), "gitdir: ../../elsewhere.git\n")
		}, func(f *fixture) { f.write(filepath.Join(f.wt, "sub", "deep", "new.txt"), "n\n") }},
		// A .git that makes no repository (an empty directory) leaves its directory an
		// ordinary one: git shows it once an untracked file appears anywhere under it.
		{"untracked file under a stray .git over ignored files", []string{"nested"}, func(f *fixture) {
			f.write(filepath.Join(f.wt, ".gitignore"), "*.log\n")
			f.write(filepath.Join(f.wt, "stray", "deep", "x.log"), "x\n")
			f.mkdir(filepath.Join(f.wt, "stray", ".git"))
		}, func(f *fixture) { f.write(filepath.Join(f.wt, "stray", "deep", "y.txt"), "y\n") }},
		// A nested repository is one untracked entry whatever it holds; once its git
		// directory is no repository, its directory holds only ignored files: nothing shows.
		{"a nested repository stops being one", []string{"nestedgit"}, func(f *fixture) {
			f.write(filepath.Join(f.wt, ".gitignore"), "*.log\n")
			f.run(f.wt, "init", "-q", "nested")
			f.write(filepath.Join(f.wt, "nested", "x.log"), "x\n")
		}, func(f *fixture) {
			if err := os.Remove(filepath.Join(f.wt, "nested", ".git", "HEAD")); err != nil {
				f.t.Fatal(err)
			}
		}},
		{"the git directory a .git file names comes into being", []string{"nestedgit"}, func(f *fixture) {
			f.write(filepath.Join(f.wt, ".gitignore"), "*.log\n")
			f.write(filepath.Join(f.wt, "nested", "x.log"), "x\n")
			f.write(filepath.Join(f.wt, "nested", ".git"), "gitdir: "+filepath.Join(filepath.Dir(f.repo), "other.git")+"\n")
		}, func(f *fixture) { f.run(filepath.Dir(f.repo), "init", "-q", "--bare", "other.git") }},

		// Attributes decide how git compares a file whose stat data no longer matches its
		// index entry: with "text" the committed CRLF reads as a change.
		{"info/attributes turns a stat-dirty CRLF file modified", []string{"attributes"}, func(f *fixture) {
			f.statDirtyCRLF()
		}, func(f *fixture) {
			f.write(filepath.Join(f.repo, ".git", "info", "attributes"), "crlf.txt text\n")
		}},
		// The other way: an edit of the same size that the clean filter undoes is no change
		// (one of another size is modified whatever the attributes: git trusts the size).
		{"info/attributes sets a filter that turns a same-size edit clean", []string{"attributes"}, func(f *fixture) {
			f.run(f.repo, "config", "filter.lower.clean", "tr A-Z a-z")
			f.write(filepath.Join(f.wt, "a.txt"), "A\n")
		}, func(f *fixture) {
			f.write(filepath.Join(f.repo, ".git", "info", "attributes"), "a.txt filter=lower\n")
		}},
		{"core.attributesFile turns a stat-dirty CRLF file modified", []string{"attributes"}, func(f *fixture) {
			f.statDirtyCRLF()
			f.write(filepath.Join(f.home(), ".gitconfig"), "[core]\n\tattributesFile = ~/attrs\n")
		}, func(f *fixture) { f.write(filepath.Join(f.home(), "attrs"), "crlf.txt text\n") }},
		{"the default attributes file sets a filter on a stat-dirty file", []string{"attributes"}, func(f *fixture) {
			f.statDirtyCRLF()
			f.run(f.repo, "config", "filter.upper.clean", "tr a-z A-Z")
		}, func(f *fixture) {
			f.write(filepath.Join(f.home(), ".config", "git", "attributes"), "crlf.txt filter=upper\n")
		}},
		{"an untracked .gitattributes edited in place", []string{"gitattributes"}, func(f *fixture) {
			f.statDirtyCRLF()
			f.write(filepath.Join(f.wt, ".gitattributes"), "# none yet\n")
		}, func(f *fixture) { f.write(filepath.Join(f.wt, ".gitattributes"), "crlf.txt text\n") }},

		// Dotfiles managers link the user's git files into their own repository: an edit
		// there changes the link's target, never the link.
		{"the default excludes file edited through its symbolic link", []string{"follow"}, func(f *fixture) {
			f.write(filepath.Join(f.wt, "junk.log"), "j\n")
			f.write(filepath.Join(f.home(), "dotfiles", "ignore"), "nothing\n")
			f.symlink(filepath.Join(f.home(), "dotfiles", "ignore"), filepath.Join(f.home(), ".config", "git", "ignore"))
		}, func(f *fixture) { f.write(filepath.Join(f.home(), "dotfiles", "ignore"), "junk.log\n") }},
		{"core.excludesFile edited through its symbolic link", []string{"follow"}, func(f *fixture) {
			f.write(filepath.Join(f.wt, "junk.log"), "j\n")
			f.write(filepath.Join(f.home(), "dotfiles", "ignore"), "nothing\n")
			f.symlink("dotfiles/ignore", filepath.Join(f.home(), ".gitignore_global"))
			f.write(filepath.Join(f.home(), ".gitconfig"), "[core]\n\texcludesFile = ~/.gitignore_global\n")
		}, func(f *fixture) { f.write(filepath.Join(f.home(), "dotfiles", "ignore"), "junk.log\n") }},
		{"info/exclude edited through its symbolic link", []string{"follow"}, func(f *fixture) {
			f.write(filepath.Join(f.wt, "junk.log"), "j\n")
			f.write(filepath.Join(f.home(), "dotfiles", "exclude"), "nothing\n")
			exclude := filepath.Join(f.repo, ".git", "info", "exclude")
			if err := os.Remove(exclude); err != nil {
				f.t.Fatal(err)
			}
			f.symlink(filepath.Join(f.home(), "dotfiles", "exclude"), exclude)
		}, func(f *fixture) { f.write(filepath.Join(f.home(), "dotfiles", "exclude"), "junk.log\n") }},
	}
	for _, tc := range cases {
		for _, disabled := range []bool{false, true} {
			name := tc.name
			if disabled {
				name += " without " + strings.Join(tc.checks, ", ")
			}
			t.Run(name, func(t *testing.T) {
				f := newFixture(t)
				f.c.Now = ahead
				if disabled {
					f.c.off = map[string]bool{}
					for _, c := range tc.checks {
						f.c.off[c] = true
					}
				}
				if tc.setup != nil {
					tc.setup(f)
				}
				before := f.prime()
				tc.change(f)
				want := f.truth()
				if reflect.DeepEqual(want, before) {
					t.Fatalf("the change did not change git's status (%+v): the case proves nothing", want)
				}
				got, hit := f.read()
				switch {
				case !disabled && (hit || !reflect.DeepEqual(got, want)):
					t.Fatalf("after the change the cache served %+v (hit %v); git says %+v", got, hit, want)
				case disabled && !hit:
					t.Fatalf("with %v off the change was still caught: another check covers it, so the case does not show that these matter", tc.checks)
				}
			})
		}
	}
}

// sameSecond runs body at the start of a fresh second and reports whether it finished
// within that second (under load it may not: the caller tries again).
func sameSecond(body func()) bool {
	now := time.Now()
	time.Sleep(time.Until(now.Truncate(time.Second).Add(time.Second + 30*time.Millisecond)))
	start := time.Now().Unix()
	body()
	return time.Now().Unix() == start
}

// An edit in the same second as the read, of the same size, on a filesystem with
// whole-second times (grain), leaves every stat field as the read saw it. git's racy rule
// is all that catches it: a status read in the second of a change it depends on is not
// stored as fresh. Without the rule the edit is missed.
func TestCacheSameSecondEditSameSize(t *testing.T) {
	for _, racyOff := range []bool{false, true} {
		t.Run(map[bool]string{false: "racy rule on", true: "racy rule off"}[racyOff], func(t *testing.T) {
			f := newFixture(t)
			f.c.grain = time.Second
			if racyOff {
				f.c.off = map[string]bool{"racy": true}
			}
			path := filepath.Join(f.wt, "a.txt")
			var got, want gitx.Status
			var hit bool
			for try := 0; ; try++ {
				ok := sameSecond(func() {
					f.write(path, "x\n") // same size as "a\n": modified
					f.read()
					f.write(path, "a\n") // back to the committed content: clean
					got, hit = f.read()
					want = f.truth()
				})
				if ok {
					break
				}
				if try == 5 {
					t.Fatal("could not make two edits within one second on this machine")
				}
			}
			if want.Unstaged != 0 {
				t.Fatalf("git still sees a change: %+v", want)
			}
			if !racyOff && (hit || !reflect.DeepEqual(got, want)) {
				t.Fatalf("same-second edit: cache served %+v (hit %v), git says %+v", got, hit, want)
			}
			if racyOff && !hit {
				t.Fatal("without the racy rule the edit was still caught: the case does not test the rule")
			}
		})
	}
}

// A status stored while the clock read later than it does now is not trusted: files
// written after the clock went back carry times the stored proof may already have seen.
func TestCacheClockBackwards(t *testing.T) {
	for _, clockOff := range []bool{false, true} {
		t.Run(map[bool]string{false: "clock check on", true: "clock check off"}[clockOff], func(t *testing.T) {
			f := newFixture(t)
			f.c.grain = time.Second
			if clockOff {
				f.c.off = map[string]bool{"clock": true}
			}
			path := filepath.Join(f.wt, "a.txt")
			var got, want gitx.Status
			var hit bool
			for try := 0; ; try++ {
				ok := sameSecond(func() {
					f.c.Now = func() time.Time { return time.Now().Add(time.Hour) }
					f.write(path, "x\n")
					f.prime()
					f.c.Now = nil // the clock is back an hour
					f.write(path, "a\n")
					got, hit = f.read()
					want = f.truth()
				})
				if ok {
					break
				}
				if try == 5 {
					t.Fatal("could not make two edits within one second on this machine")
				}
			}
			if !clockOff && (hit || !reflect.DeepEqual(got, want)) {
				t.Fatalf("after the clock went back the cache served %+v (hit %v), git says %+v", got, hit, want)
			}
			if clockOff && !hit {
				t.Fatal("without the clock check the edit was still caught: the case does not test it")
			}
		})
	}
}

// A cache file that is corrupt, of another version or holding another worktree's entry
// is ignored and replaced; nothing but git's answer is served. A fresh Cache reads the
// file, as another copse process would.
func TestCacheIgnoresBadFiles(t *testing.T) {
	f := newFixture(t)
	f.c.Now = ahead
	f.prime()
	file := filepath.Join(f.repo, ".git", "copse-status", "statuses.json")
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fresh := func() *Cache { return &Cache{Env: f.env, Now: ahead} }
	if _, _, hit := fresh().Lookup(f.wt); !hit {
		t.Fatal("another process does not find the stored status")
	}
	for _, bad := range []string{
		"{not json",
		strings.Replace(string(good), `"v":`+strconv.Itoa(version), `"v":99`, 1),
		strings.Replace(string(good), `"w":"`, `"w":"/elsewhere`, 1),
	} {
		if bad == string(good) {
			t.Fatal("the replacement did not apply")
		}
		f.write(file, bad)
		if _, _, hit := fresh().Lookup(f.wt); hit {
			t.Fatalf("served a status from %q", bad)
		}
	}
	f.c = fresh()
	f.read() // replaced by a good one
	if _, _, hit := fresh().Lookup(f.wt); !hit {
		t.Fatal("a bad file was not replaced")
	}
}

// A split index keeps entries in another file, and a submodule's state lives in the
// submodule: no proof, git runs.
func TestCacheGivesUpWhereItCannotProve(t *testing.T) {
	f := newFixture(t)
	f.c.Now = ahead
	f.prime()
	f.run(f.wt, "update-index", "--split-index")
	if _, p, hit := f.c.Lookup(f.wt); hit || p != nil {
		t.Fatalf("split index: hit %v, proof %v; want no proof", hit, p != nil)
	}
	f.run(f.wt, "update-index", "--no-split-index")
	f.run(f.wt, "update-index", "--add", "--cacheinfo", "160000,"+strings.TrimSpace(f.run(f.wt, "rev-parse", "HEAD"))+",mod")
	if _, p, _ := f.c.Lookup(f.wt); p != nil {
		t.Fatal("a submodule entry was proved by stat data")
	}
}

// A repository inside the worktree that the index lists no file of is one untracked
// entry to git, which reads nothing in it but whether it is a repository: work in it
// (a new file deep down) leaves the outer status, and the cache keeps serving it. Both
// kinds: a repository of its own, and a linked worktree of the outer repository (its .git
// file names a git directory whose commondir holds the objects and refs).
func TestCacheNestedRepositoryIsOneEntry(t *testing.T) {
	for _, kind := range []string{"repository", "linked worktree"} {
		t.Run(kind, func(t *testing.T) {
			f := newFixture(t)
			f.c.Now = ahead
			inner := filepath.Join(f.wt, "inner")
			if kind == "repository" {
				f.run(f.wt, "init", "-q", "inner")
			} else {
				f.run(f.repo, "worktree", "add", "-q", "-b", "inner", inner, "main")
			}
			f.write(filepath.Join(inner, "deep", "old.txt"), "o\n")
			before := f.prime()
			if before.Untracked != 1 || !slices.Equal(before.UntrackedDirs, []string{"inner/"}) {
				t.Fatalf("git does not show the %s as one untracked entry: %+v", kind, before)
			}
			f.write(filepath.Join(inner, "deep", "new.txt"), "n\n")
			if want := f.truth(); !reflect.DeepEqual(want, before) {
				t.Fatalf("work inside the %s changed the outer status: %+v", kind, want)
			}
			if got, hit := f.read(); !hit || !reflect.DeepEqual(got, before) {
				t.Fatalf("work inside the %s: served %+v (hit %v), want the cached %+v", kind, got, hit, before)
			}
		})
	}
}

// The cache file is shared by every copse process of the repository, whatever its
// environment. GIT_NO_REPLACE_OBJECTS makes git count ahead and behind without the
// replace refs: a status stored by a process without it is not served to one with it
// (GIT_ATTR_NOSYSTEM is hashed alike; the system's attributes file cannot be written
// here to show it).
func TestCacheStatusOfAnotherEnvironmentIsNotServed(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		t.Run(map[bool]string{false: "env check on", true: "env check off"}[disabled], func(t *testing.T) {
			f := newFixture(t)
			f.c.Now = ahead
			if disabled {
				f.c.off = map[string]bool{"env": true}
			}
			f.run(f.wt, "branch", "-q", "--set-upstream-to=main")
			f.run(f.repo, "commit", "-q", "--allow-empty", "-m", "on main")
			tip := strings.TrimSpace(f.run(f.repo, "rev-parse", "main"))
			root := strings.TrimSpace(f.run(f.repo, "commit-tree", "-m", "unrelated", tip+"^{tree}"))
			f.run(f.repo, "replace", tip, root)
			before := f.prime()
			env := append(slices.Clone(f.env), "GIT_NO_REPLACE_OBJECTS=1")
			other := &Cache{Env: env, Now: ahead, off: f.c.off}
			want, err := (&gitx.Runner{Env: env}).Status(context.Background(), f.wt)
			if err != nil {
				t.Fatal(err)
			}
			if reflect.DeepEqual(want, before) {
				t.Fatalf("GIT_NO_REPLACE_OBJECTS did not change git's status (%+v): the case proves nothing", want)
			}
			got, _, hit := other.Lookup(f.wt)
			switch {
			case !disabled && hit:
				t.Fatalf("a process with GIT_NO_REPLACE_OBJECTS was served %+v; its git says %+v", got, want)
			case disabled && !hit:
				t.Fatal("with the env check off the other environment was still not served: the case does not show the check matters")
			}
		})
	}
}

// A config line that ends in a backslash goes on in the next one: there git reads no
// core.excludesFile, whatever the next line looks like, and uses the default excludes
// file. Read as a key of its own, that line would make the proof stat a file git does not
// read and miss an edit of the one it does; such a config is not proved.
func TestCacheConfigContinuationLineIsNotAKey(t *testing.T) {
	f := newFixture(t)
	f.c.Now = ahead
	f.write(filepath.Join(f.home(), ".gitconfig"), "[core]\n\teditor = vi \\\n\texcludesFile = ~/not-read\n")
	f.write(filepath.Join(f.home(), ".config", "git", "ignore"), "nothing\n")
	f.write(filepath.Join(f.wt, "junk.log"), "j\n")
	before := f.truth()
	for range 3 {
		f.read()
	}
	f.write(filepath.Join(f.home(), ".config", "git", "ignore"), "junk.log\n")
	want := f.truth()
	if reflect.DeepEqual(want, before) {
		t.Fatalf("git read the excludesFile of a continuation line (%+v): the case proves nothing", want)
	}
	if got, hit := f.read(); hit || !reflect.DeepEqual(got, want) {
		t.Fatalf("after the default excludes file's edit the cache served %+v (hit %v); git says %+v", got, hit, want)
	}
}

// A remote the config gives no url is read from <common>/remotes/<name> (or branches/),
// whose Pull lines say which ref the upstream is. The proof does not read them, so a
// repository with such a file runs git; with the check off, the cache serves the
// ahead/behind of a ref git no longer counts against.
func TestCacheLeavesLegacyRemoteFilesToGit(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		t.Run(map[bool]string{false: "remotes check on", true: "remotes check off"}[disabled], func(t *testing.T) {
			f := newFixture(t)
			f.c.Now = ahead
			if disabled {
				f.c.off = map[string]bool{"remotes": true}
			}
			legacy := filepath.Join(f.repo, ".git", "remotes", "legacy")
			f.run(f.repo, "update-ref", "refs/remotes/legacy/main", "main")
			f.run(f.repo, "commit", "-q", "--allow-empty", "-m", "further")
			f.run(f.repo, "update-ref", "refs/remotes/legacy/other", "main")
			f.write(legacy, "URL: /nowhere\nPull: refs/heads/main:refs/remotes/legacy/main\n")
			f.run(f.wt, "config", "branch.feat.remote", "legacy")
			f.run(f.wt, "config", "branch.feat.merge", "refs/heads/main")
			if !disabled {
				for range 2 {
					if _, p, hit := f.c.Lookup(f.wt); hit || p != nil {
						t.Fatalf("a repository with a remotes/ file was proved (hit %v)", hit)
					}
					f.read()
				}
				return
			}
			before := f.prime()
			f.write(legacy, "URL: /nowhere\nPull: refs/heads/main:refs/remotes/legacy/other\n")
			if want := f.truth(); reflect.DeepEqual(want, before) {
				t.Fatalf("the remotes/ file's change did not change git's status (%+v): the case proves nothing", want)
			}
			if _, hit := f.read(); !hit {
				t.Fatal("with the remotes check off the change was still caught: the case does not show that it matters")
			}
		})
	}
}

// A worktree of 12,000 files (an index past the 512 KB that was once the bound) is
// proved and served, and an edit of one file deep in it, in place and of the same size, is
// still seen. Past maxIndexBytes the cache leaves the worktree to git.
func TestCacheProvesLargeWorktrees(t *testing.T) {
	f := newFixture(t)
	f.c.Now = ahead
	for i := range 12000 {
		f.write(filepath.Join(f.wt, "many", "d"+strconv.Itoa(i%100), "file-"+strconv.Itoa(i)+"-"+strings.Repeat("n", 20)), "c\n")
	}
	f.run(f.wt, "add", ".")
	f.run(f.wt, "commit", "-q", "-m", "many")
	index := filepath.Join(f.repo, ".git", "worktrees", "wt", "index")
	fi, err := os.Stat(index)
	if err != nil || fi.Size() <= 512<<10 {
		t.Fatalf("index of %d bytes (%v): the case needs one past 512 KB", fi.Size(), err)
	}
	f.prime()
	f.write(filepath.Join(f.wt, "many", "d57", "file-11957-"+strings.Repeat("n", 20)), "x\n")
	got, hit := f.read()
	if want := f.truth(); hit || !reflect.DeepEqual(got, want) || want.Unstaged != 1 {
		t.Fatalf("after an edit the cache served %+v (hit %v); git says %+v", got, hit, want)
	}
	defer func(was int64) { maxIndexBytes = was }(maxIndexBytes)
	maxIndexBytes = fi.Size() - 1
	if _, p, _ := f.c.Lookup(f.wt); p != nil {
		t.Fatal("a worktree with an index past maxIndexBytes was proved")
	}
}

// The index parser reads every version git writes: 2, 3 (extended flags, from an
// intent-to-add entry) and 4 (prefix-compressed paths), and lists what git lists.
func TestReadIndexVersions(t *testing.T) {
	f := newFixture(t)
	for i := range 30 {
		f.write(filepath.Join(f.wt, "dir", "deeper", "file-"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+".txt"), "c\n")
	}
	f.run(f.wt, "add", "dir")
	f.write(filepath.Join(f.wt, "intent.txt"), "i\n")
	f.run(f.wt, "add", "-N", "intent.txt")
	for _, v := range []string{"2", "3", "4"} {
		if v == "2" {
			f.run(f.wt, "rm", "-q", "--cached", "intent.txt") // version 2 has no extended flags
		} else {
			f.run(f.wt, "add", "-N", "intent.txt")
		}
		f.run(f.wt, "update-index", "--index-version", v)
		b, err := os.ReadFile(filepath.Join(f.repo, ".git", "worktrees", "wt", "index"))
		if err != nil {
			t.Fatal(err)
		}
		entries, err := readIndex(b)
		if err != nil {
			t.Fatalf("version %s: %v", v, err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.path)
		}
		want := strings.Split(strings.TrimRight(f.run(f.wt, "ls-files", "-z"), "\x00"), "\x00")
		if !slices.Equal(got, want) {
			t.Fatalf("version %s: parsed\n%q\ngit lists\n%q", v, got, want)
		}
	}
}

// The cache file is bounded: past maxEntries the entries read longest ago are dropped.
func TestCacheBounded(t *testing.T) {
	f := newFixture(t)
	f.c.Now = ahead
	f.prime()
	common := filepath.Join(f.repo, ".git")
	for i := range maxEntries {
		f.c.put(common, entry{Worktree: "/gone/" + strconv.Itoa(i), At: int64(i)})
	}
	f.c.Flush()
	got := readFile(filepath.Join(common, "copse-status", "statuses.json"))
	if len(got) != maxEntries {
		t.Fatalf("%d entries written, want %d", len(got), maxEntries)
	}
	if _, ok := got[f.wt]; !ok {
		t.Fatal("the newest entry was dropped")
	}
	if _, ok := got["/gone/0"]; ok {
		t.Fatal("the oldest entry was kept")
	}
}

// A worktree with more directories than the walk may take is not proved, and is not
// walked again for a while (the walk would cost git's status on top of it); after that it
// is tried again.
func TestCacheTooManyDirectories(t *testing.T) {
	f := newFixture(t)
	now := ahead()
	f.c.Now = func() time.Time { return now }
	for i := range maxDirs + 1 {
		if err := os.MkdirAll(filepath.Join(f.wt, "build", strconv.Itoa(i/1000), strconv.Itoa(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, p, _ := f.c.Lookup(f.wt); p != nil {
		t.Fatal("a tree past maxDirs was proved")
	}
	if err := os.RemoveAll(filepath.Join(f.wt, "build")); err != nil {
		t.Fatal(err)
	}
	if _, p, _ := f.c.Lookup(f.wt); p != nil {
		t.Fatal("walked again right after finding the tree too big")
	}
	now = now.Add(tooBigRetry + time.Second)
	f.prime()
}

// GIT_CONFIG_GLOBAL=/dev/null, the usual way to ignore the user's config, is an empty
// config to git: the cache still proves statuses (it used to give up on the device), and
// GIT_CONFIG_GLOBAL= (no global file at all) does too.
func TestCacheProvesWithGlobalConfigIgnored(t *testing.T) {
	for _, global := range []string{os.DevNull, ""} {
		t.Run("GIT_CONFIG_GLOBAL="+global, func(t *testing.T) {
			f := newFixture(t)
			f.env = append(f.env, "GIT_CONFIG_GLOBAL="+global)
			f.c.Env, f.git.Env = f.env, f.env
			f.c.Now = ahead
			f.prime() // fails when the cache never serves
			f.write(filepath.Join(f.wt, "a.txt"), "changed\n")
			if st, hit := f.read(); hit || st.Unstaged == 0 {
				t.Fatalf("an edit: hit %v, %+v; want git's new answer", hit, st)
			}
		})
	}
}

// GIT_CONFIG_NOSYSTEM=0 is false to git, which then reads the system's config: a change
// there (an excludes file that hides an untracked file) is a change the proof sees.
func TestCacheProvesTheSystemConfigGitReads(t *testing.T) {
	f := newFixture(t)
	root := filepath.Dir(f.repo)
	sys := filepath.Join(root, "sys.cfg")
	f.write(sys, "[user]\n\tname = t\n")
	f.env = append(f.env, "GIT_CONFIG_NOSYSTEM=0", "GIT_CONFIG_SYSTEM="+sys)
	f.c.Env, f.git.Env = f.env, f.env
	f.c.Now = ahead
	f.write(filepath.Join(f.wt, "u.txt"), "u\n")
	if st := f.prime(); st.Untracked != 1 {
		t.Fatalf("untracked %d, want 1", st.Untracked)
	}
	ignore := filepath.Join(root, "ignore")
	f.write(ignore, "u.txt\n")
	f.write(sys, "[core]\n\texcludesFile = "+ignore+"\n")
	st, hit := f.read()
	if want := f.truth(); hit || !reflect.DeepEqual(st, want) || want.Untracked != 0 {
		t.Fatalf("after the system config changed: hit %v, %+v; git says %+v", hit, st, want)
	}
}
