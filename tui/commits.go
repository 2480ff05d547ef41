package tui

import (
	"context"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
)

// Each row's last commit (subject, age, author), read in the background with one git
// process for the whole list after every load, and kept by object id across reloads.

// commitsMsg answers commitsCmd for the load seq.
type commitsMsg struct {
	seq     int
	commits map[string]core.Commit
	err     error
}

func commitsCmd(ctx context.Context, svc *core.Service, seq int, oids []string) tea.Cmd {
	return func() tea.Msg {
		cs, err := svc.Commits(ctx, oids)
		return commitsMsg{seq: seq, commits: cs, err: err}
	}
}

// afterListing is what a fresh list starts besides statuses: its last commits, the sort
// order once, and the watch for worktree changes.
func (m *Model) afterListing() tea.Cmd {
	m.fillCommits()
	m.fillDivergence()
	if m.svc == nil {
		return nil
	}
	var oids []string
	for _, r := range m.rows {
		if r.wt.Head != "" && !r.wt.Bare {
			oids = append(oids, r.wt.Head)
		}
	}
	cmds := []tea.Cmd{commitsCmd(m.ctx, m.svc, m.loadSeq, oids), m.startWatch(), m.divergenceOf()}
	if !m.views.sortRead {
		m.views.sortRead = true
		cmds = append(cmds, readSortCmd(m.ctx, m.svc))
	}
	return tea.Batch(cmds...)
}

// fillCommits gives each row its commit from what is known.
func (m *Model) fillCommits() {
	for i := range m.rows {
		if c, ok := m.views.commits[m.rows[i].wt.Head]; ok {
			m.rows[i].last = &c
			m.rows[i].lastAge = age(m.now(), c.When)
		} else {
			m.rows[i].last, m.rows[i].lastAge = nil, ""
		}
	}
}

func (m Model) onCommits(msg commitsMsg) Model {
	if msg.seq != m.loadSeq || msg.err != nil {
		return m // a later load asks again; without commits rows simply show none
	}
	if m.views.commits == nil {
		m.views.commits = map[string]core.Commit{}
	}
	for o, c := range msg.commits {
		m.views.commits[o] = c
	}
	m.fillCommits()
	if m.sortOrder() == core.SortRecent {
		m.resort()
	}
	m.measure()
	return m
}

// age is how long ago t was, in one short unit: now, 5m, 2h, 3d, 7w, 2y.
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	case d < 60*24*time.Hour:
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	case d < 2*365*24*time.Hour:
		return strconv.Itoa(int(d/(7*24*time.Hour))) + "w"
	}
	return strconv.Itoa(int(d/(365*24*time.Hour))) + "y"
}

// minCommitW is the least room (age and a few characters of subject) worth drawing.
const minCommitW = 16

// lastCommit draws the row's last commit, age then subject, in what is left of the row.
func (w *rowWriter) lastCommit(r row, width int, st *Styles) {
	room := width - w.used - colGap
	if r.last == nil || room < minCommitW {
		return
	}
	w.space(colGap)
	a := r.lastAge
	w.space(4 - len(a))
	w.styled(st.Age, a, len(a))
	w.space(1)
	subj := oneLine(r.last.Subject)
	w.column(st.Path, subj, textsafe.Width(subj), room-5, cut)
}
