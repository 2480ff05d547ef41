package rowmarks

import (
	"cmp"
	"strings"

	"github.com/copse-dev/copse/core"
)

// The order of rows by name, the same in the picker (its default order) and in copse list.

// CompareByName orders worktrees as the picker lists them by name: the main checkout
// first, then by label (Label: the branch, also while a rebase or bisect holds it),
// case-insensitive and with numbers as numbers; detached and bare rows, which have no
// branch name, last. It returns 0 only for rows with the same label.
func CompareByName(a, b core.Worktree) int {
	if a.Main != b.Main {
		if a.Main {
			return -1
		}
		return 1
	}
	na, nb := a.Branch != "" && !a.Bare, b.Branch != "" && !b.Bare
	if na != nb {
		if na {
			return -1
		}
		return 1
	}
	return CompareLabels(Label(a), Label(b))
}

// CompareLabels is CompareByName's order of two labels (Label) of named rows: case
// ignored first, numbers as numbers. A front end that has the labels already (the
// picker's rows) compares them without making them again.
func CompareLabels(la, lb string) int {
	if c := NaturalCompare(strings.ToLower(la), strings.ToLower(lb)); c != 0 {
		return c
	}
	return NaturalCompare(la, lb)
}

// NaturalCompare orders a and b as people number things: a run of digits compares as the
// number it is (task-2 before task-10), everything else byte by byte (UTF-8 keeps code
// point order). Equal numbers written with more leading zeros come after, and only when
// nothing else tells the two apart, so the order is total.
func NaturalCompare(a, b string) int {
	zeros := 0
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			na, nb := digitRun(a), digitRun(b)
			ta, tb := strings.TrimLeft(a[:na], "0"), strings.TrimLeft(b[:nb], "0")
			if len(ta) != len(tb) {
				return cmp.Compare(len(ta), len(tb))
			}
			if c := strings.Compare(ta, tb); c != 0 {
				return c
			}
			if zeros == 0 {
				zeros = cmp.Compare(na, nb)
			}
			a, b = a[na:], b[nb:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return zeros
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitRun is the length of the run of digits s starts with.
func digitRun(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}
