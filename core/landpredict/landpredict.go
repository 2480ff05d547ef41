// Package landpredict foresees what a land queue will meet before any job runs. For the
// queued jobs in order it names, per job, the jobs ahead (or the target) whose changes its
// own cannot be merged with, and the files (Analyze); and it gives the commit each job
// would land as, T0 = the target, Ti = merge(Ti-1, job i), for a gate to test ahead of the
// job's turn (Stack). Every merge is in memory (`git merge-tree --write-tree`): no
// worktree, no index, no ref.
//
// The cheap path comes first. Each job is merged with the target alone, all of them in
// one merge-tree process, which settles its conflicts with the target; each job's paths
// since it forked from the target are read once per (target, tip). Only a job whose paths
// meet those of a job ahead pays for a merge between jobs: it is merged onto the target
// plus the jobs ahead that meet it, stacked in order (a job ahead that touches none of its
// paths cannot change how they merge, so it is left out and costs nothing), and that merge
// decides: two jobs that edit one file far apart merge cleanly and are not reported.
// Paths "meet" when they are the same, when one is a directory above the other, or when
// one job deletes from a directory another adds to (git's directory-rename detection may
// move the added file).
//
// Every git answer is cached by the commit ids it depends on, so an analysis whose target
// and tips did not move runs no git at all, and one whose job moved redoes only what
// depends on that job. A job whose merge conflicts is left out of the stack for the jobs
// behind it: the real queue would block it at its rebase and land the next job onto the
// same target.
//
// It imports gitx and internal packages only: the land family (the local queue and the
// one across machines) calls it with commit ids it resolved itself.
package landpredict

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/copse-dev/copse/gitx"
)

// Job is one queued land, in queue order.
type Job struct {
	ID  string // the queue's name for it (land-7); unique within one call
	Tip string // full commit id of the branch the job lands, as queued
}

// Conflict names what a job's change cannot be merged with.
type Conflict struct {
	// Job is the id of the job ahead whose change this one meets; empty when Target.
	Job string `json:"job,omitempty"`
	// Target: the change meets the target's own commits since the job's branch forked
	// from it (the job conflicts with the target as it is now, whatever lands first).
	Target bool     `json:"target,omitempty"`
	Files  []string `json:"files"`
}

// Prediction is what the analysis says of one job.
type Prediction struct {
	Job string `json:"job"`
	Tip string `json:"tip"`
	// Lands: the job merges cleanly onto the target and the jobs ahead that land. A job
	// that does not is left out of the stack for the jobs behind it.
	Lands bool `json:"lands"`
	// Conflicts is never nil: [] when none, so JSON says "predicted_conflicts": [].
	Conflicts []Conflict `json:"predicted_conflicts"`
	// Error is set when git cannot merge the job with the target at all (unrelated
	// histories); the job is then neither stacked nor reported as a conflict.
	Error string `json:"error,omitempty"`
	// Paths are the paths the job changes since it forked from the target, sorted.
	Paths []string `json:"paths,omitempty"`
}

// Analysis is the prediction for a whole queue.
type Analysis struct {
	Target string       `json:"target"` // T0, the target's commit the jobs were stacked on
	Jobs   []Prediction `json:"jobs"`   // in queue order
}

// For returns the prediction of job id, or nil.
func (a *Analysis) For(id string) *Prediction {
	for i := range a.Jobs {
		if a.Jobs[i].Job == id {
			return &a.Jobs[i]
		}
	}
	return nil
}

// Stacked is the commit one job would land as.
type Stacked struct {
	Job string `json:"job"`
	// Onto has the tree the target will have at the job's turn: the target plus every job
	// ahead that lands, in order (the target itself for the first job). The real target
	// will hold that tree in commits of its own, the jobs' rebased ones.
	Onto string `json:"onto"`
	// Commit is Onto plus the job's own change (a commit whose parent is Onto; its tree
	// is Tree): what a speculative gate checks out. Empty when the job does not land.
	Commit string `json:"commit,omitempty"`
	Tree   string `json:"tree,omitempty"`
	// Conflicts is set when the job does not merge onto Onto ([] otherwise).
	Conflicts []Conflict `json:"predicted_conflicts"`
	Error     string     `json:"error,omitempty"`
}

// Predictor analyses the queues of one repository. Its methods may be called from
// several goroutines; they run one at a time.
type Predictor struct {
	git   *gitx.Runner
	dir   string
	mu    sync.Mutex
	cache *Cache
}

// New returns a Predictor for the repository at dir (any of its worktrees, absolute),
// running git with git. cache may be one loaded from disk (LoadCache); nil starts empty.
func New(git *gitx.Runner, dir string, cache *Cache) *Predictor {
	if cache == nil {
		cache = NewCache()
	}
	return &Predictor{git: git, dir: dir, cache: cache}
}

// Cache returns the predictor's cache, to save it (Cache.Save) for the next process.
func (p *Predictor) Cache() *Cache { return p.cache }

// Analyze predicts the conflicts of jobs (in queue order) landing on target (the
// target's commit id).
func (p *Predictor) Analyze(ctx context.Context, target string, jobs []Job) (*Analysis, error) {
	if err := checkInput(target, jobs); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	defer p.cache.trim()
	var a *Analysis
	err := p.retry(func() (err error) { a, err = p.analyze(ctx, target, jobs); return err })
	return a, err
}

// Stack gives, per job in order, the commit it would land as: the target, then each job
// that merges cleanly onto the stack before it. The commits are made with commit-tree
// (no ref points at them; git's gc may prune them after its prune expiry, two weeks by
// default) and are the same commit ids in every process that stacks the same queue.
func (p *Predictor) Stack(ctx context.Context, target string, jobs []Job) ([]Stacked, error) {
	if err := checkInput(target, jobs); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	defer p.cache.trim()
	var out []Stacked
	err := p.retry(func() error {
		a, err := p.analyze(ctx, target, jobs)
		if err != nil {
			return err
		}
		out, err = p.stack(ctx, a, jobs)
		return err
	})
	return out, err
}

// retry runs fn, and once more with an empty cache when it fails while the cache held
// something: an object a saved cache names may have been pruned by git's gc since.
func (p *Predictor) retry(fn func() error) error {
	err := fn()
	if err == nil || p.cache.empty() || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	p.cache.reset()
	return fn()
}

// InputError is a bad call: a value that is not a full commit id, or a job named twice.
type InputError struct{ Reason string }

func (e *InputError) Error() string { return "landpredict: " + e.Reason }

func checkInput(target string, jobs []Job) error {
	if !isOID(target) {
		return &InputError{fmt.Sprintf("target %q is not a full commit id", target)}
	}
	seen := map[string]bool{}
	for _, j := range jobs {
		switch {
		case j.ID == "" || strings.ContainsAny(j.ID, "\x00\n\r"):
			return &InputError{fmt.Sprintf("job id %q is empty or not one line", j.ID)}
		case seen[j.ID]:
			return &InputError{fmt.Sprintf("job %s is queued twice", j.ID)}
		case !isOID(j.Tip):
			return &InputError{fmt.Sprintf("job %s: tip %q is not a full commit id", j.ID, j.Tip)}
		}
		seen[j.ID] = true
	}
	return nil
}

func isOID(v string) bool {
	if len(v) != 40 && len(v) != 64 {
		return false
	}
	return strings.Trim(v, "0123456789abcdef") == ""
}

// stackMessage is the message of a stacked commit: it names the job, and nothing that
// changes from one process to another, so the commit id is reproducible.
func stackMessage(job string) string { return "copse: predicted land of " + job }

func (p *Predictor) analyze(ctx context.Context, target string, jobs []Job) (*Analysis, error) {
	n := len(jobs)
	a := &Analysis{Target: target, Jobs: make([]Prediction, n)}
	// Each job against the target alone: one merge-tree process for all of them. It comes
	// first, as it names the jobs git cannot merge at all (they have no fork to diff from).
	pairs := make([][2]string, n)
	for i, j := range jobs {
		pairs[i] = [2]string{target, j.Tip}
	}
	onTarget, failed, err := p.merges(ctx, pairs)
	if err != nil {
		return nil, err
	}
	profiles := make([]*profile, n)
	for i, j := range jobs {
		a.Jobs[i] = Prediction{Job: j.ID, Tip: j.Tip, Conflicts: []Conflict{}}
		if failed[i] != "" {
			profiles[i] = newProfile(nil)
			continue
		}
		ch, err := p.changes(ctx, target, j.Tip)
		if err != nil {
			return nil, err
		}
		profiles[i] = newProfile(ch)
		a.Jobs[i].Paths = profiles[i].sorted()
	}

	var landed []int
	for i := range jobs {
		pred := &a.Jobs[i]
		if failed[i] != "" {
			pred.Error = failed[i]
			continue
		}
		var targetFiles []string
		if !onTarget[i].Clean {
			targetFiles = onTarget[i].Conflicted
			pred.Conflicts = append(pred.Conflicts, Conflict{Target: true, Files: targetFiles})
		}
		var ahead []int // the jobs ahead that land and whose paths meet this one's
		for _, k := range landed {
			if profiles[k].meets(profiles[i]) {
				ahead = append(ahead, k)
			}
		}
		if len(ahead) > 0 {
			cs, err := p.againstAhead(ctx, target, jobs, onTarget, profiles, ahead, i, targetFiles)
			if err != nil {
				return nil, err
			}
			pred.Conflicts = append(pred.Conflicts, cs...)
		}
		pred.Lands = len(pred.Conflicts) == 0
		if pred.Lands {
			landed = append(landed, i)
		}
	}
	return a, nil
}

// againstAhead merges job i onto the target plus the jobs ahead whose paths meet its own
// (ahead, in queue order, each of which lands): the jobs ahead that touch none of its
// paths cannot change what this merge meets, so they are left out and pay nothing. When
// it conflicts, it names the jobs the conflicts come from: the only one, or those that
// conflict with job i on their own (one merge-tree process for all of them), or, when
// none does alone, those whose paths meet the conflicted files. The target's own
// conflicts (targetFiles) are the target's, not a job's.
func (p *Predictor) againstAhead(ctx context.Context, target string, jobs []Job, onTarget []gitx.MergeResult,
	profiles []*profile, ahead []int, i int, targetFiles []string) ([]Conflict, error) {
	alone := func(k int) (string, error) { // job k on the target alone
		return p.commit(ctx, onTarget[k].Tree, target, stackMessage(jobs[k].ID))
	}
	base, err := alone(ahead[0])
	if err != nil {
		return nil, err
	}
	stacked := ahead[:1:1]
	for _, k := range ahead[1:] {
		m, err := p.merge(ctx, base, jobs[k].Tip)
		if err != nil {
			return nil, err
		}
		if !m.Clean {
			continue // as the queue would: a job that does not merge is not stacked
		}
		if base, err = p.commit(ctx, m.Tree, base, stackMessage(jobs[k].ID)); err != nil {
			return nil, err
		}
		stacked = append(stacked, k)
	}
	m, err := p.merge(ctx, base, jobs[i].Tip)
	if err != nil || m.Clean {
		return nil, err
	}
	files := without(m.Conflicted, targetFiles)
	switch {
	case len(files) == 0:
		return nil, nil
	case len(stacked) == 1:
		return []Conflict{{Job: jobs[stacked[0]].ID, Files: files}}, nil
	}
	pairs := make([][2]string, len(stacked))
	for n, k := range stacked {
		c, err := alone(k)
		if err != nil {
			return nil, err
		}
		pairs[n] = [2]string{c, jobs[i].Tip}
	}
	res, bad, err := p.merges(ctx, pairs)
	if err != nil {
		return nil, err
	}
	var out []Conflict
	for n, k := range stacked {
		if bad[n] != "" {
			// Both sides merged with the target, so only a commit gone since (a saved
			// cache's, pruned) explains it: an error, which retries without the cache.
			return nil, fmt.Errorf("landpredict: merging %s alone with %s: %s", jobs[k].ID, jobs[i].ID, bad[n])
		}
		if res[n].Clean {
			continue
		}
		if f := without(res[n].Conflicted, targetFiles); len(f) > 0 {
			out = append(out, Conflict{Job: jobs[k].ID, Files: f})
		}
	}
	if len(out) == 0 {
		return attribute(files, jobs, stacked, profiles), nil
	}
	return out, nil
}

// stack builds the full stack for the jobs of a.
func (p *Predictor) stack(ctx context.Context, a *Analysis, jobs []Job) ([]Stacked, error) {
	out := make([]Stacked, len(jobs))
	onto := a.Target
	var landed []int
	profiles := make([]*profile, len(jobs))
	for i, j := range jobs {
		profiles[i] = newProfile(nil)
		if a.Jobs[i].Error != "" {
			continue
		}
		ch, err := p.changes(ctx, a.Target, j.Tip)
		if err != nil {
			return nil, err
		}
		profiles[i] = newProfile(ch)
	}
	for i, j := range jobs {
		s := Stacked{Job: j.ID, Onto: onto, Conflicts: []Conflict{}}
		if e := a.Jobs[i].Error; e != "" {
			s.Error = e
			out[i] = s
			continue
		}
		m, err := p.merge(ctx, onto, j.Tip)
		if err != nil {
			return nil, err
		}
		if m.Clean {
			c, err := p.commit(ctx, m.Tree, onto, stackMessage(j.ID))
			if err != nil {
				return nil, err
			}
			s.Commit, s.Tree = c, m.Tree
			onto = c
			landed = append(landed, i)
		} else if len(a.Jobs[i].Conflicts) > 0 {
			s.Conflicts = a.Jobs[i].Conflicts
		} else {
			s.Conflicts = attribute(m.Conflicted, jobs, landed, profiles)
		}
		out[i] = s
	}
	return out, nil
}

// attribute names, for files that conflict, the jobs (of candidates) whose paths meet
// them, with the files each meets; when none meets any, all candidates with all files.
func attribute(files []string, jobs []Job, candidates []int, profiles []*profile) []Conflict {
	var out []Conflict
	for _, k := range candidates {
		var mine []string
		for _, f := range files {
			if profiles[k].touches(f) {
				mine = append(mine, f)
			}
		}
		if len(mine) > 0 {
			out = append(out, Conflict{Job: jobs[k].ID, Files: mine})
		}
	}
	if len(out) == 0 {
		for _, k := range candidates {
			out = append(out, Conflict{Job: jobs[k].ID, Files: files})
		}
	}
	if out == nil {
		out = []Conflict{}
	}
	return out
}

// without returns the files not in drop, in order.
func without(files, drop []string) []string {
	var out []string
	for _, f := range files {
		if !slices.Contains(drop, f) {
			out = append(out, f)
		}
	}
	return out
}

// ---- the cheap path: which jobs' paths meet ----

// profile is what the cheap path knows of one job's change: its paths, every directory
// above them, and the directories it deletes from and adds to.
type profile struct {
	paths   map[string]bool
	dirs    map[string]bool // proper ancestor directories of the paths
	delDirs map[string]bool // parent directories of deleted paths (not the top)
	addDirs map[string]bool // parent directories of added paths (not the top)
}

func newProfile(ch []gitx.Change) *profile {
	p := &profile{paths: map[string]bool{}, dirs: map[string]bool{}, delDirs: map[string]bool{}, addDirs: map[string]bool{}}
	for _, c := range ch {
		p.paths[c.Path] = true
		for d := parent(c.Path); d != ""; d = parent(d) {
			p.dirs[d] = true
		}
		if d := parent(c.Path); d != "" {
			switch c.Status {
			case 'D':
				p.delDirs[d] = true
			case 'A':
				p.addDirs[d] = true
			}
		}
	}
	return p
}

func parent(path string) string {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return ""
	}
	return path[:i]
}

func (p *profile) sorted() []string {
	out := make([]string, 0, len(p.paths))
	for k := range p.paths {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// meets reports whether a merge of the two changes could conflict: they change one path,
// one puts a file where the other has a directory, or one deletes from a directory the
// other adds to (git's directory-rename detection may then move the added file). Anything
// else merges path by path without meeting.
func (p *profile) meets(q *profile) bool {
	if len(p.paths) > len(q.paths) {
		p, q = q, p
	}
	for path := range p.paths {
		if q.paths[path] || q.dirs[path] {
			return true
		}
	}
	for path := range q.paths {
		if p.dirs[path] {
			return true
		}
	}
	for d := range p.delDirs {
		if q.addDirs[d] {
			return true
		}
	}
	for d := range p.addDirs {
		if q.delDirs[d] {
			return true
		}
	}
	return false
}

// touches reports whether the change has file at or below, or a file at a directory
// above, the path f.
func (p *profile) touches(f string) bool {
	if p.paths[f] || p.dirs[f] {
		return true
	}
	for d := parent(f); d != ""; d = parent(d) {
		if p.paths[d] {
			return true
		}
	}
	return false
}

// Appeared returns, per job of after, the conflicts after predicts that before did not
// (a conflict with other files counts as new): what a land.predicted_conflict event tells
// a job's session, so it hears of each conflict once, when it first appears. before may
// be nil (everything in after is new). Jobs with nothing new are left out.
func Appeared(before, after *Analysis) map[string][]Conflict {
	seen := map[string]bool{}
	if before != nil {
		for _, j := range before.Jobs {
			for _, c := range j.Conflicts {
				seen[conflictKey(j.Job, c)] = true
			}
		}
	}
	out := map[string][]Conflict{}
	for _, j := range after.Jobs {
		for _, c := range j.Conflicts {
			if !seen[conflictKey(j.Job, c)] {
				out[j.Job] = append(out[j.Job], c)
			}
		}
	}
	return out
}

func conflictKey(job string, c Conflict) string {
	with := "job " + c.Job
	if c.Target {
		with = "target"
	}
	return job + "\x00" + with + "\x00" + strings.Join(c.Files, "\x00")
}
