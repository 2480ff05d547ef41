package core

import (
	"slices"
	"strings"

	"github.com/copse-dev/copse/gitx"
)

// Suggestions for a mistyped target, as git ("did you mean …?") and most CLIs give them.

// closeBranches are the branches checked out in snap's worktrees nearest to name by edit
// distance (case-insensitive), when any is near enough to be a typo of it: at most a third
// of the name's length in edits, and at least one. Ties all come back, in name order, at
// most three; none is returned for a name that is far from every branch.
func closeBranches(name string, trees []gitx.Worktree) []string {
	limit := max(1, len([]rune(name))/3)
	best := limit + 1
	var out []string
	for _, t := range trees {
		if t.Branch == "" || t.Branch == name {
			continue
		}
		d := editDistance(strings.ToLower(name), strings.ToLower(t.Branch))
		switch {
		case d < best:
			best, out = d, []string{t.Branch}
		case d == best && d <= limit && !slices.Contains(out, t.Branch):
			out = append(out, t.Branch)
		}
	}
	slices.Sort(out)
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}

// didYouMean is the start of a hint naming the close branches ("did you mean feat/login?
// "), or "" when there are none.
func didYouMean(names []string) string {
	if len(names) == 0 {
		return ""
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = Escape(n)
	}
	return "did you mean " + strings.Join(q, " or ") + "? "
}

// editDistance is the edit distance between a and b in runes, counting an insertion, a
// deletion, a substitution or a swap of two neighbours as one edit (optimal string
// alignment): swapped letters are the commonest typo, and plain Levenshtein counts two.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
