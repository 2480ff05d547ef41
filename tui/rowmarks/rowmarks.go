// Package rowmarks is the one vocabulary for what a worktree row says about its state: the
// markers (main, rebasing, ⚑ claimed, locked, prunable, [workspace], each agent's state word, N proc, a land job) and the badges
// (✚ changes, ✖ conflicts, ↑ ahead, ↓ behind, rebase, merge, ✓ clean, ? unknown). Both
// `copse list` and the picker build their rows from it, so the same state reads the same
// in both. It returns plain, already escaped text with a semantic Kind per piece; it must
// never style, measure a layout or print: each front end paints a Kind its own way (cli
// with ANSI codes, tui with lipgloss).
package rowmarks

import (
	"strconv"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
)

// Kind says what a piece means; front ends map it to a colour.
type Kind int

const (
	Main      Kind = iota // the main checkout
	Progress              // a rebase, bisect or merge in progress
	Claimed               // claimed by an agent session (copse claim)
	Locked                // locked by something other than a claim
	Prunable              // git would prune it: its directory is gone
	Workspace             // open in a Herdr workspace
	Changes               // uncommitted changes (staged, unstaged, untracked)
	Conflicts             // files with merge conflicts
	Ahead                 // commits ahead of the upstream
	Behind                // commits behind the upstream
	Clean                 // status computed and clean
	Pending               // status asked for and not back yet
	Unknown               // status could not be computed
	Blocked               // a land that stopped and needs its owner
	Live                  // processes work in it (remove, prune and land's clean-up keep it)
	NeedsYou              // an agent there waits for a person (core.AgentBlocked)
	Working               // an agent there works (core.AgentWorking)
	Idle                  // an agent there waits for its next prompt (core.AgentIdle)
	Done                  // an agent there ended with exit status 0 (core.AgentDone)
	Failed                // an agent there ended with another exit status
	Unread                // a done agent nobody looked at since it ended
)

// Piece is one marker or badge. Text is what every row shows, escaped and short; Detail is
// the escaped reason behind it (why it is locked or prunable, why the status is unknown),
// for a renderer with room for it: the picker shows it on its detail line, `copse list`
// through Long.
type Piece struct {
	Text   string
	Kind   Kind
	Detail string
}

// MaxSession bounds the session a ⚑ marker shows on a screen; the full name is in the
// detail line, in piped `copse list` (WholeMarkers) and in `copse list --json`.
const MaxSession = 16

// Long is the piece with its reason, for a one-line listing without a detail line:
// "locked: on a USB drive", "status unknown: permission denied".
func (p Piece) Long() string {
	if p.Detail == "" {
		return p.Text
	}
	label := p.Text
	if p.Kind == Unknown {
		label = "status unknown"
	}
	return label + ": " + p.Detail
}

// Markers are what a worktree is, independent of its status: the main checkout, a rebase
// or bisect holding its branch, a claim (or else a lock), prunable, an open workspace.
func Markers(wt core.Worktree) []Piece { return markers(wt, MaxSession) }

// WholeMarkers are Markers with the claim's session whole, for output a program or a
// person copies from (piped `copse list`): `copse release --session` needs all of it.
func WholeMarkers(wt core.Worktree) []Piece { return markers(wt, 0) }

// markers builds Markers; session > 0 bounds the claim's session to that many cells.
func markers(wt core.Worktree, session int) []Piece {
	var out []Piece
	if wt.Main {
		out = append(out, Piece{Text: "main", Kind: Main})
	}
	if wt.Rebasing {
		out = append(out, Piece{Text: "rebasing", Kind: Progress})
	}
	if wt.Bisecting {
		out = append(out, Piece{Text: "bisecting", Kind: Progress})
	}
	if c := wt.Claim; c != nil {
		who := textsafe.Escape(c.Session)
		if session > 0 {
			who = textsafe.Cut(who, session)
		}
		p := Piece{Text: "⚑ " + who, Kind: Claimed}
		if c.Ended {
			// The --run command that held it ended: remove, prune and land go ahead.
			p.Text += " (ended)"
		}
		out = append(out, p)
	} else if wt.Locked != nil {
		text := "locked"
		if wt.LockStale {
			text = "locked (stale)" // an agent's lock whose session has ended
		}
		out = append(out, Piece{Text: text, Kind: Locked, Detail: textsafe.Escape(*wt.Locked)})
	}
	if wt.Prunable != nil {
		out = append(out, Piece{Text: "prunable", Kind: Prunable, Detail: textsafe.Escape(*wt.Prunable)})
	}
	if ws := wt.WorkspaceID; ws != nil && *ws != "" {
		out = append(out, Piece{Text: "[" + textsafe.Escape(*ws) + "]", Kind: Workspace})
	}
	out = append(out, Agents(wt)...)
	if n := wt.Processes; n != nil && *n > 0 {
		out = append(out, Piece{Text: strconv.Itoa(*n) + " proc", Kind: Live})
	}
	return out
}

// MaxProgram bounds an agent's program name on a row.
const MaxProgram = 16

// Agents are the state words of a worktree's agents, one piece each, its program first:
// "claude working", "pi needs you", "idle", "codex done (exit 2)"; a done agent nobody has
// looked at since is marked "●" until its worktree is opened. Processes that are only
// known to run (outside any window) and agents in no known state are counted by the
// "N proc" marker, not named here.
func Agents(wt core.Worktree) []Piece {
	var out []Piece
	for _, a := range wt.Agents {
		var p Piece
		switch a.State {
		case core.AgentBlocked:
			p = Piece{Text: "needs you", Kind: NeedsYou}
		case core.AgentWorking:
			p = Piece{Text: "working", Kind: Working}
		case core.AgentIdle:
			p = Piece{Text: "idle", Kind: Idle}
		case core.AgentDone:
			p = Piece{Text: "done", Kind: Done}
			if a.ExitCode != nil && *a.ExitCode != 0 {
				p = Piece{Text: "done (exit " + strconv.Itoa(*a.ExitCode) + ")", Kind: Failed}
			}
		default:
			continue
		}
		if name := Program(a); name != "" {
			p.Text = name + " " + p.Text
		}
		if a.State == core.AgentDone && a.Unread {
			p.Text, p.Kind = "● "+p.Text, Unread
		}
		out = append(out, p)
	}
	return out
}

// Program is the name an agent row shows for its program: the base name of its command,
// escaped and bounded, never the text of a wrapper copse or a shell put around it ("" then,
// and when unknown).
func Program(a core.Agent) string {
	name := a.Command
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	switch strings.TrimPrefix(name, "-") {
	case "", "copse-run", "copse", "sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "ash", "busybox":
		return ""
	}
	return textsafe.Cut(textsafe.Escape(name), MaxProgram)
}

// Badges are the status of a worktree: ✚ uncommitted changes other than conflicts, ✖
// conflicts, ↑ ahead, ↓ behind, a rebase (unless a marker already says so) or a merge in
// progress, and ✓ when none of these. A status that failed is "?", never clean; pending is
// "…" when the status was asked for and is not back yet. A prunable worktree or a bare
// repository has no status to show: the marker says why.
func Badges(wt core.Worktree, pending bool) []Piece {
	s := wt.Status
	switch {
	case wt.Prunable != nil || wt.Bare:
		return nil
	case s == nil && pending:
		return []Piece{{Text: "…", Kind: Pending}}
	case s == nil:
		return nil
	case s.Error != "":
		return []Piece{{Text: "?", Kind: Unknown, Detail: textsafe.Escape(s.Error)}}
	}
	var out []Piece
	count := func(sign string, n int, k Kind) {
		if n > 0 {
			out = append(out, Piece{Text: sign + strconv.Itoa(n), Kind: k})
		}
	}
	count("✚", s.Changes()-s.Conflicted, Changes)
	count("✖", s.Conflicted, Conflicts)
	count("↑", s.Ahead, Ahead)
	count("↓", s.Behind, Behind)
	if s.Rebasing && !wt.Rebasing {
		out = append(out, Piece{Text: "rebase", Kind: Progress})
	}
	if s.Merging {
		out = append(out, Piece{Text: "merge", Kind: Progress})
	}
	if len(out) == 0 {
		out = append(out, Piece{Text: "✓", Kind: Clean})
	}
	return out
}

// LandShown reports a land job worth a row's marker: queued or running, or ended in a way
// its owner must act on (blocked, abandoned, uncertain). One that landed or failed to
// start says nothing more about the worktree.
func LandShown(j *core.LandJob) bool {
	if j == nil {
		return false
	}
	switch j.State {
	case core.LandQueued, core.LandRunning, core.LandBlocked, core.LandAbandoned, core.LandUncertain:
		return true
	}
	return false
}

// Land is the marker of a worktree's land job: its place in the queue, the phase it runs,
// or why it stopped (blocked, cancelled, uncertain); the detail line says more.
func Land(j *core.LandJob) Piece {
	switch j.State {
	case core.LandQueued:
		return Piece{Text: "land #" + strconv.Itoa(j.Position), Kind: Progress}
	case core.LandRunning:
		return Piece{Text: "landing: " + textsafe.Escape(string(j.Phase)), Kind: Progress}
	case core.LandBlocked:
		return Piece{Text: "blocked: " + textsafe.Escape(j.Code), Kind: Blocked}
	}
	return Piece{Text: "land " + textsafe.Escape(string(j.State)), Kind: Blocked}
}

// Label is what a row's branch column shows, branch first: the branch (escaped), also while
// a rebase or bisect holds it (git then lists the worktree as detached), "(detached
// abc1234)" for a detached HEAD, or "(bare)".
func Label(wt core.Worktree) string {
	switch {
	case wt.Bare:
		return "(bare)"
	case wt.Branch != "" && (wt.Rebasing || wt.Bisecting):
		return textsafe.Escape(wt.Branch)
	case wt.Detached || wt.Branch == "":
		return "(detached " + ShortHash(wt.Head) + ")"
	}
	return textsafe.Escape(wt.Branch)
}

// ShortHash is the 7-character abbreviation rows show for a commit.
func ShortHash(oid string) string {
	if len(oid) > 7 {
		return oid[:7]
	}
	return oid
}
