package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
)

// git runs real git, as the Herdr server does; the double's whole point is that tests
// check copse against git's actual state.
func git(dir string, args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), strings.TrimSpace(errb.String()), err
}

// repo is the repository a source directory belongs to.
type repo struct {
	root   string // main checkout
	key    string // git common dir
	top    string // work tree holding the source directory
	linked bool   // the source is a linked worktree, not the main checkout
}

func (r repo) name() string { return filepath.Base(r.root) }

// resolveRepo finds the work tree and repository of dir; ok is false outside a work tree.
func resolveRepo(dir string) (repo, bool) {
	out, _, err := git(dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 2 {
		return repo{}, false
	}
	r := repo{top: lines[0], key: filepath.Clean(lines[1])}
	switch filepath.Base(r.key) {
	case ".git", ".bare": // for a .bare layout the repo is named after its containing dir
		r.root = filepath.Dir(r.key)
	default:
		r.root = r.key
	}
	r.linked = !samePath(r.top, r.root)
	return r, true
}

// entry is one record of `git worktree list --porcelain`.
type entry struct {
	path                     string
	branch                   string // refs/heads/ stripped; "" when detached
	bare, detached, prunable bool
}

func worktreeList(root string) ([]entry, *apiError) {
	out, stderr, err := git(root, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, errf("worktree_list_failed", "%s", stderr)
	}
	var list []entry
	for _, block := range strings.Split(out, "\n\n") {
		var e entry
		for _, line := range strings.Split(block, "\n") {
			key, val, _ := strings.Cut(line, " ")
			switch key {
			case "worktree":
				e.path = val
			case "branch":
				e.branch = strings.TrimPrefix(val, "refs/heads/")
			case "bare":
				e.bare = true
			case "detached":
				e.detached = true
			case "prunable":
				e.prunable = true
			}
		}
		if e.path != "" {
			list = append(list, e)
		}
	}
	return list, nil
}

// samePath compares two paths as the file system sees them (temp dirs are often symlinked).
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
