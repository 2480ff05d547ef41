package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
)

// The preview (p or tab): the selected worktree's changed files, its last commits and its
// diffstat against its base (the merge-base with the main branch), read by core in a
// tea.Cmd and shown in a scrolling viewport.

type previewState struct {
	path, label string
	seq         int
	loading     bool
	vp          viewport.Model
	// land is the row's land job when it ended in a way its owner must act on (blocked,
	// abandoned…): read by core with the land records (landJobsCmd), not here.
	land *core.LandJob
}

// previewMsg is core's preview of the worktree asked for by seq.
type previewMsg struct {
	seq     int
	preview *core.Preview
	err     error
}

func previewCmd(ctx context.Context, svc *core.Service, seq int, path, mainBranch string) tea.Cmd {
	return func() tea.Msg {
		p, err := svc.Preview(ctx, path, mainBranch)
		return previewMsg{seq: seq, preview: p, err: err}
	}
}

// mainBranch is the main checkout's branch: what "base" means for the diffstat and the
// detail line's ahead/behind.
func (m Model) mainBranch() string {
	for _, r := range m.rows {
		if r.wt.Main && !r.wt.Detached {
			return r.wt.Branch
		}
	}
	return ""
}

func (m Model) openPreview(r row) (Model, tea.Cmd) {
	if r.wt.Prunable != nil || r.wt.Bare {
		m.status = statusLine{kind: statusError, msg: "nothing to preview in " + r.path, hint: "it has no working directory"}
		return m, nil
	}
	m.views.previewSeq++
	p := &previewState{path: r.wt.Path, label: r.label, seq: m.views.previewSeq, loading: true, vp: viewport.New()}
	if r.land != nil && r.land.State.Finished() {
		j := *r.land
		p.land = &j
	}
	m.views.preview = p
	m.mode = modePreview
	if m.svc == nil {
		return m, nil
	}
	return m, previewCmd(m.ctx, m.svc, p.seq, r.wt.Path, m.mainBranch())
}

func (m Model) onPreview(msg previewMsg) Model {
	p := m.views.preview
	if p == nil || msg.seq != p.seq {
		return m
	}
	p.loading = false
	p.vp.SetWidth(m.w())
	p.vp.SetHeight(m.panelHeight())
	lines := previewLines(msg.preview, msg.err, &m.styles)
	if p.land != nil {
		lines = append(landLines(p.land, &m.styles), append([]string{""}, lines...)...)
	}
	p.vp.SetContent(strings.Join(lines, "\n"))
	return m
}

// previewLines lays the preview out in sections; values arrive escaped from core.
func previewLines(p *core.Preview, err error, st *Styles) []string {
	if err != nil {
		e := core.AsError(err)
		return []string{st.StatusError.Render(oneLine(e.Message))}
	}
	var out []string
	section := func(title string, lines []string, empty string) {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, st.FormTitle.Render(title))
		if len(lines) == 0 {
			out = append(out, st.Empty.Render("  "+empty))
		}
		for _, l := range lines {
			out = append(out, "  "+oneLine(l))
		}
	}
	section("Changes", p.Status, "none")
	section("Last commits", p.Log, "none")
	if p.Base != "" {
		section("Against "+p.Base, p.DiffStat, "no difference")
	}
	for _, pr := range p.Problems {
		out = append(out, st.StatusWarn.Render("! "+oneLine(pr)))
	}
	return out
}

// landLines is the preview's land section: the job, its phase and why it stopped, and
// for a failed test gate the end of its log (escaped by core).
func landLines(j *core.LandJob, st *Styles) []string {
	title := fmt.Sprintf("Land %s %s in %s", j.Job, j.State, j.Phase)
	if j.Code != "" {
		title += " (" + j.Code + ")"
	}
	out := []string{st.FormTitle.Render(oneLine(title)), st.StatusError.Render("  " + oneLine(j.Message))}
	if j.Hint != "" {
		out = append(out, "  hint: "+oneLine(j.Hint))
	}
	if len(j.LogTail) > 0 {
		out = append(out, "", st.FormTitle.Render(oneLine(fmt.Sprintf("Last %d lines of %s", len(j.LogTail), textsafe.Escape(j.Log)))))
		for _, l := range j.LogTail {
			out = append(out, "  "+oneLine(l))
		}
	}
	return out
}

func (m Model) previewKey(k tea.KeyPressMsg) (Model, tea.Cmd) {
	p := m.views.preview
	ks := m.keys
	if p == nil {
		m.mode = modeList
		return m, nil
	}
	p.vp.SetHeight(m.panelHeight())
	switch {
	case key.Matches(k, ks.ForceQuit):
		mm, cmd := m.quit()
		return mm.(Model), cmd
	case key.Matches(k, ks.ScrollUp):
		if k.String() == "pgup" {
			p.vp.PageUp()
		} else {
			p.vp.ScrollUp(1)
		}
	case key.Matches(k, ks.ScrollDown):
		if k.String() == "pgdown" {
			p.vp.PageDown()
		} else {
			p.vp.ScrollDown(1)
		}
	case key.Matches(k, ks.ClosePanel), key.Matches(k, ks.Preview):
		m.views.preview = nil
		m.mode = modeList
		m.clampCursor()
	}
	return m, nil
}

func (p *previewState) view(st *Styles, w, h int) []string {
	out := []string{st.Header.Render(cut("Preview of "+p.label, w))}
	if p.loading {
		return append(out, st.Empty.Render(cut("  reading…", w)))
	}
	vp := p.vp
	vp.SetWidth(w)
	vp.SetHeight(max(1, h-1))
	return append(out, strings.Split(vp.View(), "\n")...)
}
