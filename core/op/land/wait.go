package land

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/liveproc"
)

// A land waits in its queue behind the head job for as long as that job runs (a test gate
// may take many minutes), but not behind one whose process is stopped (Ctrl-Z, SIGSTOP):
// that one holds the head and does nothing until someone continues it, which may be never.
// Once the head's owner has been seen stopped for copse.lockTimeout, the waiting land gives
// up (land_owner_stopped), naming the owner, and its own queued job ends as cancelled with
// nothing changed. The stopped job is not taken over: its process still holds it and may be
// continued (copse marks it abandoned once the process is gone).

// stoppedWatch is one waiter's view of the head job's owner.
type stoppedWatch struct {
	s       *core.Env
	ctx     context.Context
	job     string    // the head job seen stopped ("" while it runs)
	since   time.Time // when it was first seen stopped
	timeout time.Duration
}

// check is nil while the head may still move, else the refusal to wait longer.
func (w *stoppedWatch) check(head *core.LandJob) error {
	if !head.Owned || head.PID <= 0 || head.PID == os.Getpid() || !liveproc.Stopped(head.PID) {
		w.job = ""
		return nil
	}
	if w.job != head.Job {
		w.job, w.since = head.Job, time.Now()
		return nil
	}
	if w.timeout == 0 {
		t, err := w.s.LockTimeout(w.ctx)
		if err != nil {
			return err
		}
		w.timeout = t
	}
	if time.Since(w.since) < w.timeout {
		return nil
	}
	return ownerStopped(head, w.timeout, time.Now())
}

// ownerStopped is the refusal to wait behind head, whose owner is stopped.
func ownerStopped(head *core.LandJob, waited time.Duration, now time.Time) *core.Error {
	who := fmt.Sprintf("pid %d", head.PID)
	if head.Session != "" {
		who += ", session " + head.Session
	}
	held := ""
	if started, err := time.Parse(time.RFC3339Nano, core.FirstNonEmpty(head.Started, head.Created)); err == nil {
		held = fmt.Sprintf(", for %s (since %s)", core.FormatSpan(now.Sub(started).Round(time.Second)), started.Local().Format("15:04:05"))
	}
	return &core.Error{Kind: core.KindFailed, Code: core.CodeLandOwnerStopped,
		Message: fmt.Sprintf("gave up after %s waiting behind %s (%s), whose process (%s) is stopped (Ctrl-Z or SIGSTOP) and holds the head of the land queue%s; this land was not run, nothing changed",
			core.FormatSpan(waited), head.Job, head.Phase, who, held),
		Hint: fmt.Sprintf("continue it (`fg` in its terminal, or kill -CONT %d) or end it (kill %d: its job is then marked abandoned), then land again; or wait longer: `git config copse.lockTimeout 2m`",
			head.PID, head.PID)}
}
