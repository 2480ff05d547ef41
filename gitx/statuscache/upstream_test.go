package statuscache

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A cold listing learns a branch's upstream only from git's answer. Where every branch
// tracks one (origin/<branch>, as a clone's branches do), the status must still be stored
// by that first listing, so the second is warm: Store completes the proof with the
// upstream's refs. Without that ("adopt" off) the second listing runs git again.
func TestCacheColdListingStoresATrackedUpstream(t *testing.T) {
	for _, adoptOff := range []bool{false, true} {
		t.Run(map[bool]string{false: "adopted", true: "adopt off"}[adoptOff], func(t *testing.T) {
			f := newFixture(t)
			f.c.Now = ahead
			if adoptOff {
				f.c.off = map[string]bool{"adopt": true}
			}
			f.originUpstream()
			if _, hit := f.read(); hit {
				t.Fatal("the first read of a fresh cache was a hit")
			}
			got, hit := f.read()
			want := f.truth()
			if want.Upstream != "origin/main" || want.Ahead != 1 {
				t.Fatalf("git's status %+v: the case needs an upstream one commit behind", want)
			}
			switch {
			case !adoptOff && !hit:
				t.Fatal("the second listing ran git: the cold one stored nothing for a worktree with an upstream")
			case !adoptOff && !reflect.DeepEqual(got, want):
				t.Fatalf("the second listing served %+v, git says %+v", got, want)
			case adoptOff && hit:
				t.Fatal("with adopt off the second listing was still served: the case does not test it")
			}
			// And the stored proof covers the upstream: a fetch that moves it is seen.
			f.run(f.repo, "commit", "-q", "--allow-empty", "-m", "fetched")
			f.run(f.repo, "update-ref", "refs/remotes/origin/main", "main")
			got, hit = f.read()
			if want := f.truth(); hit || !reflect.DeepEqual(got, want) {
				t.Fatalf("after the upstream moved the cache served %+v (hit %v); git says %+v", got, hit, want)
			}
		})
	}
}

// The upstream's refs are read after git ran, so they may have changed since git read
// them: a fetch between git's status and Store. The proof completed with them is then
// racy, and nothing is stored that the next listing could serve: a moved ref's own change
// time is past the proof's (the racy rule), and a pruned ref, which has no times, is seen
// in its directory's (racyAbove). Without the check each names, the next listing serves
// the status git computed against the old upstream.
func TestCacheUpstreamChangedBeforeStoreIsNotServed(t *testing.T) {
	cases := []struct {
		name   string
		check  string
		change func(f *fixture)
	}{
		{"fetch moved it", "racy", func(f *fixture) {
			f.run(f.repo, "commit", "-q", "--allow-empty", "-m", "fetched")
			f.run(f.repo, "update-ref", "refs/remotes/origin/main", "main")
		}},
		{"fetch pruned it", "upstreamrace", func(f *fixture) {
			f.run(f.repo, "update-ref", "-d", "refs/remotes/origin/main")
		}},
	}
	for _, tc := range cases {
		for _, checkOff := range []bool{false, true} {
			name := tc.name
			if checkOff {
				name += " without " + tc.check
			}
			t.Run(name, func(t *testing.T) {
				f := newFixture(t)
				if checkOff {
					f.c.off = map[string]bool{tc.check: true}
				}
				f.originUpstream()
				// Every file the proof reads is older than its second, so only the change can
				// make it racy (the real clock: the change must come after the proof).
				nextSecond()
				_, proof, hit := f.c.Lookup(f.wt)
				if hit || proof == nil {
					t.Fatalf("first lookup: hit %v, proof %v", hit, proof != nil)
				}
				before := f.truth()
				tc.change(f)
				f.c.Store(proof, before)
				f.c.Flush()
				nextSecond()
				got, _, hit := f.c.Lookup(f.wt)
				want := f.truth()
				if reflect.DeepEqual(want, before) {
					t.Fatalf("the change did not change git's status (%+v): the case proves nothing", want)
				}
				switch {
				case !checkOff && hit:
					t.Fatalf("served %+v, computed before the upstream changed; git says %+v", got, want)
				case checkOff && !hit:
					t.Fatalf("with %s off the stale status was not served: the case does not test it", tc.check)
				}
			})
		}
	}
}

// nextSecond waits until the clock is 30 ms into the next second.
func nextSecond() {
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 30*time.Millisecond)))
}

// A repository where a thousand branches track an upstream has a config of about 70 KB,
// past the 64 KB a proof once read whole: its worktrees were then never served.
func TestCacheProvesAConfigOfManyTrackedBranches(t *testing.T) {
	f := newFixture(t)
	f.c.Now = ahead
	f.originUpstream()
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "[branch \"bench/b%d\"]\n\tremote = origin\n\tmerge = refs/heads/bench/b%d\n", i, i)
	}
	config := filepath.Join(f.repo, ".git", "config")
	old, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	f.write(config, string(old)+b.String())
	if fi, err := os.Stat(config); err != nil || fi.Size() <= 64<<10 {
		t.Fatalf("config of %d bytes (%v): the case needs one past 64 KB", fi.Size(), err)
	}
	f.prime()
}
