package remotequeue_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/remotequeue"
)

// Three machines enqueue at once, each several jobs: every job is in the chain exactly
// once, every machine reads the same order, the chain is one commit per enqueue (linear),
// and each job's tip is on the server under refs/copse/jobs/<id>.
func TestConcurrentEnqueueFromThreeMachines(t *testing.T) {
	w := newWorld(t, 3)
	const perMachine = 4
	tips := map[string]string{} // branch → tip
	for _, m := range w.m {
		start := m.origin()
		for i := range perMachine {
			b := fmt.Sprintf("%s/job%d", m.name, i)
			tips[b] = m.branch(b, start, strings.ReplaceAll(b, "/", "-")+".txt", b+"\n")
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 3*perMachine)
	for _, m := range w.m {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := m.queue("main")
			for i := range perMachine {
				b := fmt.Sprintf("%s/job%d", m.name, i)
				if _, err := q.Enqueue(ctx(t), m.job(b, tips[b])); err != nil {
					errs <- fmt.Errorf("machine %s, %s: %w", m.name, b, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}

	var orders [][]string
	for _, m := range w.m {
		q, err := m.queue("main").Read(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for i, j := range q.Jobs {
			order = append(order, j.Branch)
			if j.Seq != int64(i+1) || j.State != remotequeue.Queued || j.Tip != tips[j.Branch] {
				t.Errorf("job %d: %+v", i, j)
			}
			if got := w.serverRef(remotequeue.JobRefPrefix + (j.ID)); got != j.Tip {
				t.Errorf("%s on the server = %q, want the tip %s", remotequeue.JobRefPrefix+(j.ID), got, j.Tip)
			}
		}
		orders = append(orders, order)
	}
	sorted := slices.Sorted(func(yield func(string) bool) {
		for b := range tips {
			if !yield(b) {
				return
			}
		}
	})
	if got := slices.Sorted(slices.Values(orders[0])); !slices.Equal(got, sorted) {
		t.Fatalf("jobs in the queue %v, want each of %v once", orders[0], sorted)
	}
	for _, o := range orders[1:] {
		if !slices.Equal(o, orders[0]) {
			t.Fatalf("machines read different orders: %v and %v", orders[0], o)
		}
	}
	// Each machine's own jobs keep their order (it enqueued them one after another).
	for _, m := range w.m {
		var mine []string
		for _, b := range orders[0] {
			if strings.HasPrefix(b, m.name+"/") {
				mine = append(mine, b)
			}
		}
		if !slices.IsSorted(mine) {
			t.Errorf("machine %s's jobs out of order: %v", m.name, mine)
		}
	}
	if n := w.server("rev-list", "--count", remotequeue.QueueRefPrefix+"main"); n != fmt.Sprint(3*perMachine) {
		t.Errorf("the queue chain has %s commits, want one per enqueue (%d)", n, 3*perMachine)
	}
	if n := w.server("rev-list", "--count", "--merges", remotequeue.QueueRefPrefix+"main"); n != "0" {
		t.Errorf("the queue chain has %s merges", n)
	}
}

// A rival enqueues between this machine's read and its push: the lease on the queue is
// lost, the commit is rebuilt on the rival's and pushed again; both jobs are queued, the
// rival's first.
func TestLostQueueLeaseIsRebuilt(t *testing.T) {
	w := newWorld(t, 2)
	a, b := w.m[0], w.m[1]
	tipA := a.branch("feat-a", a.origin(), "a.txt", "a\n")
	tipB := b.branch("feat-b", b.origin(), "b.txt", "b\n")
	a.hook.before = func(n int) {
		if n == 1 {
			if _, err := b.queue("main").Enqueue(context.Background(), b.job("feat-b", tipB)); err != nil {
				t.Errorf("rival's enqueue: %v", err)
			}
		}
	}
	j, err := a.queue("main").Enqueue(ctx(t), a.job("feat-a", tipA))
	if err != nil {
		t.Fatal(err)
	}
	if a.hook.count() != 2 {
		t.Errorf("machine a pushed %d times, want 2 (lost lease, then rebuilt)", a.hook.count())
	}
	q, err := a.queue("main").Read(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Jobs) != 2 || q.Jobs[0].Branch != "feat-b" || q.Jobs[1].Branch != "feat-a" || q.Jobs[1].ID != j.ID || j.Seq != 2 {
		t.Fatalf("queue %+v, enqueued %+v", q.Jobs, j)
	}
}

// A retry bound of one gives up on a lost lease, as ErrContended, changing nothing of its own.
func TestLostQueueLeaseIsBounded(t *testing.T) {
	w := newWorld(t, 2)
	a, b := w.m[0], w.m[1]
	tipA := a.branch("feat-a", a.origin(), "a.txt", "a\n")
	tipB := b.branch("feat-b", b.origin(), "b.txt", "b\n")
	a.hook.before = func(n int) {
		if n == 1 {
			if _, err := b.queue("main").Enqueue(context.Background(), b.job("feat-b", tipB)); err != nil {
				t.Errorf("rival's enqueue: %v", err)
			}
		}
	}
	q := a.queue("main")
	q.Retries = 1
	if _, err := q.Enqueue(ctx(t), a.job("feat-a", tipA)); !errors.Is(err, remotequeue.ErrContended) {
		t.Fatalf("Enqueue = %v, want ErrContended", err)
	}
	got, err := q.Read(ctx(t))
	if err != nil || len(got.Jobs) != 1 || got.Jobs[0].Branch != "feat-b" {
		t.Fatalf("queue %+v, %v", got, err)
	}
}

// ready enqueues a job of m on a branch adding file and starts it: the job and the remote
// main it was started on.
func ready(t *testing.T, m *machine, branch, file string) (remotequeue.Job, string) {
	t.Helper()
	old := m.origin()
	tip := m.branch(branch, old, file, branch+"\n")
	q := m.queue("main")
	j, err := q.Enqueue(ctx(t), m.job(branch, tip))
	if err != nil {
		t.Fatal(err)
	}
	if j, err = q.Start(ctx(t), j.ID, "owner-"+m.name); err != nil {
		t.Fatal(err)
	}
	return j, old
}

func land(m *machine, j remotequeue.Job, old string) remotequeue.Land {
	tree := strings.TrimSpace(m.run("rev-parse", j.Tip+"^{tree}"))
	return remotequeue.Land{Job: j.ID, Owner: "owner-" + m.name, Old: old, New: j.Tip, Tree: tree,
		Test: j.Test, Exit: 0, Machine: "machine-" + m.name, Duration: 1500 * time.Millisecond}
}

// The land push moves the target, marks the job landed, adds the evidence note (the tree
// equal to the landed commit's) and moves refs/copse/jobs/<id>, all in one push; a job
// enqueued by another machine during the land only costs a rebuild of the queue commit.
func TestLandPushMovesTargetQueueAndNote(t *testing.T) {
	w := newWorld(t, 2)
	a, b := w.m[0], w.m[1]
	j, old := ready(t, a, "feat", "feat.txt")
	tipB := b.branch("other", b.origin(), "other.txt", "other\n")
	a.hook.before = func(n int) {
		if n == 3 { // enqueue and start were 1 and 2
			if _, err := b.queue("main").Enqueue(context.Background(), b.job("other", tipB)); err != nil {
				t.Errorf("rival's enqueue: %v", err)
			}
		}
	}
	l := land(a, j, old)
	res, err := a.queue("main").LandPush(ctx(t), l)
	if err != nil {
		t.Fatal(err)
	}
	if a.hook.count() != 4 {
		t.Errorf("%d pushes, want 4 (the land's first lost the queue's lease)", a.hook.count())
	}
	if got := w.serverRef("refs/heads/main"); got != j.Tip {
		t.Fatalf("server main = %s, want %s", got, j.Tip)
	}
	if got := w.serverRef(remotequeue.JobRefPrefix + (j.ID)); got != j.Tip {
		t.Errorf("job ref = %s, want the landed commit %s", got, j.Tip)
	}
	note := w.server("notes", "--ref="+remotequeue.NotesRef, "show", j.Tip)
	ev, err := remotequeue.ParseEvidence([]byte(note))
	if err != nil {
		t.Fatalf("note %q: %v", note, err)
	}
	if ev.Tree != w.server("rev-parse", j.Tip+"^{tree}") || ev.Job != j.ID || ev.Machine != "machine-a" || ev.Duration != "1.5s" || ev.Test != j.Test {
		t.Errorf("evidence %+v", ev)
	}
	q, err := b.queue("main").Read(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := q.Job(j.ID)
	if got.State != remotequeue.Landed || got.Landed != j.Tip || res.Job.State != remotequeue.Landed || q.Commit != res.Queue {
		t.Errorf("queue says %+v (commit %s), LandPush said %+v", got, q.Commit, res)
	}
	if head, _ := q.Head(); head.Branch != "other" || len(q.Jobs) != 2 {
		t.Errorf("head %+v of %+v", head, q.Jobs)
	}
}

// A pre-receive hook refuses: the error quotes the server's message, and nothing moved on
// the server (target, queue, notes, job ref).
func TestHookRejectionIsReportedAndNothingMoves(t *testing.T) {
	w := newWorld(t, 1)
	a := w.m[0]
	j, old := ready(t, a, "feat", "feat.txt")
	queueBefore := w.serverRef(remotequeue.QueueRefPrefix + "main")
	w.hook("pre-receive", `while read old new ref; do
  if [ "$ref" = refs/heads/main ]; then echo "main is protected: changes need a signed commit" >&2; exit 1; fi
done
exit 0
`)
	_, err := a.queue("main").LandPush(ctx(t), land(a, j, old))
	var rej *remotequeue.RejectedError
	if !errors.As(err, &rej) || !errors.Is(err, remotequeue.ErrRejected) {
		t.Fatalf("LandPush = %v, want a RejectedError", err)
	}
	if !strings.Contains(rej.Message, "main is protected: changes need a signed commit") || rej.Reason != "pre-receive hook declined" {
		t.Errorf("rejection %+v lacks the server's message", rej)
	}
	if got := w.serverRef("refs/heads/main"); got != old {
		t.Errorf("server main moved to %s", got)
	}
	if got := w.serverRef(remotequeue.QueueRefPrefix + "main"); got != queueBefore {
		t.Errorf("queue moved from %s to %s", queueBefore, got)
	}
	if got := w.serverRef(remotequeue.NotesRef); got != "" {
		t.Errorf("notes ref created: %s", got)
	}
	if got := w.serverRef(remotequeue.JobRefPrefix + (j.ID)); got != j.Tip {
		t.Errorf("job ref moved to %s", got)
	}
}

// Someone pushes to the target between the land's read of the remote and its push: the
// lease on the target is lost, reported as ErrTargetMoved (not a rejection, not
// contention), and the foreign commit stays.
func TestForeignPushToTargetLosesTheLease(t *testing.T) {
	w := newWorld(t, 2)
	a, b := w.m[0], w.m[1]
	j, old := ready(t, a, "feat", "feat.txt")
	foreign := b.branch("hotfix", b.origin(), "hotfix.txt", "hotfix\n")
	a.hook.before = func(n int) {
		if n == 3 {
			b.run("push", "-q", "origin", "hotfix:main")
		}
	}
	_, err := a.queue("main").LandPush(ctx(t), land(a, j, old))
	if !errors.Is(err, remotequeue.ErrTargetMoved) || errors.Is(err, remotequeue.ErrRejected) || errors.Is(err, remotequeue.ErrContended) {
		t.Fatalf("LandPush = %v, want ErrTargetMoved", err)
	}
	if a.hook.count() != 3 {
		t.Errorf("%d pushes, want 3: a lost lease on the target is not retried", a.hook.count())
	}
	if got := w.serverRef("refs/heads/main"); got != foreign {
		t.Fatalf("server main = %s, want the foreign commit %s kept", got, foreign)
	}
	q, err := a.queue("main").Read(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := q.Job(j.ID); got.State != remotequeue.Running {
		t.Errorf("job is %s after a lost lease on the target", got.State)
	}
	// Seen before the push, the move is refused the same way, without a push.
	if _, err := a.queue("main").LandPush(ctx(t), land(a, j, old)); !errors.Is(err, remotequeue.ErrTargetMoved) || a.hook.count() != 3 {
		t.Fatalf("second LandPush = %v after %d pushes", err, a.hook.count())
	}
}

// A queue record that does not parse stops every reader and writer; the queue is not
// rewritten over it.
func TestCorruptRecordIsRefused(t *testing.T) {
	w := newWorld(t, 1)
	a := w.m[0]
	tip := a.branch("feat", a.origin(), "feat.txt", "feat\n")
	q := a.queue("main")
	if _, err := q.Enqueue(ctx(t), a.job("feat", tip)); err != nil {
		t.Fatal(err)
	}
	// A person (or an older tool) commits a damaged record onto the chain.
	a.run("fetch", "-q", "origin", "+refs/copse/queue/main:refs/tmp/q")
	blob := a.pipe(`{"v":1,"id":"r0000000000ff",`, "hash-object", "-w", "--stdin")
	entries := a.run("ls-tree", "refs/tmp/q")
	tree := a.pipe(entries+"\n100644 blob "+blob+"\tr0000000000ff.json\n", "mktree")
	bad := a.run("commit-tree", "-p", "refs/tmp/q", "-m", "damaged", tree)
	a.run("push", "-q", "origin", bad+":refs/copse/queue/main")

	if _, err := q.Read(ctx(t)); !errors.Is(err, remotequeue.ErrCorrupt) || !strings.Contains(err.Error(), "r0000000000ff.json") {
		t.Fatalf("Read = %v, want ErrCorrupt naming the record", err)
	}
	tip2 := a.branch("feat2", a.origin(), "feat2.txt", "feat2\n")
	if _, err := q.Enqueue(ctx(t), a.job("feat2", tip2)); !errors.Is(err, remotequeue.ErrCorrupt) {
		t.Fatalf("Enqueue = %v, want ErrCorrupt", err)
	}
	if got := w.serverRef("refs/copse/queue/main"); got != bad {
		t.Fatalf("queue moved from the damaged commit %s to %s", bad, got)
	}
	// An unknown field is refused too: rewriting the record would drop it.
	for name, content := range map[string]string{
		"unknown field": `{"v":1,"id":"r0000000000fe","seq":9,"target":"main","branch":"x","tip":"` + tip + `","machine":"m","state":"queued","heartbeat":0,"enqueued":"2026-01-01T00:00:00Z","priority":1}`,
		"newer version": `{"v":2,"id":"r0000000000fe","seq":9,"target":"main","branch":"x","tip":"` + tip + `","machine":"m","state":"queued","heartbeat":0,"enqueued":"2026-01-01T00:00:00Z"}`,
	} {
		blob := a.pipe(content, "hash-object", "-w", "--stdin")
		tree := a.pipe(entries+"\n100644 blob "+blob+"\tr0000000000fe.json\n", "mktree")
		c := a.run("commit-tree", "-p", "refs/tmp/q", "-m", name, tree)
		a.run("push", "-q", "-f", "origin", c+":refs/copse/queue/main")
		if _, err := q.Read(ctx(t)); !errors.Is(err, remotequeue.ErrCorrupt) {
			t.Errorf("%s: Read = %v, want ErrCorrupt", name, err)
		}
	}
}

// Two machines watch the same silent owner for a whole lease on their own clocks and take
// the job over at the same moment: exactly one wins; the loser sees the new owner.
func TestTakeoverCASExactlyOneWins(t *testing.T) {
	w := newWorld(t, 3)
	a := w.m[0]
	j, _ := ready(t, a, "feat", "feat.txt")
	const lease = time.Minute
	type racer struct {
		m   *machine
		obs *remotequeue.Observer
		at  atomic.Int64 // this machine's clock, in nanoseconds past base
	}
	base := time.Now()
	var racers []*racer
	for _, m := range w.m[1:] {
		r := &racer{m: m}
		r.obs = &remotequeue.Observer{Now: func() time.Time { return base.Add(time.Duration(r.at.Load())) }}
		q, err := m.queue("main").Read(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		r.obs.See(q)
		racers = append(racers, r)
	}
	for _, bad := range []time.Duration{0, -time.Second, remotequeue.MaxLease + time.Second} {
		if _, err := racers[0].m.queue("main").Takeover(ctx(t), j.ID, "owner-b", racers[0].obs, bad); !errors.Is(err, remotequeue.ErrBadInput) {
			t.Errorf("takeover with a lease of %s = %v, want ErrBadInput", bad, err)
		}
	}
	// Half a lease is not enough, and refusing changes nothing.
	racers[0].at.Store(int64(lease / 2))
	queueBefore := w.serverRef(remotequeue.QueueRefPrefix + "main")
	if _, err := racers[0].m.queue("main").Takeover(ctx(t), j.ID, "owner-b", racers[0].obs, lease); !errors.Is(err, remotequeue.ErrNotExpired) {
		t.Fatalf("early takeover = %v, want ErrNotExpired", err)
	}
	if got := w.serverRef(remotequeue.QueueRefPrefix + "main"); got != queueBefore {
		t.Fatalf("a refused takeover moved the queue to %s", got)
	}
	for _, r := range racers {
		r.at.Store(int64(lease + time.Second))
	}
	var wg sync.WaitGroup
	results := make([]error, len(racers))
	start := make(chan struct{})
	for i, r := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, results[i] = r.m.queue("main").Takeover(ctx(t), j.ID, "owner-"+r.m.name, r.obs, lease)
		}()
	}
	close(start)
	wg.Wait()
	wins := 0
	winner := ""
	for i, err := range results {
		switch {
		case err == nil:
			wins++
			winner = "owner-" + racers[i].m.name
		case !errors.Is(err, remotequeue.ErrNotExpired):
			t.Errorf("racer %s: %v, want a win or ErrNotExpired", racers[i].m.name, err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d takeovers won (%v), want exactly one", wins, results)
	}
	q, err := a.queue("main").Read(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := q.Job(j.ID)
	if got.Owner != winner || got.State != remotequeue.Running || got.Attempt != 2 {
		t.Errorf("job after the takeover: %+v, want owner %s", got, winner)
	}
	// The old owner's heartbeat and land are refused now.
	if _, err := a.queue("main").Heartbeat(ctx(t), j.ID, "owner-a"); !errors.Is(err, remotequeue.ErrNotOwner) {
		t.Errorf("old owner's heartbeat = %v, want ErrNotOwner", err)
	}
	if _, err := a.queue("main").LandPush(ctx(t), land(a, j, a.origin())); !errors.Is(err, remotequeue.ErrNotOwner) {
		t.Errorf("old owner's land = %v, want ErrNotOwner", err)
	}
}

// A heartbeat restarts every observer's watch: a lease of silence must be seen after it.
func TestHeartbeatRestartsTheWatch(t *testing.T) {
	w := newWorld(t, 2)
	a, b := w.m[0], w.m[1]
	j, _ := ready(t, a, "feat", "feat.txt")
	var now atomic.Int64
	base := time.Now()
	obs := &remotequeue.Observer{Now: func() time.Time { return base.Add(time.Duration(now.Load())) }}
	q, err := b.queue("main").Read(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	obs.See(q)
	now.Store(int64(50 * time.Second))
	if _, err := a.queue("main").Heartbeat(ctx(t), j.ID, "owner-a"); err != nil {
		t.Fatal(err)
	}
	now.Store(int64(70 * time.Second)) // a minute since the first sighting, 20 s since the heartbeat
	if _, err := b.queue("main").Takeover(ctx(t), j.ID, "owner-b", obs, time.Minute); !errors.Is(err, remotequeue.ErrNotExpired) {
		t.Fatalf("takeover 20 s after a heartbeat = %v, want ErrNotExpired", err)
	}
	now.Store(int64(131 * time.Second))
	if got, err := b.queue("main").Takeover(ctx(t), j.ID, "owner-b", obs, time.Minute); err != nil || got.Owner != "owner-b" {
		t.Fatalf("takeover a lease after the heartbeat = %+v, %v", got, err)
	}
}

// Start takes only the head, and a held head is named; Finish ends a job and the next is
// the head.
func TestStartTakesTheHeadOnly(t *testing.T) {
	w := newWorld(t, 2)
	a, b := w.m[0], w.m[1]
	j1, _ := ready(t, a, "first", "first.txt")
	tip := b.branch("second", b.origin(), "second.txt", "2\n")
	j2, err := b.queue("main").Enqueue(ctx(t), b.job("second", tip))
	if err != nil {
		t.Fatal(err)
	}
	var se *remotequeue.StateError
	if _, err := b.queue("main").Start(ctx(t), j2.ID, "owner-b"); !errors.Is(err, remotequeue.ErrHeadHeld) || !errors.As(err, &se) || se.Job.ID != j1.ID {
		t.Fatalf("Start behind a running head = %v, want ErrHeadHeld naming %s", err, j1.ID)
	}
	if _, err := b.queue("main").Finish(ctx(t), j1.ID, "owner-b", remotequeue.Blocked, "x"); !errors.Is(err, remotequeue.ErrNotOwner) {
		t.Fatalf("Finish by another = %v, want ErrNotOwner", err)
	}
	if _, err := a.queue("main").Finish(ctx(t), j1.ID, "owner-a", remotequeue.Blocked, "rebase conflict in x.go"); err != nil {
		t.Fatal(err)
	}
	if got, err := b.queue("main").Start(ctx(t), j2.ID, "owner-b"); err != nil || got.State != remotequeue.Running {
		t.Fatalf("Start of the new head = %+v, %v", got, err)
	}
}

// bound makes m's next pushes give up after d, as a dropped connection would leave them:
// git and the server's receive-pack (a child of the push on a file:// remote) are killed.
func bound(m *machine, d time.Duration) {
	m.hook.wrap = func(c context.Context) (context.Context, func()) { return context.WithTimeout(c, d) }
}

// The server applied the land but the push was cut off before it could say so: reading
// the remote settles it as landed (once), without a second push.
func TestUnknownOutcomeAppliedIsSettledLanded(t *testing.T) {
	w := newWorld(t, 1)
	a := w.m[0]
	j, old := ready(t, a, "feat", "feat.txt")
	w.hook("post-receive", "sleep 30\n")
	bound(a, time.Second)
	res, err := a.queue("main").LandPush(ctx(t), land(a, j, old))
	if err != nil {
		t.Fatalf("LandPush = %v, want landed after reading the remote", err)
	}
	if !res.Settled || a.hook.count() != 3 {
		t.Errorf("Settled = %v after %d pushes, want true after 3", res.Settled, a.hook.count())
	}
	if got := w.serverRef("refs/heads/main"); got != j.Tip {
		t.Errorf("server main = %s", got)
	}
}

// The push was cut off before the server applied it: reading the remote shows the old
// target, ErrNotPushed, and nothing moved.
func TestUnknownOutcomeNotAppliedIsNotPushed(t *testing.T) {
	w := newWorld(t, 1)
	a := w.m[0]
	j, old := ready(t, a, "feat", "feat.txt")
	queueBefore := w.serverRef(remotequeue.QueueRefPrefix + "main")
	w.hook("pre-receive", "sleep 30\n")
	bound(a, time.Second)
	_, err := a.queue("main").LandPush(ctx(t), land(a, j, old))
	if !errors.Is(err, remotequeue.ErrNotPushed) || errors.Is(err, remotequeue.ErrUncertain) {
		t.Fatalf("LandPush = %v, want ErrNotPushed", err)
	}
	if a.hook.count() != 3 {
		t.Errorf("%d pushes: an unknown outcome must never be pushed again blindly", a.hook.count())
	}
	if got := w.serverRef("refs/heads/main"); got != old {
		t.Errorf("server main moved to %s", got)
	}
	if got := w.serverRef(remotequeue.QueueRefPrefix + "main"); got != queueBefore {
		t.Errorf("queue moved to %s", got)
	}
}

// Resolve reads the remote: a target at neither commit is uncertain, unless the queue says
// the job landed (the target then moved on after it).
func TestResolveTellsLandedFromUncertain(t *testing.T) {
	w := newWorld(t, 2)
	a, b := w.m[0], w.m[1]
	j, old := ready(t, a, "feat", "feat.txt")
	q := a.queue("main")
	if o, err := q.Resolve(ctx(t), j.ID, old, j.Tip); err != nil || o != remotequeue.OutcomeNotLanded {
		t.Fatalf("Resolve before any push = %v, %v", o, err)
	}
	foreign := b.branch("hotfix", b.origin(), "hotfix.txt", "x\n")
	b.run("push", "-q", "origin", foreign+":refs/heads/main")
	if o, err := q.Resolve(ctx(t), j.ID, old, j.Tip); err != nil || o != remotequeue.OutcomeUncertain {
		t.Fatalf("Resolve with main at a foreign commit = %v, %v, want uncertain", o, err)
	}
	// Land on top of the foreign commit, then let main move on: the queue proves it landed.
	if a.origin() != foreign {
		t.Fatal("machine a did not fetch the foreign commit")
	}
	j2tip := a.branch("feat", foreign, "feat.txt", "feat\n")
	l := land(a, remotequeue.Job{ID: j.ID, Tip: j2tip, Test: j.Test}, foreign)
	if _, err := q.LandPush(ctx(t), l); err != nil {
		t.Fatal(err)
	}
	b.run("fetch", "-q", "origin")
	later := b.branch("later", j2tip, "later.txt", "later\n")
	b.run("push", "-q", "origin", later+":refs/heads/main")
	if o, err := q.Resolve(ctx(t), j.ID, foreign, j2tip); err != nil || o != remotequeue.OutcomeLanded {
		t.Fatalf("Resolve after main moved on = %v, %v, want landed", o, err)
	}
}

// The probe tells a server with atomic pushes and custom refs from one whose hook refuses
// refs/copse/ (the queue then lives in branches under copse/, and works there) and one
// without atomic pushes (refused, before anything is pushed); it leaves no probe ref.
func TestProbeFindsWhatTheServerAccepts(t *testing.T) {
	w := newWorld(t, 1)
	a := w.m[0]
	head := a.origin()
	probe := func() (remotequeue.Layout, string, error) {
		t.Helper()
		lay, why, err := a.queue("main").Probe(ctx(t), head)
		if left := w.server("for-each-ref", "refs/copse/probe/", "refs/heads/copse/probe/"); left != "" {
			t.Fatalf("probe refs left on the server: %s", left)
		}
		return lay, why, err
	}
	if lay, why, err := probe(); err != nil || lay != remotequeue.CustomRefs || why != "" {
		t.Errorf("plain server: %+v %q %v, want CustomRefs", lay, why, err)
	}
	w.hook("pre-receive", `while read old new ref; do
  case "$ref" in refs/copse/*) echo "only branches and tags here" >&2; exit 1;; esac
done
`)
	lay, why, err := probe()
	if err != nil || lay != remotequeue.BranchRefs || !strings.Contains(why, "only branches and tags here") {
		t.Fatalf("server refusing refs/copse/: %+v %q %v, want BranchRefs and the server's reason", lay, why, err)
	}
	q := a.queue("main")
	q.Layout = lay
	j, err := q.Enqueue(ctx(t), a.job("feat", a.branch("feat", head, "feat.txt", "feat\n")))
	if err != nil {
		t.Fatal(err)
	}
	if j, err = q.Start(ctx(t), j.ID, "owner-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := q.LandPush(ctx(t), land(a, j, head)); err != nil {
		t.Fatal(err)
	}
	if got := w.serverRef("refs/heads/main"); got != j.Tip {
		t.Errorf("main = %s, want %s", got, j.Tip)
	}
	if got := w.serverRef("refs/heads/copse/notes/land"); got == "" {
		t.Errorf("no notes branch")
	}

	w.hook("pre-receive", `while read old new ref; do
  case "$ref" in refs/copse/*|refs/heads/copse/*) echo "no" >&2; exit 1;; esac
done
`)
	if _, _, err := probe(); !errors.Is(err, remotequeue.ErrNoCustomRefs) {
		t.Errorf("server refusing both: %v, want ErrNoCustomRefs", err)
	}
	w.server("config", "receive.advertiseAtomic", "false")
	if _, _, err := probe(); !errors.Is(err, remotequeue.ErrNoAtomicPush) {
		t.Errorf("server without atomic pushes: %v, want ErrNoAtomicPush", err)
	}
	// And an enqueue is refused before anything moves there.
	before := w.server("for-each-ref")
	tip := a.branch("feat2", head, "feat2.txt", "feat2\n")
	if _, err := a.queue("main").Enqueue(ctx(t), a.job("feat2", tip)); !errors.Is(err, remotequeue.ErrNoAtomicPush) {
		t.Errorf("enqueue on a server without atomic pushes: %v, want ErrNoAtomicPush", err)
	}
	if after := w.server("for-each-ref"); after != before {
		t.Errorf("refs changed on a server without atomic pushes:\n%s\n%s", before, after)
	}
}

// An unknown remote is named, before anything is read.
func TestUnknownRemoteIsNamed(t *testing.T) {
	w := newWorld(t, 1)
	q := w.m[0].queue("main")
	q.Remote = "upstream"
	if err := q.CheckRemote(ctx(t)); !errors.Is(err, remotequeue.ErrUnknownRemote) || !strings.Contains(err.Error(), `"upstream"`) {
		t.Fatalf("CheckRemote = %v", err)
	}
	if err := w.m[0].queue("main").CheckRemote(ctx(t)); err != nil {
		t.Fatal(err)
	}
}

// A Remote keeps the queue it last saw (to skip parsing a commit it has read): a queue
// another machine changed since is read again before anything is decided on it.
func TestQueueChangedElsewhereIsReadAgain(t *testing.T) {
	w := newWorld(t, 2)
	a, b := w.m[0], w.m[1]
	qa, qb := a.queue("main"), b.queue("main")
	start := a.origin()
	j1, err := qa.Enqueue(ctx(t), a.job("one", a.branch("one", start, "one.txt", "1\n")))
	if err != nil {
		t.Fatal(err)
	}
	j2, err := qb.Enqueue(ctx(t), b.job("two", b.branch("two", b.origin(), "two.txt", "2\n")))
	if err != nil {
		t.Fatal(err)
	}
	pushes := a.hook.count()
	j3, err := qa.Enqueue(ctx(t), a.job("three", a.branch("three", start, "three.txt", "3\n")))
	if err != nil {
		t.Fatal(err)
	}
	if a.hook.count()-pushes != 1 {
		t.Errorf("%d pushes, want 1: the queue b changed is read before deciding", a.hook.count()-pushes)
	}
	if j3.Seq != 3 {
		t.Errorf("third job's seq %d", j3.Seq)
	}
	// a remembers j1 running under b; b finishes it; a's start of j2 is decided again.
	if _, err := qb.Start(ctx(t), j1.ID, "owner-b"); err != nil {
		t.Fatal(err)
	}
	if _, err := qa.Read(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := qb.Finish(ctx(t), j1.ID, "owner-b", remotequeue.Abandoned, "owner gone"); err != nil {
		t.Fatal(err)
	}
	if got, err := qa.Start(ctx(t), j2.ID, "owner-a"); err != nil || got.State != remotequeue.Running {
		t.Fatalf("Start on a stale memory = %+v, %v", got, err)
	}
	q, err := qb.Read(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, j := range q.Jobs {
		states = append(states, j.Branch+":"+string(j.State))
	}
	if strings.Join(states, " ") != "one:abandoned two:running three:queued" {
		t.Errorf("queue %v", states)
	}
}

// Another machine fetches the target and a job's tip by the job's ref; a tip that is not
// here is refused before anything is pushed; a missing target is named.
func TestFetchTargetAndJob(t *testing.T) {
	w := newWorld(t, 2)
	a, b := w.m[0], w.m[1]
	j, old := ready(t, a, "feat", "feat.txt")
	qb := b.queue("main")
	if got, err := qb.FetchTarget(ctx(t)); err != nil || got != old {
		t.Fatalf("FetchTarget = %s, %v, want %s", got, err, old)
	}
	tip, err := qb.FetchJob(ctx(t), j.ID)
	if err != nil || tip != j.Tip {
		t.Fatalf("FetchJob = %s, %v, want %s", tip, err, j.Tip)
	}
	if tree := b.run("rev-parse", tip+"^{tree}"); tree == "" {
		t.Fatal("the job's commit is not on machine b")
	}
	before := w.server("for-each-ref")
	missing := strings.Repeat("e", 40)
	if _, err := qb.Enqueue(ctx(t), b.job("ghost", missing)); !errors.Is(err, remotequeue.ErrBadInput) {
		t.Errorf("Enqueue of a tip that is not here = %v, want ErrBadInput", err)
	}
	if after := w.server("for-each-ref"); after != before {
		t.Errorf("the server's refs changed:\n%s\n%s", before, after)
	}
	if _, err := b.queue("release").FetchTarget(ctx(t)); !errors.Is(err, remotequeue.ErrNoTarget) {
		t.Errorf("FetchTarget of a missing branch = %v, want ErrNoTarget", err)
	}
}
