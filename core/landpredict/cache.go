package landpredict

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"

	"github.com/copse-dev/copse/gitx"
	"github.com/copse-dev/copse/internal/atomicfile"
	"github.com/copse-dev/copse/internal/textsafe"
)

// Cache holds git's answers keyed by the commit and tree ids they depend on, which never
// change meaning: the paths a tip changes since it forked from a target (target, tip),
// merges (the two commits) and stacked commits (tree, parent, message). An analysis
// whose target and tips are the ones seen before is answered from it alone; a moved tip
// or target gives new keys, so only what depends on it is asked again. A Cache can be
// saved to a file and loaded by the next copse process (one-shot commands such as `copse
// land queue` are warm then too).
type Cache struct {
	mu      sync.Mutex
	changes map[string][]gitx.Change
	merges  map[string]gitx.MergeResult
	commits map[string]string
	used    map[string]bool // keys read or written since the cache was made, loaded or trimmed
	dirty   bool            // something was added since it was loaded or saved
	limit   int             // answers kept at most (defaultLimit)
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	c := &Cache{limit: defaultLimit}
	c.reset()
	return c
}

func (c *Cache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changes = map[string][]gitx.Change{}
	c.merges = map[string]gitx.MergeResult{}
	c.commits = map[string]string{}
	c.used = map[string]bool{}
	c.dirty = true
}

func (c *Cache) empty() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.changes)+len(c.merges)+len(c.commits) == 0
}

// Len is the number of answers the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.changes) + len(c.merges) + len(c.commits)
}

// cacheVersion is the saved file's format; a file of another version is ignored.
const cacheVersion = 1

// defaultLimit bounds a cache, in memory and saved: past it, the answers not used since
// the last trim (for targets and tips no longer queued) are dropped. An answer is a few
// hundred bytes; a queue of 20 jobs uses about 60.
const defaultLimit = 4096

type savedChange struct {
	S string `json:"s"`
	P string `json:"p"`
}

type cacheFile struct {
	V       int                         `json:"v"`
	Changes map[string][]savedChange    `json:"changes"`
	Merges  map[string]gitx.MergeResult `json:"merges"`
	Commits map[string]string           `json:"commits"`
}

// LoadCache reads a cache saved by Save. A missing, unreadable or damaged file gives an
// empty cache: it only ever spares git work.
func LoadCache(path string) *Cache {
	c := NewCache()
	c.dirty = false
	b, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	var f cacheFile
	if json.Unmarshal(b, &f) != nil || f.V != cacheVersion {
		return c
	}
	for k, v := range f.Changes {
		ch := make([]gitx.Change, 0, len(v))
		ok := validKey(k, 2)
		for _, s := range v {
			if len(s.S) != 1 || s.P == "" {
				ok = false
				break
			}
			ch = append(ch, gitx.Change{Status: s.S[0], Path: s.P})
		}
		if ok {
			c.changes[k] = ch
		}
	}
	for k, v := range f.Merges {
		if validKey(k, 2) && isOID(v.Tree) {
			c.merges[k] = v
		}
	}
	for k, v := range f.Commits {
		if validKey(k, 2) && isOID(v) {
			c.commits[k] = v
		}
	}
	return c
}

// validKey checks that a saved key starts with n object ids (a cache file is ours, but a
// damaged one must not feed git a value the builders would refuse anyway).
func validKey(k string, n int) bool {
	f := strings.SplitN(k, " ", n+1)
	if len(f) < n {
		return false
	}
	for _, id := range f[:n] {
		if !isOID(id) {
			return false
		}
	}
	return true
}

// Save writes the cache to path (replacing it whole, so a concurrent reader sees the old
// file or the new one) when it learnt something since it was loaded. The directory must
// exist.
func (c *Cache) Save(path string) error {
	c.mu.Lock()
	if !c.dirty {
		c.mu.Unlock()
		return nil
	}
	f := cacheFile{V: cacheVersion, Changes: map[string][]savedChange{}, Merges: map[string]gitx.MergeResult{},
		Commits: map[string]string{}}
	room := c.limit - len(c.used)
	keep := func(key string) bool {
		if c.used[key] {
			return true
		}
		room--
		return room >= 0
	}
	for k, v := range c.changes {
		if keep("c " + k) {
			s := make([]savedChange, len(v))
			for i, ch := range v {
				s[i] = savedChange{S: string(ch.Status), P: ch.Path}
			}
			f.Changes[k] = s
		}
	}
	for k, v := range c.merges {
		if keep("m " + k) {
			f.Merges[k] = v
		}
	}
	for k, v := range c.commits {
		if keep("k " + k) {
			f.Commits[k] = v
		}
	}
	c.mu.Unlock()
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, b, 0o644); err != nil {
		return err
	}
	c.mu.Lock()
	c.dirty = false
	c.mu.Unlock()
	return nil
}

// trim drops the answers not used since the last trim once the cache holds more than its
// limit, so a long-lived process (the picker) that watches a queue for hours stays small.
func (c *Cache) trim() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.changes)+len(c.merges)+len(c.commits) <= c.limit {
		return
	}
	for k := range c.changes {
		if !c.used["c "+k] {
			delete(c.changes, k)
		}
	}
	for k := range c.merges {
		if !c.used["m "+k] {
			delete(c.merges, k)
		}
	}
	for k := range c.commits {
		if !c.used["k "+k] {
			delete(c.commits, k)
		}
	}
	c.used = map[string]bool{}
	c.dirty = true
}

func (c *Cache) getChanges(key string) ([]gitx.Change, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.changes[key]
	if ok {
		c.used["c "+key] = true
	}
	return v, ok
}

func (c *Cache) putChanges(key string, v []gitx.Change) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changes[key], c.used["c "+key], c.dirty = v, true, true
}

func (c *Cache) getMerge(key string) (gitx.MergeResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.merges[key]
	if ok {
		c.used["m "+key] = true
	}
	return v, ok
}

func (c *Cache) putMerge(key string, v gitx.MergeResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.merges[key], c.used["m "+key], c.dirty = v, true, true
}

func (c *Cache) getCommit(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.commits[key]
	if ok {
		c.used["k "+key] = true
	}
	return v, ok
}

func (c *Cache) putCommit(key, v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.commits[key], c.used["k "+key], c.dirty = v, true, true
}

// ---- git, through the cache ----

// changes is the paths tip changes since it forked from target.
func (p *Predictor) changes(ctx context.Context, target, tip string) ([]gitx.Change, error) {
	key := target + " " + tip
	if v, ok := p.cache.getChanges(key); ok {
		return v, nil
	}
	v, err := p.git.ForkChanges(ctx, p.dir, target, tip)
	if err != nil {
		return nil, err
	}
	p.cache.putChanges(key, v)
	return v, nil
}

// merge is one in-memory merge of two commits.
func (p *Predictor) merge(ctx context.Context, a, b string) (gitx.MergeResult, error) {
	key := a + " " + b
	if v, ok := p.cache.getMerge(key); ok {
		return v, nil
	}
	v, err := p.git.MergeTreeNames(ctx, p.dir, a, b)
	if err != nil {
		return gitx.MergeResult{}, err
	}
	p.cache.putMerge(key, v)
	return v, nil
}

// merges does the merges of pairs the cache does not answer in one git process. A merge
// git cannot do at all (unrelated histories) gets its reason in failed, and the others
// still run; any other failure is an error.
func (p *Predictor) merges(ctx context.Context, pairs [][2]string) (res []gitx.MergeResult, failed []string, err error) {
	res = make([]gitx.MergeResult, len(pairs))
	failed = make([]string, len(pairs))
	var todo []int
	for i, pr := range pairs {
		if v, ok := p.cache.getMerge(pr[0] + " " + pr[1]); ok {
			res[i] = v
		} else {
			todo = append(todo, i)
		}
	}
	for len(todo) > 0 {
		batch := make([][2]string, len(todo))
		for k, i := range todo {
			batch[k] = pairs[i]
		}
		got, err := p.git.MergeTrees(ctx, p.dir, batch)
		for k, m := range got {
			res[todo[k]] = m
			p.cache.putMerge(batch[k][0]+" "+batch[k][1], m)
		}
		if err == nil {
			break
		}
		var ge *gitx.Error
		if len(got) >= len(todo) || !errors.As(err, &ge) || ge.Kind != gitx.ErrExit {
			return nil, nil, err
		}
		failed[todo[len(got)]] = gitReason(ge)
		todo = todo[len(got)+1:]
	}
	return res, failed, nil
}

// gitReason is git's own first line of complaint, without its "fatal: ".
func gitReason(e *gitx.Error) string {
	line, _, _ := strings.Cut(strings.TrimSpace(e.Stderr), "\n")
	if line = strings.TrimPrefix(line, "fatal: "); line == "" {
		return e.Error()
	}
	return textsafe.Escape(line)
}

// commit is the stacked commit of tree on parent.
func (p *Predictor) commit(ctx context.Context, tree, parent, message string) (string, error) {
	key := tree + " " + parent + " " + message
	if v, ok := p.cache.getCommit(key); ok {
		return v, nil
	}
	v, err := p.git.StackCommit(ctx, p.dir, tree, parent, message)
	if err != nil {
		return "", err
	}
	p.cache.putCommit(key, v)
	return v, nil
}
