package textsafe

import (
	"os/exec"
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain/path é 漢字":    "plain/path é 漢字",
		"a\nb\tc\rd":         `a\nb\tc\rd`,
		"esc\x1b[2J":         `esc\x1b[2J`,
		"del\x7f":            `del\x7f`,
		"c1\u0085":           `c1\u0085`,
		"bidi\u202eevil":     `bidi\u202eevil`,
		"iso\u2066x\u2069":   `iso\u2066x\u2069`,
		"sep\u2028bom\ufeff": `sep\u2028bom\ufeff`,
		"bad\xffutf8":        `bad\xffutf8`,
		`back\slash`:         `back\\slash`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// EscapeHidden is for text already escaped: a backslash stays single, hidden runes are
// still escaped.
func TestEscapeHiddenDoesNotEscapeTwice(t *testing.T) {
	once := Escape("/src/x\\y\n")
	if got := EscapeHidden(once); got != once {
		t.Errorf("EscapeHidden(%q) = %q, want it unchanged", once, got)
	}
	if got := EscapeHidden("msg \\ ok\x1b[31m\u202e\xff"); got != `msg \ ok\x1b[31m\u202e\xff` {
		t.Errorf("EscapeHidden = %q", got)
	}
}

func TestHiddenRunes(t *testing.T) {
	for _, r := range []rune{0, '\n', 0x1b, 0x7f, 0x85, 0x9f, 0x061c, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069, 0x2028, 0x2029, 0xfeff} {
		if !IsHidden(r) || !IsUnsafe(r) {
			t.Errorf("%U is not hidden", r)
		}
	}
	for _, r := range []rune{' ', 'a', '~', 0xa0, 'é', '漢', '✚', '⚑', 0x2067 + 3} {
		if IsHidden(r) {
			t.Errorf("%U is hidden", r)
		}
	}
	for in, want := range map[string]string{"plain é": "", "a\u202eb\n": "a bidirectional mark", "a\x1b": "a control character", "a\u2028": "an invisible separator"} {
		if got := HiddenKind(in); got != want {
			t.Errorf("HiddenKind(%q) = %q, want %q", in, got, want)
		}
	}
	if r, ok := FirstHidden("ab\u202ec\n"); !ok || r != 0x202e {
		t.Errorf("FirstHidden = %U %v", r, ok)
	}
}

func TestWidth(t *testing.T) {
	for in, want := range map[string]int{
		"":            0,
		"abc":         3,
		"漢字":          4,
		"한글":          4,
		"ｆｕｌｌ":        8,
		"e\u0301":     1, // combining accent
		"✚3 ↑2 ⚑ ✓ …": 11,
		"🌲x":          3,
	} {
		if got := Width(in); got != want {
			t.Errorf("Width(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a longer line", 6, "a lon…"},
		{"漢字漢字", 5, "漢字…"}, // a wide rune never straddles the edge
		{"anything", 0, ""},
		{"anything", 1, "…"},
	} {
		if got := Cut(tc.in, tc.w); got != tc.want || Width(got) > tc.w {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
	}
}

func TestHead(t *testing.T) {
	if got := Head("ab漢c", 3); got != "ab" {
		t.Errorf("Head = %q, want %q (a wide rune never straddles the edge)", got, "ab")
	}
	if got := Head("abc", 5); got != "abc" {
		t.Errorf("Head = %q", got)
	}
}

func TestMidCutKeepsLeaf(t *testing.T) {
	got := MidCut("/aaaa/bbbb/cccc/leaf-dir", 16)
	if Width(got) != 16 || !strings.HasSuffix(got, "leaf-dir") || !strings.HasPrefix(got, "/aaa") || !strings.Contains(got, "…") {
		t.Errorf("MidCut = %q", got)
	}
	if got := MidCut("short", 10); got != "short" {
		t.Errorf("MidCut(short) = %q", got)
	}
	if got := MidCut("/漢字/漢字漢字", 7); Width(got) > 7 || !strings.Contains(got, "…") {
		t.Errorf("MidCut wide = %q (%d cells)", got, Width(got))
	}
	if got := Pad("漢", 4); got != "漢  " {
		t.Errorf("Pad = %q", got)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":             "''",
		"plain/Path-1": "plain/Path-1",
		"a'b":          `'a'\''b'`,
		"$HOME":        `'$HOME'`,
		`/src/x\y`:     `'/src/x\y'`,
		"tab\there":    `$'tab\there'`,
		"bidi\u202e":   `$'bidi\u202E'`,
		"bad\xffutf8":  `$'bad\xffutf8'`,
		"esc\x1b[31m":  `$'esc\x1b[31m'`,
		"é ok":         `'é ok'`,
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"~/src/app.wt/x": "~/src/app.wt/x",
		"~/it's":         `~/'it'\''s'`,
		"/srv/my wt":     "'/srv/my wt'",
		"~":              "'~'",
	} {
		if got := ShellQuotePath(in); got != want {
			t.Errorf("ShellQuotePath(%q) = %s, want %s", in, got, want)
		}
	}
}

// A real shell reads every quoted argument back as exactly the raw value.
func TestShellJoinRoundTrip(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	argv := []string{"printf", `%s\0`, "/src/a b/it's\n\t$x\u202e\xff`y`", `/src/x\y`, "", "plain"}
	out, err := exec.Command(bash, "-c", ShellJoin(argv)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), strings.Join(argv[2:], "\x00")+"\x00"; got != want {
		t.Errorf("bash read back %q, want %q", got, want)
	}
}

// A cut path keeps its leaf whole and as many whole leading directories as fit.
func TestPathCutKeepsLeafWhole(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"/tmp/demo/app.worktrees/feat-checkout-v2", 40, "/tmp/demo/app.worktrees/feat-checkout-v2"},
		{"/tmp/demo/app.worktrees/feat-checkout-v2", 32, "/tmp/demo/…/feat-checkout-v2"},
		{"~/src/app.worktrees/feat-checkout-v2", 30, "~/src/…/feat-checkout-v2"},
		{"~/src/app.worktrees/feat-checkout-v2", 20, "~/…/feat-checkout-v2"},
		{"~/src/app.worktrees/feat-checkout-v2", 19, "…/feat-checkout-v2"},
		{"/tmp/demo/app.worktrees/漢字", 12, "/tmp/…/漢字"},
		{"relative", 4, MidCut("relative", 4)},
		{"/a/b/a-very-long-leaf-name", 10, MidCut("/a/b/a-very-long-leaf-name", 10)},
	} {
		got := PathCut(c.in, c.w)
		if got != c.want || Width(got) > c.w {
			t.Errorf("PathCut(%q, %d) = %q (%d cells), want %q", c.in, c.w, got, Width(got), c.want)
		}
	}
}
