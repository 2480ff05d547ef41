package tui

import (
	"strconv"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/copse-dev/copse/tui/rowmarks"
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
	r := row{wt: wt, label: rowmarks.Label(wt), path: textsafe.Escape(tildePath(wt.Path, home))}
	r.labelW = textsafe.Width(r.label)
	r.pathW = textsafe.Width(r.path)
	r.filterOn = r.label + " " + r.path
	return r
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
		n += textsafe.Width(s.text)
	}
	return n
}

// badges are the status column and tags the row's markers, in the vocabulary copse list
// shares (package rowmarks); the reasons behind a lock, a prune or an unknown status go to
// the detail line, where there is room for them.
func badges(r row, st *Styles) []seg { return inked(rowmarks.Badges(r.wt, r.pending), st) }

func tags(r row, st *Styles) []seg {
	ps := rowmarks.Markers(r.wt)
	if r.land != nil {
		ps = append(ps, rowmarks.Land(r.land))
	}
	return inked(ps, st)
}

func inked(ps []rowmarks.Piece, st *Styles) []seg {
	out := make([]seg, len(ps))
	for i, p := range ps {
		out[i] = seg{p.Text, st.kindInk(p.Kind)}
	}
	return out
}

// kindInk is the style of a marker or badge of that kind.
func (st *Styles) kindInk(k rowmarks.Kind) Ink {
	switch k {
	case rowmarks.Main:
		return st.TagMain
	case rowmarks.Progress, rowmarks.Live:
		return st.Progress
	case rowmarks.Claimed, rowmarks.Locked:
		return st.TagLocked
	case rowmarks.Prunable:
		return st.TagPrunable
	case rowmarks.Workspace:
		return st.TagWS
	case rowmarks.Changes:
		return st.Changes
	case rowmarks.Conflicts, rowmarks.Blocked, rowmarks.NeedsYou:
		return st.Conflict
	case rowmarks.Ahead:
		return st.Ahead
	case rowmarks.Behind:
		return st.Behind
	case rowmarks.Clean:
		return st.Clean
	case rowmarks.Pending, rowmarks.Idle:
		return st.Pending
	case rowmarks.Working:
		return st.Ahead
	case rowmarks.Done:
		return st.Clean
	case rowmarks.Failed:
		return st.Conflict
	case rowmarks.Unread:
		return st.Cursor
	}
	return st.StatusErr
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
		parts = append(parts, rowmarks.ShortHash(r.wt.Head))
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
		parts = append(parts, textsafe.Escape(d.branch)+aheadBehind(d.Ahead, d.Behind))
	}
	if s := r.wt.Status; s != nil {
		if s.Error != "" {
			parts = append(parts, "status unknown: "+textsafe.Escape(s.Error))
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
			parts = append(parts, "upstream "+textsafe.Escape(s.Upstream)+aheadBehind(s.Ahead, s.Behind))
		}
		if s.Rebasing {
			parts = append(parts, "rebase in progress")
		}
		if s.Merging {
			parts = append(parts, "merge in progress")
		}
	}
	if c := r.wt.Claim; c != nil {
		parts = append(parts, "claimed by "+textsafe.Escape(c.Session)+" since "+c.Since.UTC().Format("2006-01-02 15:04Z"))
	} else if l := r.wt.Locked; l != nil {
		if *l != "" {
			parts = append(parts, "locked: "+textsafe.Escape(*l))
		} else {
			parts = append(parts, "locked")
		}
	}
	if p := r.wt.Prunable; p != nil {
		if *p != "" {
			parts = append(parts, "prunable: "+textsafe.Escape(*p))
		} else {
			parts = append(parts, "prunable")
		}
	}
	if ws := r.wt.WorkspaceID; ws != nil && *ws != "" {
		parts = append(parts, "workspace "+textsafe.Escape(*ws))
	}
	return parts
}
