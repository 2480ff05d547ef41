package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/copse-dev/copse/core"
)

// row is one worktree as the picker shows it. The display strings are computed once when
// the listing arrives (escaped, home as ~), not on every frame.
type row struct {
	wt       core.Worktree
	label    string          // branch, or "(detached abc1234)"; escaped
	path     string          // escaped, home shown as ~
	labelW   int             // display cells of label
	pathW    int             // display cells of path
	pending  bool            // status requested and not back yet
	current  bool            // this session is here (the ● marker): core's SessionPath, else wt.Current
	filterOn string          // what the fuzzy filter matches: label and path
	hl       []int           // byte offsets in label the filter matched (highlighted)
	last     *core.Commit    // the head commit, once read (subject and age on wide rows)
	lastAge  string          // its age when read: 2h, 3d
	vsMain   *mainDivergence // ahead/behind the main branch, once computed

	// land is a land job worth showing (queued, running, blocked…), see land.go.
	land *core.LandJob
}

func newRow(wt core.Worktree, home string) row {
	r := row{wt: wt, label: branchLabel(wt), path: core.Escape(tildePath(wt.Path, home))}
	r.labelW = ansi.StringWidth(r.label)
	r.pathW = ansi.StringWidth(r.path)
	r.filterOn = r.label + " " + r.path
	return r
}

// branchLabel is what the branch column shows: branch first, as the design asks.
func branchLabel(wt core.Worktree) string {
	switch {
	case wt.Bare:
		return "(bare)"
	case wt.Branch != "" && (wt.Rebasing || wt.Bisecting):
		return core.Escape(wt.Branch) // git lists it detached; the rebase or bisect holds the branch
	case wt.Detached || wt.Branch == "":
		return "(detached " + shortHash(wt.Head) + ")"
	}
	return core.Escape(wt.Branch)
}

func shortHash(oid string) string {
	if len(oid) > 7 {
		return oid[:7]
	}
	return oid
}

// tildePath shows the home directory as ~ so paths fit; only a whole leading component
// is replaced, never a prefix of a longer name (/home/al vs /home/alice).
func tildePath(p, home string) string {
	if home == "" || home == "/" {
		return p
	}
	home = strings.TrimSuffix(home, "/")
	if p == home {
		return "~"
	}
	if strings.HasPrefix(p, home+"/") {
		return "~" + p[len(home):]
	}
	return p
}

// seg is a piece of plain text and the style it is drawn with. Rows are built from
// segments so widths are measured on plain text and styling happens once, at the end.
type seg struct {
	text string
	ink  Ink
}

func segsWidth(ss []seg) int {
	n := 0
	for i, s := range ss {
		if i > 0 {
			n++
		}
		n += ansi.StringWidth(s.text)
	}
	return n
}

// badges are the status column: uncommitted count, ahead/behind, conflicts, and a rebase
// or merge in progress. A row whose status failed shows "?" (it is never shown as clean).
func badges(r row, st *Styles) []seg {
	s := r.wt.Status
	switch {
	case r.wt.Prunable != nil || r.wt.Bare:
		return nil
	case s == nil && r.pending:
		return []seg{{"…", st.Pending}}
	case s == nil:
		return nil
	case s.Error != "":
		return []seg{{"?", st.StatusErr}}
	}
	var out []seg
	if c := s.Changes() - s.Conflicted; c > 0 {
		out = append(out, seg{"✚" + strconv.Itoa(c), st.Changes})
	}
	if s.Conflicted > 0 {
		out = append(out, seg{"✖" + strconv.Itoa(s.Conflicted), st.Conflict})
	}
	if s.Ahead > 0 {
		out = append(out, seg{"↑" + strconv.Itoa(s.Ahead), st.Ahead})
	}
	if s.Behind > 0 {
		out = append(out, seg{"↓" + strconv.Itoa(s.Behind), st.Behind})
	}
	if s.Rebasing && !r.wt.Rebasing { // a row on a rebased branch says so in its tags
		out = append(out, seg{"rebase", st.Progress})
	}
	if s.Merging {
		out = append(out, seg{"merge", st.Progress})
	}
	if len(out) == 0 {
		out = append(out, seg{"✓", st.Clean})
	}
	return out
}

// tags are the row's markers: main checkout, locked, prunable and an open Herdr workspace.
// The lock and prune reasons go to the detail line, where there is room for them.
func tags(r row, st *Styles) []seg {
	var out []seg
	if r.wt.Main {
		out = append(out, seg{"main", st.TagMain})
	}
	if r.wt.Rebasing {
		out = append(out, seg{"rebasing", st.Progress})
	}
	if r.wt.Bisecting {
		out = append(out, seg{"bisecting", st.Progress})
	}
	if c := r.wt.Claim; c != nil {
		out = append(out, seg{"⚑ " + cut(core.Escape(c.Session), maxClaimTag), st.TagLocked})
	} else if r.wt.Locked != nil {
		out = append(out, seg{"locked", st.TagLocked})
	}
	if r.wt.Prunable != nil {
		out = append(out, seg{"prunable", st.TagPrunable})
	}
	if r.wt.WorkspaceID != nil && *r.wt.WorkspaceID != "" {
		out = append(out, seg{"[" + core.Escape(*r.wt.WorkspaceID) + "]", st.TagWS})
	}
	if r.land != nil {
		out = append(out, landTag(r.land, st))
	}
	return out
}

// detailParts describes the selected row beyond what its line shows: where it is (on
// narrow terminals), the commit, the uncommitted breakdown, upstream, and why it is locked
// or prunable. Every value from git is escaped.
func detailParts(r row, narrow bool) []string {
	var parts []string
	if narrow {
		parts = append(parts, r.path)
	}
	if !r.wt.Detached && r.wt.Head != "" {
		parts = append(parts, shortHash(r.wt.Head))
	}
	if r.land != nil {
		// What a land needs from its owner comes before the status details.
		parts = append(parts, landDetail(r.land))
	}
	if r.last != nil && r.last.Author != "" {
		when := r.lastAge + " ago"
		if r.lastAge == "now" {
			when = "just now"
		}
		parts = append(parts, "by "+oneLine(r.last.Author)+" "+when)
	}
	if d := r.vsMain; d != nil {
		parts = append(parts, core.Escape(d.branch)+aheadBehind(d.Ahead, d.Behind))
	}
	if s := r.wt.Status; s != nil {
		if s.Error != "" {
			parts = append(parts, "status unknown: "+core.Escape(s.Error))
		}
		var counts []string
		for _, c := range []struct {
			n    int
			name string
		}{{s.Staged, "staged"}, {s.Unstaged, "unstaged"}, {s.Untracked, "untracked"}, {s.Conflicted, "conflicted"}} {
			if c.n > 0 {
				counts = append(counts, strconv.Itoa(c.n)+" "+c.name)
			}
		}
		if len(counts) > 0 {
			parts = append(parts, strings.Join(counts, ", "))
		}
		if s.Upstream != "" {
			parts = append(parts, "upstream "+core.Escape(s.Upstream)+aheadBehind(s.Ahead, s.Behind))
		}
		if s.Rebasing {
			parts = append(parts, "rebase in progress")
		}
		if s.Merging {
			parts = append(parts, "merge in progress")
		}
	}
	if c := r.wt.Claim; c != nil {
		parts = append(parts, "claimed by "+core.Escape(c.Session)+" since "+c.Since.UTC().Format("2006-01-02 15:04Z"))
	} else if l := r.wt.Locked; l != nil {
		if *l != "" {
			parts = append(parts, "locked: "+core.Escape(*l))
		} else {
			parts = append(parts, "locked")
		}
	}
	if p := r.wt.Prunable; p != nil {
		if *p != "" {
			parts = append(parts, "prunable: "+core.Escape(*p))
		} else {
			parts = append(parts, "prunable")
		}
	}
	if ws := r.wt.WorkspaceID; ws != nil && *ws != "" {
		parts = append(parts, "workspace "+core.Escape(*ws))
	}
	return parts
}
