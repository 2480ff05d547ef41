package core

import (
	"os"
	"path/filepath"
	"strings"
)

// idPrefetch is the worktree ids, read on a second CPU while git lists the worktrees:
// list needs both, and git's process leaves copse idle. Reading them after git's list
// cost copse list a millisecond or more at a few hundred worktrees.
//
// The common dir is found here without git, by walking up from the directory copse runs
// in the way git's discovery does in the plain cases. It is only a guess: the ids are used
// only when the common dir list settles on (from git's own list) is the same directory;
// anything else (a bare repository, a symlinked path, an odd layout) reads them again.
type idPrefetch struct {
	done      chan struct{}
	commonDir string
	ids       map[string]string
}

func prefetchIDs(dir string) *idPrefetch {
	p := &idPrefetch{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		if commonDir := guessCommonDir(dir); commonDir != "" {
			p.commonDir, p.ids = commonDir, WorktreeIDs(commonDir)
		}
	}()
	return p
}

// readIDs is a prefetch already done: ids read with the worktree list itself.
func readIDs(commonDir string, ids map[string]string) *idPrefetch {
	p := &idPrefetch{done: make(chan struct{}), commonDir: commonDir, ids: ids}
	close(p.done)
	return p
}

// idsFor waits for the prefetch and gives its ids when they were read from commonDir.
func (p *idPrefetch) idsFor(commonDir string) (map[string]string, bool) {
	if p == nil {
		return nil, false
	}
	<-p.done
	if p.commonDir == "" || p.commonDir != commonDir {
		return nil, false
	}
	return p.ids, true
}

// guessCommonDir walks up from dir to the first .git: a directory with HEAD and objects
// is the common dir; a file "gitdir: X" names a worktree's git dir, whose commondir file
// names the common dir. It gives "" whenever the layout is anything else.
func guessCommonDir(dir string) string {
	for d := filepath.Clean(dir); ; {
		dotgit := filepath.Join(d, ".git")
		if st, err := os.Stat(dotgit); err == nil {
			switch {
			case st.IsDir():
				if isGitDir(dotgit) {
					return dotgit
				}
				return ""
			case st.Mode().IsRegular():
				return commonDirOfGitFile(d, dotgit)
			}
			return ""
		}
		if isGitDir(d) {
			return "" // inside a bare repository or a .git directory: git decides
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

func isGitDir(d string) bool {
	st, err := os.Stat(filepath.Join(d, "HEAD"))
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	st, err = os.Stat(filepath.Join(d, "objects"))
	return err == nil && st.IsDir()
}

// commonDirOfGitFile reads a worktree's .git file and its git dir's commondir.
func commonDirOfGitFile(worktree, dotgit string) string {
	b, err := readSmall(dotgit)
	if err != nil {
		return ""
	}
	line, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
	if !ok || line == "" {
		return ""
	}
	gitDir := line
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(worktree, gitDir)
	}
	gitDir = filepath.Clean(gitDir)
	b, err = readSmall(filepath.Join(gitDir, "commondir"))
	if err != nil {
		if isGitDir(gitDir) {
			return gitDir // a separate git dir (git init --separate-git-dir)
		}
		return ""
	}
	commonDir := strings.TrimRight(string(b), "\r\n")
	if commonDir == "" {
		return ""
	}
	if !filepath.IsAbs(commonDir) {
		commonDir = filepath.Join(gitDir, commonDir)
	}
	return filepath.Clean(commonDir)
}
