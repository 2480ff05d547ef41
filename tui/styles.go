package tui

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// palette is the semantic colour set. It is the only place colour literals live; every
// style below is derived from it, so light and dark themes differ only here.
type palette struct {
	text, muted, subtle  color.Color
	accent, selectionBg  color.Color
	good, warn, bad, inf color.Color
	// helpDesc is the help bar's text: bubbles' default greys fall below a readable
	// contrast (WCAG 4.5:1) on common backgrounds; TestHelpContrast keeps this one above.
	helpDesc color.Color
}

func newPalette(isDark bool) palette {
	ld := lipgloss.LightDark(isDark)
	c := lipgloss.Color
	return palette{
		text:        ld(c("#1F1F28"), c("#E6E6EF")),
		muted:       ld(c("#6A6A78"), c("#9090A0")),
		subtle:      ld(c("#A0A0AC"), c("#5A5A68")),
		accent:      ld(c("#5B3FD0"), c("#A890FF")),
		selectionBg: ld(c("#E9E5FB"), c("#2C2842")),
		good:        ld(c("#1C7C36"), c("#62D48A")),
		warn:        ld(c("#9A5B00"), c("#F0C050")),
		bad:         ld(c("#B8322A"), c("#FF6F6F")),
		inf:         ld(c("#1F66A8"), c("#70B8FF")),
		helpDesc:    ld(c("#5A5A66"), c("#A8A8B8")),
	}
}

// Styles is every style the picker renders with, built by one pure function from the
// palette (or plain, for NO_COLOR). It includes the bubbles' own styles so help and inputs
// match the theme.
type Styles struct {
	Header, Repo, Meta lipgloss.Style

	// Row styles are Inks: a row is drawn from a dozen styled pieces and a frame has dozens
	// of rows, so each style's escape sequences are computed once per theme.
	Cursor, CurrentMark      Ink
	Branch, BranchCurrent    Ink
	Detached, Path           Ink
	SelectedBg               color.Color // nil: selection shown by the cursor and bold only
	Clean, Changes, Conflict Ink
	Ahead, Behind, Progress  Ink
	Pending, StatusErr       Ink
	TagMain, TagLocked       Ink
	TagPrunable, TagWS       Ink
	Match                    Ink // characters the filter matched
	Age                      Ink // the last commit's age

	Detail, Empty lipgloss.Style

	StatusError, StatusHint, StatusInfo, StatusWarn, Busy lipgloss.Style

	FilterPrompt, FilterCount lipgloss.Style

	FormTitle, FormLabel, FormLabelFocus, FormError, FormOK, FormNote lipgloss.Style

	DialogBox, DialogTitle, DialogName, DialogValue, DialogLoss, DialogWarn, DialogKeys lipgloss.Style

	Help  help.Styles
	Input textinput.Styles
}

// NewStyles builds the theme for a dark or light background; noColor gives the plain set.
func NewStyles(isDark, noColor bool) Styles {
	if noColor {
		return plainStyles()
	}
	p := newPalette(isDark)
	s := lipgloss.NewStyle
	st := Styles{
		Header: s().Bold(true).Foreground(p.accent),
		Repo:   s().Bold(true).Foreground(p.text),
		Meta:   s().Foreground(p.muted),

		Cursor:        NewInk(s().Bold(true).Foreground(p.accent)),
		CurrentMark:   NewInk(s().Foreground(p.good)),
		Branch:        NewInk(s().Foreground(p.text)),
		BranchCurrent: NewInk(s().Bold(true).Foreground(p.good)),
		Detached:      NewInk(s().Italic(true).Foreground(p.muted)),
		Path:          NewInk(s().Foreground(p.muted)),
		SelectedBg:    p.selectionBg,
		Clean:         NewInk(s().Foreground(p.good)),
		Changes:       NewInk(s().Foreground(p.warn)),
		Conflict:      NewInk(s().Bold(true).Foreground(p.bad)),
		Ahead:         NewInk(s().Foreground(p.inf)),
		Behind:        NewInk(s().Foreground(p.inf)),
		Progress:      NewInk(s().Bold(true).Foreground(p.bad)),
		Pending:       NewInk(s().Foreground(p.subtle)),
		StatusErr:     NewInk(s().Foreground(p.warn)),
		TagMain:       NewInk(s().Foreground(p.muted)),
		TagLocked:     NewInk(s().Foreground(p.warn)),
		TagPrunable:   NewInk(s().Foreground(p.bad)),
		TagWS:         NewInk(s().Foreground(p.accent)),
		Match:         NewInk(s().Bold(true).Underline(true).Foreground(p.accent)),
		Age:           NewInk(s().Foreground(p.inf)),

		Detail: s().Foreground(p.muted),
		Empty:  s().Foreground(p.muted).Italic(true),

		StatusError: s().Bold(true).Foreground(p.bad),
		StatusHint:  s().Foreground(p.muted),
		StatusInfo:  s().Foreground(p.good),
		StatusWarn:  s().Foreground(p.warn),
		Busy:        s().Foreground(p.accent),

		FilterPrompt: s().Bold(true).Foreground(p.accent),
		FilterCount:  s().Foreground(p.muted),

		FormTitle:      s().Bold(true).Foreground(p.accent),
		FormLabel:      s().Foreground(p.muted),
		FormLabelFocus: s().Bold(true).Foreground(p.accent),
		FormError:      s().Foreground(p.bad),
		FormOK:         s().Foreground(p.good),
		FormNote:       s().Foreground(p.muted),

		DialogBox:   s().Border(lipgloss.RoundedBorder()).BorderForeground(p.bad).Padding(0, 1),
		DialogTitle: s().Bold(true).Foreground(p.bad),
		DialogName:  s().Foreground(p.muted),
		DialogValue: s().Foreground(p.text),
		DialogLoss:  s().Bold(true).Foreground(p.bad),
		DialogWarn:  s().Foreground(p.warn),
		DialogKeys:  s().Foreground(p.muted),

		Help:  helpStyles(p),
		Input: textinput.DefaultStyles(isDark),
	}
	st.Input.Cursor.Blink = false // a blinking cursor only adds redraws
	st.Input.Focused.Prompt = s().Foreground(p.accent)
	return st
}

// plainStyles honours NO_COLOR: no colour at all, only bold and the cursor glyph to mark
// focus, which NO_COLOR explicitly allows.
func plainStyles() Styles {
	s := lipgloss.NewStyle
	plain := s()
	bold := s().Bold(true)
	st := Styles{
		Header: bold, Repo: bold, Meta: plain,
		Cursor: NewInk(bold), CurrentMark: NewInk(plain), Branch: NewInk(plain), BranchCurrent: NewInk(bold),
		Detached: NewInk(plain), Path: NewInk(plain),
		Clean: NewInk(plain), Changes: NewInk(plain), Conflict: NewInk(bold), Ahead: NewInk(plain), Behind: NewInk(plain),
		Progress: NewInk(bold), Pending: NewInk(plain), StatusErr: NewInk(plain),
		TagMain: NewInk(plain), TagLocked: NewInk(plain), TagPrunable: NewInk(plain), TagWS: NewInk(plain),
		Match: NewInk(s().Underline(true)), Age: NewInk(plain),
		Detail: plain, Empty: plain,
		StatusError: bold, StatusHint: plain, StatusInfo: plain, StatusWarn: plain, Busy: plain,
		FilterPrompt: bold, FilterCount: plain,
		FormTitle: bold, FormLabel: plain, FormLabelFocus: bold, FormError: plain, FormOK: plain, FormNote: plain,
		DialogBox:   s().Border(lipgloss.RoundedBorder()).Padding(0, 1),
		DialogTitle: bold, DialogName: plain, DialogValue: plain, DialogLoss: bold, DialogWarn: plain, DialogKeys: plain,
	}
	st.Help = help.Styles{Ellipsis: plain, ShortKey: bold, ShortDesc: plain, ShortSeparator: plain,
		FullKey: bold, FullDesc: plain, FullSeparator: plain}
	st.Input = textinput.Styles{
		Focused: textinput.StyleState{Text: plain, Placeholder: plain, Suggestion: plain, Prompt: bold},
		Blurred: textinput.StyleState{Text: plain, Placeholder: plain, Suggestion: plain, Prompt: plain},
		Cursor:  textinput.CursorStyle{Shape: tea.CursorBlock},
	}
	return st
}

// Ink is a single-line style reduced to the escape sequences around its text. Render
// gives the same bytes as Style.Render for one line of plain text, without lipgloss's
// per-call work.
type Ink struct {
	Style     lipgloss.Style
	pre, post string
}

// NewInk measures s once.
func NewInk(s lipgloss.Style) Ink {
	r := s.Render("X") // SGR sequences hold only digits, ';', '[' and 'm'
	i := strings.IndexByte(r, 'X')
	if i < 0 {
		return Ink{Style: s}
	}
	return Ink{Style: s, pre: r[:i], post: r[i+1:]}
}

// Render draws text (one line, no escapes) in the ink.
func (k Ink) Render(text string) string {
	if k.pre == "" && k.post == "" {
		return text
	}
	return k.pre + text + k.post
}

// helpStyles draws keys in the text colour, bold, and descriptions and separators in
// helpDesc, so the whole help bar reads on light and dark backgrounds alike.
func helpStyles(p palette) help.Styles {
	s := lipgloss.NewStyle
	key := s().Bold(true).Foreground(p.text)
	desc := s().Foreground(p.helpDesc)
	return help.Styles{ShortKey: key, ShortDesc: desc, ShortSeparator: desc, Ellipsis: desc,
		FullKey: key, FullDesc: desc, FullSeparator: desc}
}
