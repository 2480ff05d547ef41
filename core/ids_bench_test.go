package core

import (
	"context"
	"fmt"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// BenchmarkListIDs measures what ids and claims add to list: decorating the rows of 100
// linked worktrees (reading their admin directories), against reading git's list itself.
func BenchmarkListIDs(b *testing.B) {
	r := coretest.New(b)
	for i := range 100 {
		r.Git(r.Root, "worktree", "add", "-q", "--detach", fmt.Sprintf("%s/wt/%03d", r.Base, i))
	}
	s, err := Open(context.Background(), Options{Registry: testOps, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	snap, err := s.impl.Read(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("git-list", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.impl.Read(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decorate", func(b *testing.B) {
		for b.Loop() {
			rows := s.impl.rows(snap)
			s.impl.decorateRows(ctx, snap, rows)
			if rows[1].ID == "" {
				b.Fatal("no id")
			}
		}
	})
}
