package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Worktree is one record of `git worktree list --porcelain -z`.
type Worktree struct {
	Path     string
	Head     string // full object id (all zeros on an unborn branch); "" for bare
	Branch   string // short name, refs/heads/ stripped; "" when detached or bare
	Bare     bool
	Detached bool
	Locked   *string // nil = not locked; else the reason ("" when none was given)
	Prunable *string // nil = not prunable; else the reason
	// Rebasing and Bisecting: git lists the worktree detached, but a rebase or a bisect in
	// it started from Branch, which it holds (git refuses to check it out elsewhere). Branch
	// is then set from the rebase or bisect state (see Runner.Worktrees); Detached stays true.
	Rebasing  bool
	Bisecting bool
}

// ParseWorktreeList parses `git worktree list --porcelain -z`: attributes are
// NUL-terminated and a record ends with an extra NUL. The first record is the
// main worktree.
//
// It is strict about structure, because core bases safety decisions on it: a
// record must start with "worktree <absolute path>", every field must be
// NUL-terminated, and known attributes must be well formed and not repeated.
// Unknown attributes are skipped so a newer git does not break copse.
func ParseWorktreeList(b []byte) ([]Worktree, error) {
	if len(b) == 0 {
		return nil, errors.New("gitx: worktree list is empty (git always lists the main worktree)")
	}
	var (
		list []Worktree
		cur  *Worktree
		seen map[string]bool // attributes seen in the current record
	)
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, fmt.Errorf("gitx: worktree list: field %q is not NUL-terminated (truncated output?)", clip(string(b)))
		}
		field := string(b[:i])
		b = b[i+1:]

		if cur == nil { // a record starts
			path, ok := strings.CutPrefix(field, "worktree ")
			if !ok {
				return nil, fmt.Errorf("gitx: worktree list: record %d starts with %q, not \"worktree <path>\"", len(list)+1, clip(field))
			}
			if !filepath.IsAbs(path) {
				return nil, fmt.Errorf("gitx: worktree list: path %q is not absolute", path)
			}
			list = append(list, Worktree{Path: path})
			cur, seen = &list[len(list)-1], map[string]bool{}
			continue
		}
		if field == "" { // the extra NUL: the record ends
			if err := checkRecord(cur); err != nil {
				return nil, err
			}
			cur = nil
			continue
		}
		name, value, hasValue := strings.Cut(field, " ")
		if !isAttrName(name) {
			return nil, fmt.Errorf("gitx: worktree list: malformed attribute %q in %q", clip(field), cur.Path)
		}
		if seen[name] {
			return nil, fmt.Errorf("gitx: worktree list: attribute %q repeated in %q", name, cur.Path)
		}
		seen[name] = true
		if err := setAttr(cur, name, value, hasValue); err != nil {
			return nil, fmt.Errorf("gitx: worktree list: %q: %w", cur.Path, err)
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("gitx: worktree list: record %q is not terminated (truncated output?)", cur.Path)
	}
	return list, nil
}

func setAttr(w *Worktree, name, value string, hasValue bool) error {
	flag := func(p *bool) error {
		if hasValue {
			return fmt.Errorf("attribute %q takes no value", name)
		}
		*p = true
		return nil
	}
	switch name {
	case "worktree":
		// A second path inside one record means the record separators were lost.
		return errors.New("second \"worktree\" line in one record")
	case "HEAD":
		if !isOID(value) {
			return fmt.Errorf("HEAD %q is not a full object id", value)
		}
		w.Head = value
	case "branch":
		short, ok := strings.CutPrefix(value, "refs/heads/")
		if !ok || short == "" {
			return fmt.Errorf("branch %q is not under refs/heads/", value)
		}
		w.Branch = short
	case "bare":
		return flag(&w.Bare)
	case "detached":
		return flag(&w.Detached)
	case "locked":
		w.Locked = &value // "" when git gave no reason
	case "prunable":
		w.Prunable = &value
	}
	return nil // unknown attribute: ignored for forward compatibility
}

// checkRecord rejects combinations git never prints: a bare record has no
// HEAD/branch/detached lines, and every other record has a HEAD.
func checkRecord(w *Worktree) error {
	switch {
	case w.Bare && (w.Head != "" || w.Branch != "" || w.Detached):
		return fmt.Errorf("gitx: worktree list: %q is bare but has a HEAD, branch or detached line", w.Path)
	case !w.Bare && w.Head == "":
		return fmt.Errorf("gitx: worktree list: %q has no HEAD line", w.Path)
	case w.Branch != "" && w.Detached:
		return fmt.Errorf("gitx: worktree list: %q is both on a branch and detached", w.Path)
	}
	return nil
}

// isAttrName: git's attribute names are ASCII words ("HEAD", "prunable");
// anything else is garbage, not a future attribute.
func isAttrName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || (c != '-' && (c < '0' || c > '9'))) {
			return false
		}
	}
	return s != ""
}

// clip shortens a value for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// Worktrees returns the parsed worktree list and the raw bytes it came from
// (core digests the raw bytes into a state token).
func (r *Runner) Worktrees(ctx context.Context, dir string) ([]Worktree, []byte, error) {
	c, err := WorktreeList(dir)
	if err != nil {
		return nil, nil, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	list, err := ParseWorktreeList(out)
	if err != nil {
		return nil, out, err
	}
	for i := range list {
		addHeldBranch(&list[i])
	}
	return list, out, nil
}
