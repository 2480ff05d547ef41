package core

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"github.com/copse-dev/copse/core/landjobs"
)

// The land queue's files under <common>/copse/land/ are core/landjobs' (a ticket queue:
// neither a blocking nor a polling flock serves its waiters in order; docs/land.md, "The
// queue"); here are the records' contents and the liveness locks. A job's liveness lock
// (land-N.lock) is flocked by the process running (or waiting to run) the job for the job's
// whole life; the kernel drops it when that process dies, which is how the others learn the
// job was abandoned.
//
// Tickets are handed out under the repository lock. The head of the queue is the lowest
// unfinished ticket; only the head runs. A job's record is written only by the holder of
// its liveness lock, and its final state is written before that lock is released.

// ---- liveness locks ----

// held keeps every liveness lock this process holds, by lock path, with the livenessOwner
// that holds it: one process may run several land loops at once (an MCP server, the
// picker), and a job is run only by the loop that holds it. The *os.File must stay
// referenced: a collected file is closed by its finalizer, which drops the flock and would
// make a live job look abandoned.
var (
	heldMu sync.Mutex
	held   = map[string]heldLock{}
)

type heldLock struct {
	f     *os.File
	owner *LivenessOwner
}

// livenessOwner is who in this process holds a liveness lock: one land loop, or readQueue's
// probe for abandoned jobs. Only its address matters; it has a field so that two holders
// never share one (distinct zero-size values may have equal addresses).
type LivenessOwner struct{ _ byte }

// takeLiveness tries to flock the job's liveness file without waiting. ok is false when
// another open file (another process, or another land loop in this one) holds it.
func TakeLiveness(dir, job string, owner *LivenessOwner) (ok bool, err error) {
	p := landjobs.LockPath(dir, job)
	heldMu.Lock()
	defer heldMu.Unlock()
	if _, mine := held[p]; mine {
		return false, nil
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return false, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, nil
		}
		return false, err
	}
	held[p] = heldLock{f: f, owner: owner}
	return true, nil
}

// ownerGone reports, without taking it, whether nobody holds the job's liveness lock (a
// missing lock file: nobody ever did); only a dry run asks, for its answer alone.
func OwnerGone(dir, job string) bool {
	p := landjobs.LockPath(dir, job)
	heldMu.Lock()
	_, mine := held[p]
	heldMu.Unlock()
	if mine {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	defer f.Close()
	// A shared probe, dropped at once: it conflicts only with the owner's exclusive lock.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return false
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return true
}

// holds reports whether owner holds the job's liveness lock.
func Holds(dir, job string, owner *LivenessOwner) bool {
	heldMu.Lock()
	defer heldMu.Unlock()
	h, ok := held[landjobs.LockPath(dir, job)]
	return ok && h.owner == owner
}

// dropLiveness releases the job's liveness lock (after its final record is written).
func DropLiveness(dir, job string) {
	p := landjobs.LockPath(dir, job)
	heldMu.Lock()
	h, ok := held[p]
	delete(held, p)
	heldMu.Unlock()
	if ok {
		_ = syscall.Flock(int(h.f.Fd()), syscall.LOCK_UN)
		h.f.Close()
	}
}
