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
	if part := branchesHolding(name, trees); len(part) > 0 {
		return part
	}
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

// branchesHolding are the checked-out branches that hold name as a part: the ones whose
// last component is name (eur for feat/eur) first, else the ones that end with or contain
// it (case-insensitive), at most three in name order. A short name typed for a long
// branch is no typo an edit distance finds. Names under two runes match nothing: too many
// branches contain one letter.
func branchesHolding(name string, trees []gitx.Worktree) []string {
	n := strings.ToLower(name)
	if len([]rune(n)) < 2 {
		return nil
	}
	var last, part []string
	for _, t := range trees {
		b := strings.ToLower(t.Branch)
		switch {
		case t.Branch == "" || b == n || slices.Contains(last, t.Branch) || slices.Contains(part, t.Branch):
		case strings.HasSuffix(b, "/"+n):
			last = append(last, t.Branch)
		case strings.Contains(b, n):
			part = append(part, t.Branch)
		}
	}
	return bestThree(last, part)
}

// CloseNames are the names nearest to typed, for a front end's "did you mean": those that
// start with it (two runes at least), else those within closeBranches' edit distance (a
// third of its length, at least one; case-insensitive), at most three in name order.
func CloseNames(typed string, names []string) []string {
	t := strings.ToLower(typed)
	var prefixed, near []string
	best := max(1, len([]rune(t))/3) + 1
	for _, n := range names {
		l := strings.ToLower(n)
		if l == t || slices.Contains(prefixed, n) || slices.Contains(near, n) {
			continue
		}
		if len([]rune(t)) >= 2 && strings.HasPrefix(l, t) {
			prefixed = append(prefixed, n)
			continue
		}
		switch d := editDistance(t, l); {
		case d < best:
			best, near = d, []string{n}
		case d == best:
			near = append(near, n)
		}
	}
	return bestThree(prefixed, near)
}

// bestThree is what a "did you mean" offers: the better matches (else the others), at
// most three, in name order.
func bestThree(better, others []string) []string {
	out := better
	if len(out) == 0 {
		out = others
	}
	slices.Sort(out)
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}
