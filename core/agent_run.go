package core

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/core/eventlog"
	"github.com/copse-dev/copse/core/notify"
	"github.com/copse-dev/copse/gitx"
	"github.com/copse-dev/copse/internal/liveproc"
)

// When a create --run command ends. There is no watcher: the window's own script tells,
//
//	"$COPSE_RUN_BIN" agent-run start & trap '…agent-run end…' EXIT; COMMAND;
//	copse_status=$?; trap - EXIT; "$COPSE_RUN_BIN" agent-run end --exit "$copse_status"
//	exec "${SHELL:-/bin/sh}"
//
// so the command still starts from the same shell with the same argv, and once it ends
// copse records `done` with its exit status in the agents' store (agentstate, source
// wrapper), logs an agent.state event, releases the claim the create took for the
// command's session and notifies the person (core/notify). Each step is bounded and
// errors only print: the window goes on to its shell whatever happens.
//
// A window closed before the command ended never gets to say so: its wrapper's record
// still says working, with the pid and start time of a process that is gone. A claim of a
// --run session whose wrapper ended or is gone is an ended claim (Claim.Ended): the
// listing shows it, and remove, prune and land treat it as no claim (they unlock it as
// part of removing the worktree).

// runAgent is the agent name of a --run command's records.
const runAgent = "run"

// quickExit is how soon a --run command may end before create reports a failed start.
const quickExit = time.Second

// runEndTimeout bounds `copse agent-run end`: the lock waits, the event, the release and
// the notification all together.
const runEndTimeout = 10 * time.Second

// WrapRun adds the start and end reports around script (the command, its prompt appended)
// and the environment they read; the notification mode comes from git config
// copse.notify. Without Options.Self it returns script as it is.
func (s *Env) WrapRun(ctx context.Context, raw, script string, env []string) (string, []string, []string) {
	if s.Opts.Self == "" || !filepath.IsAbs(s.Opts.Self) {
		return script, env, nil
	}
	var warnings []string
	mode := notify.Default
	if v, ok, err := s.Git.ConfigValue(ctx, s.Root(), "copse.notify"); err == nil && ok {
		m, known := notify.ParseMode(v)
		if !known {
			warnings = append(warnings, "git config copse.notify is "+Quote(v)+", which copse does not know (bell, osc9, osc777 or off); using "+string(m))
		}
		mode = m
	}
	// The store this copse reads, named outright: the window's environment is the tmux
	// server's, which may point elsewhere (the agent's own hooks then write here too).
	env = append(env, "COPSE_RUN_BIN="+s.Opts.Self, "COPSE_RUN_PROGRAM="+runProgram(raw), "COPSE_NOTIFY="+string(mode),
		"COPSE_STATE_DIR="+filepath.Dir(agentstate.Dir(s.Opts.Getenv)))
	// The start report runs beside the command, silent, so copse's own start-up never
	// delays the agent nor prints into its screen (a start report that comes after the
	// end's does not replace it). The EXIT trap reports a command that ends the wrapper
	// itself (an `exit` in the command line); it is dropped before the usual end's report.
	script = `"$COPSE_RUN_BIN" agent-run start </dev/null >/dev/null 2>&1 & ` +
		`trap '"$COPSE_RUN_BIN" agent-run end --exit "$?"' EXIT; ` + script +
		`; copse_status=$?; trap - EXIT; "$COPSE_RUN_BIN" agent-run end --exit "$copse_status"`
	return script, env, warnings
}

// runProgram is the program a command line starts, for the views: its first word that is
// not a variable assignment or exec/env/command/nohup, without its directory, named as
// liveproc names a process by its argv (`node …/claude-code/cli.js` is claude, not node);
// "" when the line starts with something else, a quote or a parenthesis.
func runProgram(raw string) string {
	words := strings.Fields(raw)
	for i, w := range words {
		switch {
		case w == "exec" || w == "env" || w == "command" || w == "nohup":
			continue
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "="):
			continue
		case strings.ContainsAny(w[:1], `'"({$\`):
			return ""
		}
		argv := []string{strings.TrimRight(w, ";&|")}
		if liveproc.IsShell(filepath.Base(argv[0])) {
			return filepath.Base(argv[0]) // `sh -c "…"`: its quoted line is not split here
		}
		if len(argv[0]) == len(w) { // the command's own words, up to the first ; & or |
			for _, a := range words[i+1:] {
				if cut := strings.TrimRight(a, ";&|"); cut != a {
					argv = append(argv, cut)
					break
				}
				argv = append(argv, a)
			}
		}
		if name := liveproc.ProgramName(argv); name != "" {
			return name
		}
		return filepath.Base(argv[0])
	}
	return ""
}

// RunReport is what a --run command's wrapper tells of it (copse agent-run).
type RunReport struct {
	Session  string // COPSE_SESSION: the session that claimed the worktree
	Path     string // COPSE_PATH: the worktree
	Program  string // COPSE_RUN_PROGRAM
	PID      int    // the wrapper shell (the pane's process)
	Start    uint64 // its start time (liveproc.StartTime)
	ExitCode int    // end: the command's exit status
	// At is when the command started (start) or ended (end): when this `copse agent-run`
	// process was started, which the wrapper does at that moment (zero: now). copse's own
	// start-up time (a slow build, a loaded machine) is not counted in the command's.
	At time.Time
}

// RecordRunStart writes the working record of a --run command about to start. It needs no
// repository (it runs before the agent, and must not slow it).
func RecordRunStart(getenv func(string) string, r RunReport) error {
	dir := agentstate.Dir(getenv)
	defer lockRunRecords(dir)()
	if old := findRunRecord(dir, r.Session, r.Path); old != nil && startCameLate(*old, r) {
		return nil // the command ended before this report was written: the end's stands
	}
	return agentstate.Write(dir, agentstate.Record{
		Agent: runAgent, Session: r.Session, PID: r.PID, Start: r.Start, Cwd: r.Path,
		State: agentstate.Working, Source: agentstate.SourceWrapper, Event: "start", Program: r.Program, Time: r.At,
	})
}

// startCameLate reports a done record of the same wrapper at or after the start r reports.
func startCameLate(old agentstate.Record, r RunReport) bool {
	return old.State == agentstate.Done && old.PID == r.PID && !old.Time.Before(r.At.Add(-time.Second))
}

// RecordRunEnd writes the done record of a --run command that ended, with its exit status,
// and returns the record it replaced (nil when none). It needs no repository, so the end
// is recorded even when the rest (RunEnded) cannot be done.
func RecordRunEnd(getenv func(string) string, r RunReport) (old *agentstate.Record, now agentstate.Record, err error) {
	dir := agentstate.Dir(getenv)
	defer lockRunRecords(dir)()
	old = findRunRecord(dir, r.Session, r.Path)
	code := r.ExitCode
	ended := r.At
	if ended.IsZero() {
		ended = time.Now()
	}
	now = agentstate.Record{Agent: runAgent, Session: r.Session, PID: r.PID, Start: r.Start, Cwd: r.Path,
		State: agentstate.Done, ExitCode: &code, Source: agentstate.SourceWrapper, Event: "exit", Time: ended, Program: r.Program}
	switch {
	case old != nil && old.State == agentstate.Working && old.PID == r.PID:
		now.Started = old.Time // this run's start record
	case old == nil || old.PID != r.PID || old.State == agentstate.Done:
		// The start report has not been written yet (it runs beside the command): the
		// command ended about as soon as the wrapper started.
		if at, ok := liveproc.StartedAt(r.Start); ok && r.Start != 0 {
			now.Started = at
		}
	}
	return old, now, agentstate.Write(dir, now)
}

// RunEnded is the rest of a --run command's end, once RecordRunEnd wrote it (old is the
// record that replaced, now the done one): the agent.state event, the release of the
// session's claim and the notification. It returns what could not be done, as warnings:
// the wrapper prints them and goes on.
func (s *Service) RunEnded(ctx context.Context, r RunReport, old *agentstate.Record, now agentstate.Record) []string {
	return s.impl.runEnded(ctx, r, old, now)
}

func (s *Env) runEnded(ctx context.Context, r RunReport, old *agentstate.Record, now agentstate.Record) []string {
	ctx, cancel := context.WithTimeout(ctx, runEndTimeout)
	defer cancel()
	var warnings []string
	snap, err := s.ReadAndLearn(ctx)
	if err != nil {
		return append(warnings, "the agent's end is not logged: "+AsError(err).Message)
	}
	t, listed := Find(snap, r.Path)
	if !listed {
		return append(warnings, "the agent's end is not logged: git no longer lists "+Escape(r.Path))
	}
	if w := s.logRunEnd(ctx, t, r, old); w != "" {
		warnings = append(warnings, w)
	}
	// Read again: the event waited for the repository lock, which the create holds until
	// its claim is written (a command may end before that).
	if snap, err := s.ReadAndLearn(ctx); err == nil {
		t, listed = Find(snap, r.Path)
	}
	if c := ClaimOf(t.Locked); listed && c != nil && c.Session == r.Session {
		if w := s.releaseEnded(ctx, r); w != "" {
			warnings = append(warnings, w)
		}
	}
	if tgt, ok := notify.FromEnv(s.Opts.Getenv); ok {
		where := t.Branch
		if where == "" {
			where = filepath.Base(t.Path)
		}
		if _, err := notify.Transition(ctx, tgt, old, now, where); err != nil {
			warnings = append(warnings, "no notification: "+Escape(FirstLine(err.Error())))
		}
	}
	return warnings
}

// logRunEnd appends the agent.state … -> done event under the repository lock (its seq is
// handed out there); a warning when it could not.
func (s *Env) logRunEnd(ctx context.Context, t gitx.Worktree, r RunReport, old *agentstate.Record) string {
	cd, err := s.CommonDir(ctx)
	if err != nil {
		return "the agent's end is not logged: " + AsError(err).Message
	}
	prev := agentstate.Working
	if old != nil && old.State != "" {
		prev = old.State
	}
	code := r.ExitCode
	ws := ""
	if p, ok := s.Backend.(OwnPane); ok {
		ws = p.Pane()
	}
	ev := Event{Event: EventAgentState, Repo: s.Root(), Session: r.Session,
		Worktree: &EventWorktree{ID: IdOf(WorktreeIDs(cd), t.Path), Path: t.Path, Branch: t.Branch},
		Agent:    &eventlog.Agent{PID: r.PID, Command: r.Program, Workspace: ws, State: AgentDone, Previous: prev, ExitCode: &code}}
	release, err := s.lockRepo(ctx, cd, true)
	if err != nil {
		return "the agent's end is not logged: " + AsError(err).Message
	}
	defer release()
	if _, err := eventlog.Append(cd, ev); err != nil {
		return "event " + ev.Event + " not recorded in " + Escape(eventlog.Path(cd)) + ": " + Escape(err.Error())
	}
	return ""
}

// releaseEnded releases the claim of the ended command's session, as that session would.
func (s *Env) releaseEnded(ctx context.Context, r RunReport) string {
	p, err := s.prepare(ctx, ReleaseRequest{Path: Str(r.Path), Session: Str(r.Session)})
	if err == nil {
		_, err = s.execute(ctx, p)
	}
	if err != nil {
		return "the claim of session " + Escape(r.Session) + " is not released: " + AsError(err).Message
	}
	return ""
}

// runRecordsLock is the flock the wrapper's start and end reports take around their read
// and write of the record: the two run side by side, and a start that read no done record
// yet must not write its working one over the end's (the command would never have ended).
const runRecordsLock = ".run.lock"

// runRecordsLockWait bounds the wait for it; a report goes on without it after that (the
// holder is another report, which holds it for a read and a write).
const runRecordsLockWait = 5 * time.Second

// lockRunRecords takes the reports' flock in the store dir; the returned func releases it
// (a no-op when it could not be taken).
func lockRunRecords(dir string) func() {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return func() {}
	}
	unlock, err := flockFor(context.Background(), filepath.Join(dir, runRecordsLock), runRecordsLockWait)
	if err != nil {
		return func() {}
	}
	return unlock
}

// findRunRecord is the wrapper's record of session in the worktree at path, if any.
func findRunRecord(dir, session, path string) *agentstate.Record {
	recs, _ := agentstate.ReadAll(dir)
	for i := range recs {
		if r := recs[i]; r.Agent == runAgent && r.Session == session && Canonical(r.Cwd) == Canonical(path) {
			return &recs[i]
		}
	}
	return nil
}

// runEnds are the wrappers' records, by worktree and session, read once for a listing or
// a decision.
type runEnds map[string]agentstate.Record

func runEndKey(path, session string) string { return Canonical(path) + "\x00" + session }

func (s *Env) readRunEnds() runEnds {
	recs, _ := agentstate.ReadAll(agentstate.Dir(s.Opts.Getenv))
	out := runEnds{}
	for _, r := range recs {
		if r.Agent == runAgent && r.Source == agentstate.SourceWrapper && r.Session != "" && r.Cwd != "" {
			out[runEndKey(r.Cwd, r.Session)] = r
		}
	}
	return out
}

// ended reports a claim on path whose --run command ended: its wrapper recorded done, or
// recorded working with a process that is gone (the window was closed). A claim taken
// well after the wrapper's last word is a new one, not ended.
func (e runEnds) ended(path string, c *Claim) bool {
	if c == nil {
		return false
	}
	r, ok := e[runEndKey(path, c.Session)]
	if !ok || c.Since.After(r.Time.Add(time.Second)) {
		return false
	}
	return claimEndedBy(r, liveproc.Alive)
}

// claimEndedBy is the verdict on a wrapper's record: done, or working in a process alive
// says is gone.
func claimEndedBy(r agentstate.Record, alive func(pid int, start uint64) bool) bool {
	if r.State == agentstate.Done {
		return true
	}
	return r.PID > 0 && !alive(r.PID, r.Start)
}

// claimEnded reports that t's lock is a claim whose --run command ended.
func (s *Env) ClaimEnded(t gitx.Worktree) bool {
	c := ClaimOf(t.Locked)
	return c != nil && s.readRunEnds().ended(t.Path, c)
}

// markEnded sets Claim.Ended on rows whose claim ended.
func (s *Env) markEnded(rows []Worktree) {
	var ends runEnds
	for i := range rows {
		if rows[i].Claim == nil {
			continue
		}
		if ends == nil {
			ends = s.readRunEnds()
		}
		if ends.ended(rows[i].Path, rows[i].Claim) {
			rows[i].Claim.Ended = true
		}
	}
}

// QuickEnd waits, after a create --run, for the command to outlive quickExit: a command
// that ended sooner (its program missing, a usage error) is a failed start, returned as a
// warning with its exit status ("" when it still runs, or copse cannot tell). It reads the
// wrapper's records: the start record (written just before the command starts) sets the
// wait, the done record says how long the command ran.
func (s *Env) QuickEnd(ctx context.Context, session, path string, made time.Time) string {
	dir := agentstate.Dir(s.Opts.Getenv)
	deadline, seen := made.Add(quickStartWait), false
	for {
		r := findRunRecord(dir, session, path)
		if r != nil && !r.Time.Before(made.Add(-time.Second)) {
			switch {
			case r.State == agentstate.Done:
				return quickEndWarning(*r)
			case r.State == agentstate.Working && !seen:
				// The end report takes about as long to come as this one took: wait a
				// second from now, plus a margin of at least that latency (a loaded
				// machine slows both reports alike).
				seen, deadline = true, time.Now().Add(quickExit+max(wrapperMargin, time.Since(made)))
			}
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			return ""
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// quickStartWait bounds the wait for the wrapper's start record: a wrapper that never
// reports leaves create's reply without a verdict.
const quickStartWait = 5 * time.Second

// wrapperMargin is how much later than its start report the end report may come.
const wrapperMargin = 300 * time.Millisecond

// quickEndWarning is the failed start a done record shows, "" when its command ran long
// enough (or copse cannot tell how long).
func quickEndWarning(r agentstate.Record) string {
	if r.ExitCode == nil || r.Started.IsZero() || r.Time.Sub(r.Started) >= quickExit {
		return ""
	}
	what := "exit " + strconv.Itoa(*r.ExitCode)
	if *r.ExitCode == 127 {
		what += ": command not found"
	}
	return "the command ended within a second (" + what + "): the agent did not start; its claim is released, and the window keeps a shell"
}

// withoutEndedClaim is t as land judges its claim: a claim whose --run command ended is no
// claim (t.Locked nil); the clean-up still unlocks the worktree it finds locked.
func (s *Env) WithoutEndedClaim(t gitx.Worktree) gitx.Worktree {
	if t.Locked != nil && s.ClaimEnded(t) {
		t.Locked = nil
	}
	return t
}

// firstHand reports a source whose writer logs and notifies a change itself: the wrapper
// of a --run command, an agent's hook, copse's pi and Oh My Pi extensions.
func firstHand(source string) bool {
	switch source {
	case agentstate.SourceWrapper, agentstate.SourceHook, agentstate.SourceExtension:
		return true
	}
	return false
}

// notifyObserved notifies the changes to needs you or done an observer logged (list
// --watch, the picker's re-read): on the agent's tmux window, unless the person looks at
// it. Only under tmux; the mode is git config copse.notify.
func (s *Env) notifyObserved(ctx context.Context, events []Event) {
	nb, ok := s.Backend.(Notifier)
	if !ok {
		return
	}
	var mode notify.Mode
	for _, ev := range events {
		a := ev.Agent
		if a == nil || (a.State != AgentBlocked && a.State != AgentDone) || a.Workspace == "" {
			continue
		}
		if mode == "" {
			mode = s.notifyMode(ctx)
		}
		old := agentstate.Record{State: a.Previous}
		now := agentstate.Record{State: a.State, Program: a.Command, ExitCode: a.ExitCode}
		where := ""
		if ev.Worktree != nil {
			where = ev.Worktree.Branch
			if where == "" {
				where = filepath.Base(ev.Worktree.Path)
			}
		}
		_, _ = notify.Transition(ctx, nb.NotifyTarget(a.Workspace, mode), &old, now, where)
	}
}

// notifyMode is git config copse.notify (notify.Default when unset or unknown).
func (s *Env) notifyMode(ctx context.Context) notify.Mode {
	v, ok, err := s.Git.ConfigValue(ctx, s.Root(), "copse.notify")
	if err != nil || !ok {
		return notify.Default
	}
	m, _ := notify.ParseMode(v)
	return m
}
