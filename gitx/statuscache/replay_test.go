package statuscache

import (
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
)

// A warm proof reads no directory's entries: it proves the directories the last walk
// recorded by their stat data alone, as git's untracked cache does. Every change to what
// git's untracked scan sees still invalidates it: an untracked file in a directory that
// was walked, a new directory, a directory deleted or renamed, a .gitignore edited, added
// or removed. Each case primes the cache, checks that the hit came from the record (no
// directory listed), makes the change and checks that the cache then serves git's status.
func TestCacheWarmProofProvesTheRecordedDirectories(t *testing.T) {
	cases := []struct {
		name          string
		setup, change func(f *fixture)
	}{
		{"untracked file in a walked directory", nil, func(f *fixture) {
			f.write(filepath.Join(f.wt, "sub", "new.txt"), "n\n")
		}},
		{"untracked file at the top", nil, func(f *fixture) {
			f.write(filepath.Join(f.wt, "new.txt"), "n\n")
		}},
		{"new directory with an untracked file", nil, func(f *fixture) {
			f.write(filepath.Join(f.wt, "sub", "fresh", "deeper", "n.txt"), "n\n")
		}},
		{"untracked file under a directory of ignored files", func(f *fixture) {
			f.write(filepath.Join(f.wt, ".gitignore"), "*.log\n.gitignore\n")
			f.write(filepath.Join(f.wt, "scratch", "deep", "a.log"), "a\n")
		}, func(f *fixture) { f.write(filepath.Join(f.wt, "scratch", "deep", "b.txt"), "b\n") }},
		{"directory deleted", func(f *fixture) {
			f.write(filepath.Join(f.wt, "scratch", "deep", "a.txt"), "a\n")
		}, func(f *fixture) {
			if err := os.RemoveAll(filepath.Join(f.wt, "scratch")); err != nil {
				f.t.Fatal(err)
			}
		}},
		{"directory renamed", func(f *fixture) {
			f.write(filepath.Join(f.wt, ".gitignore"), "ignored/\n")
			f.write(filepath.Join(f.wt, "ignored", "a.txt"), "a\n")
		}, func(f *fixture) {
			if err := os.Rename(filepath.Join(f.wt, "ignored"), filepath.Join(f.wt, "shown")); err != nil {
				f.t.Fatal(err)
			}
		}},
		{".gitignore edited", func(f *fixture) {
			f.write(filepath.Join(f.wt, "sub", ".gitignore"), "*.tmp\n")
			f.write(filepath.Join(f.wt, "sub", "junk.log"), "j\n")
		}, func(f *fixture) { f.write(filepath.Join(f.wt, "sub", ".gitignore"), "*.log\n") }},
		{".gitignore added", func(f *fixture) {
			f.write(filepath.Join(f.wt, "sub", "junk.log"), "j\n")
		}, func(f *fixture) { f.write(filepath.Join(f.wt, "sub", ".gitignore"), "*.log\n.gitignore\n") }},
		{".gitignore removed", func(f *fixture) {
			f.write(filepath.Join(f.wt, "sub", ".gitignore"), "*.log\n.gitignore\n")
			f.write(filepath.Join(f.wt, "sub", "junk.log"), "j\n")
		}, func(f *fixture) {
			if err := os.Remove(filepath.Join(f.wt, "sub", ".gitignore")); err != nil {
				f.t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.c.Now = ahead
			f.c.listed = new(atomic.Int64)
			if tc.setup != nil {
				tc.setup(f)
			}
			before := f.prime()
			f.c.listed.Store(0)
			if _, hit := f.read(); !hit {
				t.Fatal("an unchanged worktree was not served")
			}
			if n := f.c.listed.Load(); n != 0 {
				t.Fatalf("the warm proof listed %d directories; it should prove the recorded ones by their stat data", n)
			}
			tc.change(f)
			want := f.truth()
			if reflect.DeepEqual(want, before) {
				t.Fatalf("the change did not change git's status (%+v): the case proves nothing", want)
			}
			got, hit := f.read()
			if hit || !reflect.DeepEqual(got, want) {
				t.Fatalf("after the change the cache served %+v (hit %v); git says %+v", got, hit, want)
			}
			// The walk that followed recorded the new tree: the next read is warm again.
			f.c.listed.Store(0)
			if got, hit := f.read(); !hit || !reflect.DeepEqual(got, want) || f.c.listed.Load() != 0 {
				t.Fatalf("after the change was read, the next read: %+v (hit %v, %d listed); git says %+v", got, hit, f.c.listed.Load(), want)
			}
		})
	}
}
