package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
)

// claimPruneStatus says what a claim, release or prune did. Prune names what it removed and
// sums up what it kept by reason (the confirmation listed each kept worktree).
func claimPruneStatus(op core.Operation, out *core.Outcome, home string) statusLine {
	if out == nil {
		return infoStatus(string(op) + " done")
	}
	where := textsafe.Escape(tildePath(out.Path, home))
	switch op {
	case core.OpClaim:
		var st statusLine
		switch {
		case out.Claim != nil && out.Previous != "":
			st = infoStatus("claimed " + where + " for " + textsafe.Escape(out.Claim.Session) + " (taken over from " + textsafe.Escape(out.Previous) + ")")
		case out.Claim != nil:
			st = infoStatus("claimed " + where + " for " + textsafe.Escape(out.Claim.Session))
		default:
			st = infoStatus("already claimed: " + where)
		}
		st.addWarnings(out.Warnings)
		return st
	case core.OpRelease:
		st := infoStatus("released " + where)
		st.addWarnings(out.Warnings)
		return st
	}
	rep := out.Prune
	if rep == nil {
		return infoStatus("pruned")
	}
	byReason := map[string]int{}
	for _, e := range rep.Kept {
		byReason[strings.ReplaceAll(e.Reason, "_", " ")]++
	}
	reasons := make([]string, 0, len(byReason))
	for r := range byReason {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	kept := make([]string, 0, len(reasons))
	for _, r := range reasons {
		kept = append(kept, fmt.Sprintf("%d %s", byReason[r], r))
	}
	msg := "nothing to prune"
	if n, f := len(rep.Removed), len(rep.Forgotten); n+f > 0 {
		msg = fmt.Sprintf("pruned %d worktrees", n)
		if f > 0 {
			msg += fmt.Sprintf(", forgot %d gone", f)
		}
	}
	if len(kept) > 0 {
		msg += "; kept " + strings.Join(kept, ", ")
	}
	st := infoStatus(msg)
	st.addWarnings(out.Warnings)
	return st
}
