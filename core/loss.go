package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// Losses is what removing a worktree would delete that git cannot give back. copse
// computes it itself, whatever the user's git config hides from git status: untracked
// files under status.showUntrackedFiles=no, changed assume-unchanged and skip-worktree
// files, commits only a detached HEAD holds, an operation half done, nested repositories.
// Ignored files are deleted too; they are named in the confirmation but refuse nothing.
type Losses struct {
	Status        Status   // every staged, unstaged, untracked and conflicted entry
	Hidden        []string // assume-unchanged/skip-worktree files that differ from the index
	Operation     string   // rebase, merge, cherry-pick, revert, bisect ("" when none)
	Detached      int      // commits reachable only from a detached HEAD
	Nested        []string // nested repositories (untracked or ignored directories with their own .git)
	Ignored       int      // ignored files and directories git deletes with the worktree
	IgnoredSample []string
	Unique        int // commits of the branch on no other branch or remote

	// Commits only this worktree holds, which git deletes with it.
	Reflog       int      // commits only its own HEAD reflog holds, whose change is kept nowhere else
	WorktreeRefs []string // per-worktree refs (refs/worktree/*, refs/bisect/*, refs/rewritten/*) holding such commits
	RefCommits   int      // the commits those refs hold that no branch, tag or remote does
	// Submodules whose git directory goes with the worktree (<admin>/modules/…, or a .git
	// directory inside it) and holds commits none of its remote-tracking refs has.
	Submodules []HeldRepo
	// SubmoduleFiles are the directories of submodules git never initialised that hold
	// files ("sub (2 files)"): git status does not look there. Their files are counted in
	// Status.Untracked.
	SubmoduleFiles []string
	// NestedHeld details Nested: each nested repository's uncommitted changes and its
	// commits on no remote of its own.
	NestedHeld []HeldRepo

	Keep []KeptCommit // what a record must keep reachable, with where each was
	// unrecordable is what a record cannot keep, so a forced path refuses: uncommitted
	// changes inside a submodule or a nested repository (a record keeps their commits).
	Unrecordable []string
	// counted is the commits already counted as Detached or Reflog, and refsOnly those of
	// RefCommits that are not among them: a per-worktree ref often holds a commit the
	// reflog holds too, and a sum of all three would count it twice.
	Counted  map[string]bool
	RefsOnly int
}

// heldCount is how many distinct commits only the worktree holds: its detached HEAD's,
// its HEAD reflog's and its per-worktree refs', each commit once.
func (l Losses) HeldCount() int { return l.Detached + l.Reflog + l.RefsOnly }

// count notes commits as counted (see Losses.counted).
func (l *Losses) Count(commits []string) {
	if l.Counted == nil {
		l.Counted = map[string]bool{}
	}
	for _, c := range commits {
		l.Counted[c] = true
	}
}

// HeldRepo is a repository inside the worktree (a submodule or a nested repository) and
// what of it exists nowhere else.
type HeldRepo struct {
	Path     string // relative to the worktree
	Changes  int    // its uncommitted entries (staged, unstaged, untracked, conflicted)
	Unpushed int    // its commits on none of its remote-tracking refs
	// ReflogOnly counts the commits only its own HEAD reflog holds (no ref of its own, no
	// remote), read when its git directory goes with the worktree.
	ReflogOnly int
	Unknown    string // why it could not be read ("" when it was)
	Dir        string
	Tips       []gitx.HeldRef // HEAD, branches, stash and reflog-only commits, to record
}

// describe says what of r would be lost, e.g. "2 uncommitted changes, 1 commit on no remote".
func (r HeldRepo) Describe() string {
	var parts []string
	if r.Unknown != "" {
		parts = append(parts, "cannot be read: "+r.Unknown)
	}
	if r.Changes > 0 {
		parts = append(parts, Plural(r.Changes, "uncommitted change"))
	}
	if r.Unpushed > 0 {
		parts = append(parts, Plural(r.Unpushed, "commit")+" on no remote")
	}
	if r.ReflogOnly > 0 {
		parts = append(parts, Plural(r.ReflogOnly, "commit")+" only its HEAD reflog holds")
	}
	return strings.Join(parts, ", ")
}

// heldNames lists repositories with what of each would be lost.
func HeldNames(rs []HeldRepo) string {
	var names []string
	for _, r := range rs {
		n := r.Path
		if d := r.Describe(); d != "" {
			n += " (" + d + ")"
		}
		names = append(names, n)
	}
	return Sample(names, len(names))
}

func StatusError(err error) string {
	if e, ok := err.(*gitx.Error); ok && e.Stderr != "" {
		return Escape(gitMessage(e.Stderr))
	}
	return Escape(err.Error())
}

func AllZero(oid string) bool { return strings.Trim(oid, "0") == "" }

// Dirty reports work a remove would lose that needs --force: changes (including hidden
// ones), an operation in progress, commits only a detached HEAD holds, nested repositories.
func (l Losses) Dirty() bool {
	return l.Status.Dirty() || len(l.Hidden) > 0 || l.Operation != "" || l.Detached > 0 || len(l.Nested) > 0 ||
		l.Reflog > 0 || l.RefCommits > 0 || len(l.Submodules) > 0
}

// lines are the confirmation's "will be lost" lines, most serious first.
func (l Losses) Lines(t gitx.Worktree, deleteBranch bool) []string {
	var out []string
	if l.Status.Error != "" {
		out = append(out, "status unknown: "+l.Status.Error)
	}
	if l.Operation != "" {
		out = append(out, "a "+l.Operation+" in progress will be abandoned")
	}
	if l.Status.Dirty() {
		out = append(out, "uncommitted changes will be lost: "+l.Changes())
	}
	if len(l.Hidden) > 0 {
		out = append(out, fmt.Sprintf("%s git status does not show (assume-unchanged or skip-worktree) will be lost: %s",
			Plural(len(l.Hidden), "changed file"), Sample(l.Hidden, len(l.Hidden))))
	}
	if l.Detached > 0 {
		out = append(out, fmt.Sprintf("%s on no branch, tag or remote will be lost (detached at %s)", Plural(l.Detached, "commit"), Short(t.Head)))
	}
	if l.Reflog > 0 {
		out = append(out, fmt.Sprintf("%s only the worktree's HEAD reflog holds will be lost", Plural(l.Reflog, "commit")))
	}
	if l.RefCommits > 0 {
		out = append(out, fmt.Sprintf("%s only per-worktree refs hold will be lost: %s", Plural(l.RefCommits, "commit"), Sample(l.WorktreeRefs, len(l.WorktreeRefs))))
	}
	if len(l.Submodules) > 0 {
		out = append(out, fmt.Sprintf("%s whose git directory goes with the worktree will be lost: %s", Plural(len(l.Submodules), "submodule"), HeldNames(l.Submodules)))
	}
	if len(l.Nested) > 0 {
		out = append(out, fmt.Sprintf("%s will be deleted: %s", Plural(len(l.Nested), "nested repository"), l.nestedNames()))
	}
	if l.Ignored > 0 {
		out = append(out, fmt.Sprintf("%s will be deleted: %s", Plural(l.Ignored, "ignored file"), Sample(l.IgnoredSample, l.Ignored)))
	}
	if deleteBranch && l.Unique > 0 {
		out = append(out, fmt.Sprintf("%s on no other branch or remote will be lost with branch %s", Plural(l.Unique, "commit"), Escape(t.Branch)))
	}
	return out
}

// changes sums up the uncommitted changes, naming the uninitialised submodule
// directories whose files git status does not show.
func (l Losses) Changes() string {
	out := changeSummary(l.Status)
	if len(l.SubmoduleFiles) > 0 {
		out += " (in uninitialised submodule directories git status does not look into: " + Sample(l.SubmoduleFiles, len(l.SubmoduleFiles)) + ")"
	}
	return out
}

// ignoredNamed names the ignored files removing the worktree deletes, escaped: "2 ignored
// files: .env, build/x". Remove's dry run and result and land's clean-up say it alike.
func (l Losses) IgnoredNamed() string {
	return Plural(l.Ignored, "ignored file") + ": " + Sample(l.IgnoredSample, l.Ignored)
}

// sample shows the first few names of n, escaped, and how many more there are.
func Sample(names []string, n int) string {
	const show = 3
	var parts []string
	for i, x := range names {
		if i == show {
			break
		}
		parts = append(parts, Escape(x))
	}
	s := strings.Join(parts, ", ")
	if more := n - len(parts); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// Plural writes a count with its noun (every layer counts the same way): "1 commit", "2 commits", "1 nested repository".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	switch {
	case strings.HasSuffix(noun, "ry"), strings.HasSuffix(noun, "ty"):
		noun = strings.TrimSuffix(noun, "y") + "ies"
	case strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"), strings.HasSuffix(noun, "s"):
		noun += "es"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// hereWithin reports a directory copse or its session is in that lies anywhere inside
// path: the directory copse started in (-C), the process's working directory, and where
// this session switched to. Removing any of them would pull the floor from under it.
func (s *Env) hereWithin(path string) (string, bool) {
	cp := Canonical(path)
	var places []string
	places = append(places, s.Dir)
	if wd, err := os.Getwd(); err == nil {
		places = append(places, wd)
	}
	if at := s.SessionAt(); at != "" {
		places = append(places, at)
	}
	for _, p := range places {
		if Within(Canonical(p), cp) {
			return p, true
		}
	}
	return "", false
}

// nestedNames names the nested repositories with what each holds, when it was read.
func (l Losses) nestedNames() string {
	if len(l.NestedHeld) == len(l.Nested) {
		return HeldNames(l.NestedHeld)
	}
	return Sample(l.Nested, len(l.Nested))
}

// KeptCommit is one commit a record keeps reachable that only the worktree held.
type KeptCommit struct {
	What   string `json:"what"` // where it was: "HEAD reflog", "refs/worktree/x", "submodule lib: refs/heads/main"
	Commit string `json:"commit"`
}

// uninitialisedFiles counts the files in the directory of a submodule git never
// initialised there: git status does not look into it, a record does not keep it (git add
// sees a gitlink), and a remove deletes it. They are untracked work nothing can record.
func (l *Losses) UninitialisedFiles(rel, dir string) error {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil // gone, or a file or symlink in its place: git status reports that itself
	}
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			n++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("cannot read the uninitialised submodule directory %s: %w", rel, err)
	}
	if n > 0 {
		l.Status.Untracked += n
		l.SubmoduleFiles = append(l.SubmoduleFiles, rel+" ("+Plural(n, "file")+")")
		l.Unrecordable = append(l.Unrecordable, "uninitialised submodule directory "+rel+" ("+Plural(n, "file")+")")
	}
	return nil
}

func (l *Losses) KeepRepo(kind string, r HeldRepo) {
	if r.Unpushed == 0 && r.ReflogOnly == 0 {
		return
	}
	for _, tip := range r.Tips {
		l.Keep = append(l.Keep, KeptCommit{What: kind + " " + r.Path + ": " + tip.Name, Commit: tip.Commit})
	}
}

// RemovedEntry is one recorded worktree (`copse restore --list`, and the record a remove made).
type RemovedEntry struct {
	ID              string    `json:"id"`
	Path            string    `json:"path"`             // where the worktree was
	Branch          string    `json:"branch,omitempty"` // its branch (absent when detached)
	Head            string    `json:"head,omitempty"`   // HEAD then (absent when unborn)
	BranchTip       string    `json:"branch_tip,omitempty"`
	BranchDeleted   bool      `json:"branch_deleted"` // the remove was asked to delete the branch too
	Time            time.Time `json:"time"`           // when it was recorded
	Expires         time.Time `json:"expires,omitzero"`
	Files           int       `json:"files"` // paths that differed from HEAD (working files or index)
	Bytes           int64     `json:"bytes"` // size on disk of the changed working files
	IndexConflicted bool      `json:"index_conflicted,omitempty"`
	DirMissing      bool      `json:"directory_missing,omitempty"` // nothing on disk to record (a prunable worktree)
	NotRecorded     []string  `json:"not_recorded,omitempty"`      // nested repositories: their files are not recorded (their commits are, in Kept)
	// Kept are the commits only the worktree held (its HEAD reflog, per-worktree refs,
	// submodules' and nested repositories' commits on no remote): parents of the record,
	// and after a restore refs under refs/copse/kept/<id>/.
	Kept   []KeptCommit `json:"kept,omitempty"`
	Commit string       `json:"commit"` // the snapshot commit

	WorktreeTree, IndexTree, IndexCommit string
	Meta                                 *WorktreeMeta
}

// RemovedListing is the reply to `restore --list`: newest first.
type RemovedListing struct {
	Removed  []RemovedEntry `json:"removed"`
	Keep     string         `json:"keep"` // copse.keepRemoved as people write it ("14d", "36h", "never"): how long entries are kept
	Warnings []string       `json:"warnings,omitempty"`
}

// checkID accepts a restore id or a prefix of one: 4 to 64 characters of 0-9a-f.
func CheckID(id string) error {
	if err := CheckText("id", id, 64); err != nil {
		return err
	}
	if len(id) < 4 || strings.Trim(id, "0123456789abcdef") != "" {
		return Usage(CodeInvalidID, "id", "`copse restore --list` shows the ids",
			"id %s is not a restore id (at least 4 characters of 0-9a-f)", Quote(id))
	}
	return nil
}

// keepRemoved reads copse.keepRemoved: how long records are kept (default 14 days).
// Accepted: "<n>d", "<n>w", a Go duration ("36h"), at most 100 years, or "never".
func (s *Env) KeepRemoved(ctx context.Context) (time.Duration, error) {
	return s.KeepFor(ctx, KeepRemovedKey)
}

// keepFor reads a retention setting (copse.keepRemoved, copse.keepLands): default 14 days.
func (s *Env) KeepFor(ctx context.Context, key string) (time.Duration, error) {
	v, ok, err := s.Git.ConfigValue(ctx, s.Root(), key)
	if err != nil {
		return 0, GitFailure(CodeConfigFailed, err, "cannot read git config "+key)
	}
	if !ok {
		return defaultKeep, nil
	}
	d, err := ParseSpan(v, keepRule)
	if err != nil {
		return 0, SpanError(CodeBadConfig, key, v, keepRule, err, "set a duration such as 14d, 2w or 36h, or never: git config "+key+" 14d")
	}
	return d, nil
}

const (
	defaultKeep    = 14 * 24 * time.Hour
	KeepRemovedKey = "copse.keepRemoved"
	KeepLandsKey   = "copse.keepLands"
	// keptRefPrefix holds, after a restore, the commits the record kept that only the
	// removed worktree held: refs/copse/kept/<id>/<n>.
	KeptRefPrefix = "refs/copse/kept/"
)
