package tui

import (
	"image/color"
	"math"
	"testing"

	"charm.land/lipgloss/v2"
)

// WCAG 2 contrast: (L1 + 0.05) / (L2 + 0.05) of the relative luminances.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// Every colour of the help bar reads at 4.5:1 or better against typical terminal
// backgrounds of its theme (white, off-white, Solarized light; black, VS Code dark, One
// Dark, Solarized dark, a grey tmux status-ish 303030).
func TestHelpContrast(t *testing.T) {
	t.Parallel()
	for _, th := range []struct {
		dark bool
		bgs  []string
	}{
		{false, []string{"#FFFFFF", "#F5F5F5", "#FDF6E3", "#EEEEEE"}},
		{true, []string{"#000000", "#1E1E1E", "#282C34", "#002B36", "#303030"}},
	} {
		h := NewStyles(th.dark, false).Help
		for name, st := range map[string]lipgloss.Style{"key": h.ShortKey, "desc": h.ShortDesc, "separator": h.ShortSeparator,
			"full key": h.FullKey, "full desc": h.FullDesc, "ellipsis": h.Ellipsis} {
			fg := st.GetForeground()
			if _, none := fg.(lipgloss.NoColor); none || fg == nil {
				t.Errorf("dark=%v %s has no colour of its own", th.dark, name)
				continue
			}
			for _, bg := range th.bgs {
				if c := contrast(fg, lipgloss.Color(bg)); c < 4.5 {
					t.Errorf("dark=%v help %s on %s: contrast %.2f < 4.5", th.dark, name, bg, c)
				}
			}
		}
	}
	// The measure itself: black on white is 21:1, a colour on itself 1:1.
	if c := contrast(lipgloss.Color("#000000"), lipgloss.Color("#FFFFFF")); math.Abs(c-21) > 0.01 {
		t.Errorf("contrast(black, white) = %.2f", c)
	}
}
