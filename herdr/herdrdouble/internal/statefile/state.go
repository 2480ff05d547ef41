// Package statefile is the on-disk state of the Herdr test double: the workspaces its
// pretend server has open and the id counter. It is shared by the double (which mutates it)
// and by herdrdouble (which lets tests seed and inspect it), so both agree on one schema.
// copse itself never reads it.
package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// State is what a running Herdr server would hold in memory.
type State struct {
	// Next is the last workspace counter handed out; ids are "w" + Encode(n), n from 1.
	Next int `json:"next"`
	// Terminals counts terminal ids handed out (term_<hex>), so they never repeat.
	Terminals int `json:"terminals"`
	// Focused is the id of the UI-focused workspace ("" when none).
	Focused    string      `json:"focused,omitempty"`
	Workspaces []Workspace `json:"workspaces"`
}

// Workspace is one open workspace. RepoRoot set means Herdr worktree membership (a
// workspace made by `worktree create/open`); a plain workspace has none and so cannot be
// removed with `worktree remove` (not_linked_worktree).
type Workspace struct {
	ID       string `json:"id"`
	Checkout string `json:"checkout"`
	RepoRoot string `json:"repo_root,omitempty"`
	RepoKey  string `json:"repo_key,omitempty"`
	Linked   bool   `json:"linked"`
	Label    string `json:"label"`
	// AgentStatus is what `workspace list` reports as agent_status (idle, working, blocked,
	// done, unknown); "" is "unknown", a workspace whose panes run no agent. Tests set it.
	AgentStatus string `json:"agent_status,omitempty"`
}

// Load reads the state file; a missing or empty file is an empty server.
func Load(path string) (State, error) {
	var s State
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(b) == 0) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("fake herdr state %s: %w", path, err)
	}
	return s, nil
}

// Save writes the state through a temporary file and a rename, so a reader (or a double
// killed mid-write by a test's timeout) never sees half a file.
func Save(path string, s State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Update runs fn on the state under an exclusive lock and saves the result if fn succeeds.
// Tests run several doubles at once against one state file; the lock makes each
// invocation atomic, like requests handled one at a time by a real server.
func Update(path string, fn func(*State) error) error {
	unlock, err := lock(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	s, err := Load(path)
	if err != nil {
		return err
	}
	if err := fn(&s); err != nil {
		return err
	}
	return Save(path, s)
}

// Find returns the index of the workspace with id, or -1.
func (s State) Find(id string) int {
	for i, w := range s.Workspaces {
		if w.ID == id {
			return i
		}
	}
	return -1
}

// FindCheckout returns the index of the workspace showing checkout, or -1.
func (s State) FindCheckout(checkout string) int {
	for i, w := range s.Workspaces {
		if w.Checkout == checkout {
			return i
		}
	}
	return -1
}

// Alphabet is Herdr's bijective base-32 digit set for ids (protocol reference §4.3).
const Alphabet = "123456789ABCDEFGHJKMNPQRSTVWXYZ0"

// Encode is bijective base-32 over Alphabet: 1→"1", 10→"A", 32→"0", 33→"11".
func Encode(n int) string {
	if n <= 0 {
		return ""
	}
	var out []byte
	for n > 0 {
		n--
		out = append([]byte{Alphabet[n%32]}, out...)
		n /= 32
	}
	return string(out)
}

// NewID hands out the next workspace id.
func (s *State) NewID() string {
	s.Next++
	return "w" + Encode(s.Next)
}
