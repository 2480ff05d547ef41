package core

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/copse-dev/copse/gitx"
	"github.com/copse-dev/copse/internal/liveproc"
)

// Agents' own worktree locks. Claude Code makes worktrees under .claude/worktrees/ and locks
// each with the reason "claude session <name> (pid N)". copse shows such a lock as a claim
// held by that session while the pid lives — checked with its start time against the lock's
// age, so a pid the system gave to another program since is not taken for the session —
// and as a stale lock, no claim, once it is gone. git's lock stays either way: remove needs
// --force for it, as for any lock, and says whether the session still runs.

const (
	claudeLockPrefix = "claude session "
	claudeLockPID    = " (pid "
	// claudeSessionPrefix names the session of a Claude Code lock among copse's sessions.
	claudeSessionPrefix = "claude:"
	// lockStartSlack is how much later than the lock file's time a process may seem to
	// have started and still count as the one that wrote it: /proc gives the start in
	// clock ticks after a boot time in whole seconds.
	lockStartSlack = time.Second
)

// parseClaudeLock reads "claude session <name> (pid N)" (ok false for any other reason).
func parseClaudeLock(reason string) (name string, pid int, ok bool) {
	rest, ok := strings.CutPrefix(reason, claudeLockPrefix)
	if !ok || !strings.HasSuffix(rest, ")") {
		return "", 0, false
	}
	i := strings.LastIndex(rest, claudeLockPID)
	if i <= 0 {
		return "", 0, false
	}
	name, num := rest[:i], strings.TrimSuffix(rest[i+len(claudeLockPID):], ")")
	pid, err := strconv.Atoi(num)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != num {
		return "", 0, false
	}
	for _, r := range name {
		if !sessionRune(r) {
			return "", 0, false
		}
	}
	return name, pid, true
}

// agentLock is a lock an agent wrote, judged.
type agentLock struct {
	claim Claim // the session, the lock's time, the pid
	live  bool  // the pid runs, and started before the lock was written
}

// agentLockOf judges the lock of the worktree whose admin directory is admin ("" when
// unknown: the lock's time cannot be read, and a live pid is then not trusted). ok is false
// when the lock is no agent's.
func agentLockOf(locked *string, admin string) (agentLock, bool) {
	if locked == nil {
		return agentLock{}, false
	}
	name, pid, ok := parseClaudeLock(*locked)
	if !ok {
		return agentLock{}, false
	}
	l := agentLock{claim: Claim{Session: claudeSessionPrefix + name, PID: pid, Agent: "claude"}}
	if admin == "" {
		return l, true
	}
	fi, err := os.Stat(filepath.Join(admin, "locked"))
	if err != nil {
		return l, true
	}
	l.claim.Since = fi.ModTime().UTC().Truncate(time.Second)
	started, ok := liveproc.StartTime(pid)
	l.live = ok && !started.After(fi.ModTime().Add(lockStartSlack))
	return l, true
}

// staleWhy says why an agent's lock no longer holds.
func (l agentLock) staleWhy() string {
	return "stale: " + Escape(strings.TrimPrefix(l.claim.Session, claudeSessionPrefix)) + "'s Claude Code session (pid " + strconv.Itoa(l.claim.PID) + ") has ended"
}

// agentLockKeep is prune's reason for keeping a locked worktree when an agent wrote the
// lock: claimed while its session runs, a stale lock once it ended (prune never unlocks);
// reason and detail as given for any other lock.
func AgentLockKeep(t gitx.Worktree, commonDir, id, reason, detail string) (string, string) {
	admin := ""
	if commonDir != "" && id != "" {
		admin = AdminDir(commonDir, id)
	}
	l, ok := agentLockOf(t.Locked, admin)
	switch {
	case !ok:
		return reason, detail
	case l.live:
		return KeepClaimed, "claimed by " + l.holder()
	}
	return KeepLocked, "locked by an agent, " + l.staleWhy() + ": " + Escape(*t.Locked)
}

// holder names the live session of an agent's lock: who, which pid, since when.
func (l agentLock) holder() string {
	return "session " + Escape(l.claim.Session) + " (Claude Code, pid " + strconv.Itoa(l.claim.PID) + ") since " + l.claim.Since.Format(time.RFC3339)
}

// agentLockFor judges t's lock when an agent wrote it (ok false otherwise).
func (s *Env) AgentLockFor(ctx context.Context, t gitx.Worktree) (agentLock, bool) {
	if t.Locked == nil {
		return agentLock{}, false
	}
	admin := ""
	if commonDir, err := s.CommonDir(ctx); err == nil {
		if id := IdOf(WorktreeIDs(commonDir), t.Path); id != "" {
			admin = AdminDir(commonDir, id)
		}
	}
	return agentLockOf(t.Locked, admin)
}
