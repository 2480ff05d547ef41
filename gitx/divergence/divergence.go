// Package divergence counts how far commits are from a base commit (the picker's "↑2 ↓5
// against main") and keeps every answer by the pair of commits it is about. Two commits'
// counts never change: they are a fact of the commit graph, which adding commits or
// moving refs does not alter. So a worktree whose HEAD is the base is 0 and 0 without git,
// an answer is asked of git once per pair and process, and the answers are kept across
// starts in the repository's status-cache directory, unless the repository has what can
// change the graph git walks (grafts, replace refs, a shallow boundary): there they are
// kept for the process only.
package divergence

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/copse-dev/copse/gitx"
)

// Counts are the commits only on the head and only on the base.
type Counts struct {
	Ahead, Behind int
}

// maxPairs bounds the file: past it the file is started afresh (the answers are cheap to
// ask again, and pairs of commits long gone would otherwise pile up).
const maxPairs = 8192

// version is the file's format; a file of another is ignored and replaced.
const version = 1

// Cache holds the answers for one repository. Safe for concurrent use.
type Cache struct {
	common string // the repository's common git directory

	mu      sync.Mutex
	loaded  bool
	durable bool // the answers may be kept in the file
	pairs   map[string]Counts
	dirty   bool

	// asked counts the git processes Count ran (tests).
	asked int
}

var (
	registryMu sync.Mutex
	registry   = map[string]*Cache{}
)

// For is the Cache of the repository whose common git directory is common, one per
// process: the picker's reloads, and any Service of the same repository, share it.
func For(common string) *Cache {
	registryMu.Lock()
	defer registryMu.Unlock()
	c, ok := registry[common]
	if !ok {
		c = &Cache{common: common}
		registry[common] = c
	}
	return c
}

func (c *Cache) file() string { return filepath.Join(c.common, "copse-status", "divergence.json") }

type fileFormat struct {
	Version int               `json:"v"`
	Pairs   map[string][2]int `json:"p"`
}

// load reads the file once (under c.mu).
func (c *Cache) load() {
	if c.loaded {
		return
	}
	c.loaded = true
	c.pairs = map[string]Counts{}
	c.durable = graphFixed(c.common)
	if !c.durable {
		return
	}
	b, err := os.ReadFile(c.file())
	if err != nil {
		return
	}
	var f fileFormat
	if json.Unmarshal(b, &f) != nil || f.Version != version {
		return
	}
	for k, v := range f.Pairs {
		c.pairs[k] = Counts{Ahead: v[0], Behind: v[1]}
	}
}

// graphFixed reports that nothing in the repository can make git walk another graph for
// the same two commits: no shallow file, no grafts, no replace refs (loose or packed).
// Anything it cannot read counts as something.
func graphFixed(common string) bool {
	for _, f := range []string{"shallow", filepath.Join("info", "grafts")} {
		if _, err := os.Lstat(filepath.Join(common, f)); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	if names, err := os.ReadDir(filepath.Join(common, "refs", "replace")); len(names) > 0 || (err != nil && !errors.Is(err, fs.ErrNotExist)) {
		return false
	}
	b, err := os.ReadFile(filepath.Join(common, "packed-refs"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return !bytes.Contains(b, []byte(" refs/replace/"))
}

// Count is how far head is from base (both full object ids), git's
// `rev-list --left-right --count base...head` run in dir when no answer is known.
func (c *Cache) Count(ctx context.Context, git *gitx.Runner, dir, base, head string) (Counts, error) {
	if base == head {
		return Counts{}, nil // the same commit: nothing either side, whatever the graph
	}
	key := base + " " + head
	c.mu.Lock()
	c.load()
	d, ok := c.pairs[key]
	c.mu.Unlock()
	if ok {
		return d, nil
	}
	behind, ahead, err := git.Divergence(ctx, dir, base, head)
	if err != nil {
		return Counts{}, err
	}
	d = Counts{Ahead: ahead, Behind: behind}
	c.mu.Lock()
	c.pairs[key] = d
	c.dirty = true
	c.asked++
	c.mu.Unlock()
	return d, nil
}

// Flush writes the answers learnt since the last Flush to the file (by rename: a reader
// sees the old file or the new one), merged with what another process wrote meanwhile.
// Failures are ignored: the file only ever saves git processes.
func (c *Cache) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty || !c.durable {
		return
	}
	c.dirty = false
	f := fileFormat{Version: version, Pairs: map[string][2]int{}}
	if b, err := os.ReadFile(c.file()); err == nil {
		var old fileFormat
		if json.Unmarshal(b, &old) == nil && old.Version == version && len(old.Pairs) < maxPairs {
			f.Pairs = old.Pairs
		}
	}
	if len(f.Pairs)+len(c.pairs) > maxPairs {
		f.Pairs = map[string][2]int{}
	}
	for k, v := range c.pairs {
		f.Pairs[k] = [2]int{v.Ahead, v.Behind}
	}
	b, err := json.Marshal(f)
	if err != nil {
		return
	}
	// Only the cache's own directory is made: a repository removed meanwhile must not
	// come back as an empty git directory holding a cache.
	dir := filepath.Dir(c.file())
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return
	}
	tmp, err := os.CreateTemp(dir, ".tmp-div-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), c.file()) != nil {
		os.Remove(tmp.Name())
	}
}
