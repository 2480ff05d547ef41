package gitx

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// addHeldBranch fills Branch of a detached worktree whose branch is being rebased or
// bisected, from the state files in the worktree's own git directory: a rebase keeps
// "refs/heads/<branch>" in rebase-merge/head-name (or rebase-apply/head-name), a bisect
// keeps the short branch name in BISECT_START. It costs a few file reads per detached
// worktree and none for the others. Anything unreadable or unexpected leaves the row as
// git listed it (detached, no branch): the list never fails because of these files.
func addHeldBranch(w *Worktree) {
	if !w.Detached || w.Bare || w.Prunable != nil {
		return
	}
	gitDir, ok := ownGitDir(w.Path)
	if !ok {
		return
	}
	for _, f := range []string{"rebase-merge/head-name", "rebase-apply/head-name"} {
		if v, ok := readSmall(filepath.Join(gitDir, f)); ok {
			if b, ok := strings.CutPrefix(v, "refs/heads/"); ok && checkBranch("branch", b) == "" {
				w.Branch, w.Rebasing = b, true
			}
			// "detached HEAD" (a rebase started detached) holds no branch.
			return
		}
	}
	if v, ok := readSmall(filepath.Join(gitDir, "BISECT_START")); ok {
		// A bisect started on a detached HEAD records the commit instead of a name.
		if !isOID(v) && checkBranch("branch", v) == "" {
			w.Branch, w.Bisecting = v, true
		}
	}
}

// ownGitDir is the git directory of the worktree at exactly path: path/.git, a directory
// in the main worktree and a "gitdir:" file in a linked one.
func ownGitDir(path string) (string, bool) {
	dotgit := filepath.Join(path, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		return dotgit, true
	}
	d, err := readGitFile(dotgit)
	return d, err == nil
}

// readSmall reads a one-line state file (at most 4 KiB), without its final newline.
func readSmall(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false // absent (the usual case) or unreadable: no state to add
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4<<10))
	if err != nil {
		return "", false
	}
	v := strings.TrimRight(string(b), "\n")
	if v == "" || strings.ContainsAny(v, "\n\x00") {
		return "", false
	}
	return v, true
}
