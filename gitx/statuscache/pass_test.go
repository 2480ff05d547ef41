package statuscache

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// trees is every worktree of the fixture: the main one and the linked one.
func (f *fixture) trees() []string { return []string{f.repo, f.wt} }

// truthOf is git's status of one worktree now.
func (f *fixture) truthOf(wt string) gitx.Status {
	f.t.Helper()
	st, err := f.git.Status(context.Background(), wt)
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

// listing is one listing as core makes it: one Pass over every worktree, git for those the
// cache does not serve (stored), one Flush. It returns what it showed and which were hits.
func (f *fixture) listing() (map[string]gitx.Status, map[string]bool) {
	f.t.Helper()
	shown, hits := map[string]gitx.Status{}, map[string]bool{}
	ps := f.c.Pass()
	for _, wt := range f.trees() {
		st, proof, hit := ps.Lookup(wt)
		if !hit {
			st = f.truthOf(wt)
			f.c.Store(proof, st)
		}
		shown[wt], hits[wt] = st, hit
	}
	f.c.Flush()
	return shown, hits
}

// primeAll lists until every worktree is served from the cache, and checks it is git's.
func (f *fixture) primeAll() map[string]gitx.Status {
	f.t.Helper()
	for range 3 {
		shown, hits := f.listing()
		all := true
		for _, wt := range f.trees() {
			all = all && hits[wt]
		}
		if all {
			for _, wt := range f.trees() {
				if want := f.truthOf(wt); !reflect.DeepEqual(shown[wt], want) {
					f.t.Fatalf("%s: primed cache serves %+v, git says %+v", wt, shown[wt], want)
				}
			}
			return shown
		}
	}
	f.t.Fatal("the cache never served every unchanged worktree")
	return nil
}

// A listing reads the repository-wide files once for all its worktrees. An edit of one of
// them between two listings changes every worktree's status, and is caught for every one;
// with the check that covers the file off, the second listing serves the stale statuses
// (so it is that check, read once and shared, that catches it).
func TestPassCatchesRepositoryWideEditsForEveryWorktree(t *testing.T) {
	cases := []struct {
		name   string
		check  string
		change func(f *fixture)
	}{
		{"info/exclude", "exclude", func(f *fixture) {
			f.write(filepath.Join(f.repo, ".git", "info", "exclude"), "junk.log\n")
		}},
		{"the common config", "config", func(f *fixture) {
			f.run(f.repo, "config", "status.showUntrackedFiles", "no")
		}},
	}
	for _, tc := range cases {
		for _, disabled := range []bool{false, true} {
			name := tc.name
			if disabled {
				name += " without " + tc.check
			}
			t.Run(name, func(t *testing.T) {
				f := newFixture(t)
				f.c.Now = ahead
				if disabled {
					f.c.off = map[string]bool{tc.check: true}
				}
				for _, wt := range f.trees() {
					f.write(filepath.Join(wt, "junk.log"), "j\n")
				}
				before := f.primeAll()
				tc.change(f)
				shown, hits := f.listing()
				for _, wt := range f.trees() {
					want := f.truthOf(wt)
					if reflect.DeepEqual(want, before[wt]) {
						t.Fatalf("%s: the change did not change git's status: the case proves nothing", wt)
					}
					switch {
					case !disabled && (hits[wt] || !reflect.DeepEqual(shown[wt], want)):
						t.Fatalf("%s: after the change the listing showed %+v (hit %v); git says %+v", wt, shown[wt], hits[wt], want)
					case disabled && !hits[wt]:
						t.Fatalf("%s: with %s off the change was still caught: the case does not show that the check matters", wt, tc.check)
					}
				}
			})
		}
	}
}

// A repository-wide file edited during a listing, after one worktree's git ran and before
// another's: the first status was read with the old file, the second with the new one,
// and both were stored with the digest the listing read at its start. The next listing
// reads the new file and serves neither. Were the shared part read later than git (at
// Store, say), the first status would carry the new digest and be served stale.
func TestPassCatchesAnEditDuringTheListing(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		t.Run(map[bool]string{false: "exclude on", true: "exclude off"}[disabled], func(t *testing.T) {
			f := newFixture(t)
			f.c.Now = ahead
			if disabled {
				f.c.off = map[string]bool{"exclude": true}
			}
			for _, wt := range f.trees() {
				f.write(filepath.Join(wt, "junk.log"), "j\n")
			}
			first, second := f.trees()[0], f.trees()[1]
			ps := f.c.Pass()
			_, proof, _ := ps.Lookup(first)
			old := f.truthOf(first)
			f.c.Store(proof, old)
			f.write(filepath.Join(f.repo, ".git", "info", "exclude"), "junk.log\n")
			_, proof, _ = ps.Lookup(second)
			f.c.Store(proof, f.truthOf(second))
			f.c.Flush()

			want := f.truthOf(first)
			if reflect.DeepEqual(want, old) {
				t.Fatal("the edit did not change git's status: the case proves nothing")
			}
			got, _, hit := f.c.Pass().Lookup(first)
			switch {
			case !disabled && hit:
				t.Fatalf("after an edit during the listing the cache served %+v; git says %+v", got, want)
			case disabled && !hit:
				t.Fatal("with exclude off the edit was still caught: the case does not show that the check matters")
			}
		})
	}
}

// A repository-wide file modified in the second the listing read it, then again within
// that second with the same size, on a filesystem with whole-second times: its stat data
// is as the listing saw it. The racy rule, applied to the shared part, makes every proof
// of that listing racy, so nothing is stored; without it the edit is missed for every
// worktree.
func TestPassSharedPartFollowsTheRacyRule(t *testing.T) {
	for _, racyOff := range []bool{false, true} {
		t.Run(map[bool]string{false: "racy rule on", true: "racy rule off"}[racyOff], func(t *testing.T) {
			f := newFixture(t)
			f.c.grain = time.Second
			if racyOff {
				f.c.off = map[string]bool{"racy": true}
			}
			exclude := filepath.Join(f.repo, ".git", "info", "exclude")
			// Every worktree's own files are older than the second of the listing, so only
			// the shared part can be racy.
			for _, wt := range f.trees() {
				f.write(filepath.Join(wt, "junk.log"), "j\n")
			}
			f.write(exclude, "junk.lox\n")
			var shown map[string]gitx.Status
			var hits map[string]bool
			for try := 0; ; try++ {
				ok := sameSecond(func() {
					f.write(exclude, "junk.log\n") // junk.log ignored
					f.listing()
					f.write(exclude, "junk.lox\n") // same size: junk.log untracked again
					shown, hits = f.listing()
				})
				if ok {
					break
				}
				if try == 5 {
					t.Fatal("could not make two edits within one second on this machine")
				}
			}
			for _, wt := range f.trees() {
				want := f.truthOf(wt)
				if want.Untracked == 0 {
					t.Fatalf("%s: git does not see junk.log: %+v", wt, want)
				}
				if !racyOff && (hits[wt] || !reflect.DeepEqual(shown[wt], want)) {
					t.Fatalf("%s: same-second edit of info/exclude: served %+v (hit %v), git says %+v", wt, shown[wt], hits[wt], want)
				}
				if racyOff && !hits[wt] {
					t.Fatalf("%s: without the racy rule the edit was still caught: the case does not test the rule", wt)
				}
			}
		})
	}
}

// A proof names the git directory it read, and whether a merge or rebase is in progress
// there, for git's status to use without reading them again.
func TestProofNamesTheGitDirectory(t *testing.T) {
	f := newFixture(t)
	wtGit := filepath.Join(f.repo, ".git", "worktrees", "wt")
	f.write(filepath.Join(wtGit, "MERGE_HEAD"), strings.TrimSpace(f.run(f.wt, "rev-parse", "HEAD"))+"\n")
	for wt, want := range map[string]gitx.GitDirState{
		f.repo: {Dir: filepath.Join(f.repo, ".git")},
		f.wt:   {Dir: wtGit, Merging: true},
	} {
		_, p, _ := f.c.Lookup(wt)
		if p == nil {
			t.Fatalf("%s: no proof", wt)
		}
		if got := *p.GitDir(); got != want {
			t.Fatalf("%s: the proof read %+v, want %+v", wt, got, want)
		}
		if st := f.truthOf(wt); st.Merging != want.Merging || st.Rebasing {
			t.Fatalf("%s: git's status says merging %v, rebasing %v", wt, st.Merging, st.Rebasing)
		}
	}
	if err := os.Mkdir(filepath.Join(wtGit, "rebase-merge"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, p, _ := f.c.Lookup(f.wt); p == nil || !p.GitDir().Rebasing {
		t.Fatal("the proof did not see the rebase")
	}
}
