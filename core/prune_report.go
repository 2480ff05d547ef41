package core

import (
	"fmt"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// PruneReport is what prune did, or with dry_run would do.
type PruneReport struct {
	OlderThan string       `json:"older_than"` // the idle threshold used, as people write it: "72h", "14d", "never"
	Removed   []PruneEntry `json:"removed"`    // removed (dry run: would be)
	Forgotten []PruneEntry `json:"forgotten"`  // directory gone; git worktree prune forgets the entry
	Kept      []PruneEntry `json:"kept"`       // kept, each with its reason
	// Records past their keep time, dropped (dry run: would be): `copse restore` records
	// older than copse.keepRemoved, and landed or failed land jobs that ended longer than
	// copse.keepLands ago (both 14 days unless set).
	DroppedRestores []string `json:"dropped_restore_records,omitempty"`
	DroppedLands    []string `json:"dropped_land_records,omitempty"`
}

// PruneEntry is one worktree in the report.
type PruneEntry struct {
	ID            string `json:"id,omitempty"`
	Path          string `json:"path"`
	Branch        string `json:"branch,omitempty"`
	Reason        string `json:"reason"`           // a stable code, see PruneReasons
	Detail        string `json:"detail,omitempty"` // the same for people, escaped
	Idle          string `json:"idle,omitempty"`   // how long nothing happened there
	BranchDeleted bool   `json:"branch_deleted,omitempty"`
	RestoreID     string `json:"restore_id,omitempty"` // removed: `copse restore ID` brings it back
}

// Reason codes of PruneEntry: why a worktree goes, or why it stays.
const (
	PruneIdle         = "idle"           // removed: idle long enough and nothing to lose
	PruneGone         = "directory_gone" // forgotten: the directory no longer exists
	KeepMain          = "main"
	KeepCurrent       = "current"
	KeepClaimed       = "claimed"
	KeepLocked        = "locked" // a lock copse did not write (a human's)
	KeepLanding       = "landing"
	KeepBlocked       = "blocked" // its last land is blocked
	KeepMidOperation  = "mid_operation"
	KeepDirty         = "dirty"
	KeepStatusUnknown = "status_unknown"
	KeepUniqueCommits = "unique_commits"
	KeepNested        = "nested"    // a nested repository git does not track
	KeepSubmodule     = "submodule" // a submodule's commits on no remote, in a git directory that goes with the worktree
	KeepNotIdle       = "not_idle"
	KeepProcesses     = "processes"     // a process works in it: activity, whatever the files say
	KeepNotConfirmed  = "not_confirmed" // became prunable after the confirmation was shown
	KeepRemoveRefused = "remove_refused"
	DefaultPruneAfter = 72 * time.Hour
	PruneAfterConfig  = "copse.pruneAfter"
)

// pruneKeep is why prune keeps a worktree given what removing it would lose ("" when
// nothing would be): the same losses remove refuses on, each with its reason.
func PruneKeep(t gitx.Worktree, l Losses) (string, string) {
	switch {
	case l.Operation != "":
		return KeepMidOperation, "a " + l.Operation + " in progress"
	case l.Status.Error != "":
		return KeepStatusUnknown, "cannot tell what removing it would lose: " + l.Status.Error
	case l.Status.Dirty():
		return KeepDirty, "uncommitted changes: " + l.Changes()
	case len(l.Hidden) > 0:
		return KeepDirty, fmt.Sprintf("%s git status does not show (assume-unchanged or skip-worktree): %s",
			Plural(len(l.Hidden), "changed file"), Sample(l.Hidden, len(l.Hidden)))
	case len(l.Nested) > 0:
		return KeepNested, fmt.Sprintf("%s git does not track: %s", Plural(len(l.Nested), "nested repository"), l.nestedNames())
	case len(l.Submodules) > 0:
		return KeepSubmodule, fmt.Sprintf("%s whose git directory goes with it: %s", Plural(len(l.Submodules), "submodule"), HeldNames(l.Submodules))
	case l.Detached > 0:
		return KeepUniqueCommits, fmt.Sprintf("%s on no branch, tag or remote (detached at %s)", Plural(l.Detached, "commit"), Short(t.Head))
	case l.Reflog > 0:
		return KeepUniqueCommits, fmt.Sprintf("%s only its HEAD reflog holds", Plural(l.Reflog, "commit"))
	case l.RefCommits > 0:
		return KeepUniqueCommits, fmt.Sprintf("%s only its per-worktree refs hold: %s", Plural(l.RefCommits, "commit"), Sample(l.WorktreeRefs, len(l.WorktreeRefs)))
	case l.Unique > 0:
		return KeepUniqueCommits, fmt.Sprintf("%s on no other branch or remote", Plural(l.Unique, "commit"))
	}
	return "", ""
}

// liveDetail is why prune keeps a worktree processes work in.
func LiveDetail(l LiveSet) string {
	return fmt.Sprintf("%s working in it: %s", Plural(len(l.Procs), "process"), DescribeProcs(l.Procs))
}

func FirstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
