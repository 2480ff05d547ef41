package remotequeue_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/remotequeue"
)

// BenchmarkLandTenJobs lands 10 jobs from 3 machines through the remote queue (enqueue
// all, then for each: fetch the target, build the job's commit on it, start, land push),
// against raw git landing the same 10 commits from one machine (fetch, build, a push with
// a lease on the target). No gates run: the ratio is the protocol's cost over raw git's.
// Compare: go test ./core/remotequeue -run '^$' -bench LandTenJobs -benchtime 3x
func BenchmarkLandTenJobs(b *testing.B) {
	const jobs = 10
	b.Run("remotequeue", func(b *testing.B) {
		w := newWorld(b, 3)
		var qs []*remotequeue.Remote
		for _, m := range w.m {
			qs = append(qs, m.queue("main"))
		}
		round := 0
		for b.Loop() {
			round++
			var queued []remotequeue.Job
			for i := range jobs {
				m := w.m[i%3]
				name := fmt.Sprintf("r%d-j%d", round, i)
				tip := m.branch(name, m.origin(), name+".txt", name+"\n")
				j, err := qs[i%3].Enqueue(ctx(b), m.job(name, tip))
				if err != nil {
					b.Fatal(err)
				}
				queued = append(queued, j)
			}
			for i, j := range queued {
				m := w.m[i%3]
				old := m.origin()
				tip := m.branch(j.Branch, old, j.Branch+".txt", j.Branch+"\n") // the rebase
				if _, err := qs[i%3].Start(ctx(b), j.ID, "owner-"+m.name); err != nil {
					b.Fatal(err)
				}
				tree := strings.TrimSpace(m.run("rev-parse", tip+"^{tree}"))
				if _, err := qs[i%3].LandPush(ctx(b), remotequeue.Land{Job: j.ID, Owner: "owner-" + m.name,
					Old: old, New: tip, Tree: tree, Machine: m.name, Duration: time.Second}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("raw-git", func(b *testing.B) {
		w := newWorld(b, 1)
		m := w.m[0]
		round := 0
		for b.Loop() {
			round++
			for i := range jobs {
				name := fmt.Sprintf("r%d-j%d", round, i)
				old := m.origin()
				tip := m.branch(name, old, name+".txt", name+"\n")
				m.run("push", "-q", "--force-with-lease=refs/heads/main:"+old, "origin", tip+":refs/heads/main")
			}
		}
	})
}
