package eventlog

import (
	"os"
	"slices"
	"testing"
)

func appendN(t *testing.T, cd string, n int) []int64 {
	t.Helper()
	var seqs []int64
	for range n {
		ev, err := Append(cd, Event{Event: "worktree.created", Repo: "/r"})
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, ev.Seq)
	}
	return seqs
}

func logSeqs(t *testing.T, cd string) []int64 {
	t.Helper()
	var seqs []int64
	if _, err := Read(cd, 0, func(ev Event, _ []byte) error {
		seqs = append(seqs, ev.Seq)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return seqs
}

// seq only grows: after the log is truncated in place, renamed away (with or without the
// high-water mark) or loses its tail, the next event gets a seq never handed out before.
func TestEventSeqOnlyGrows(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, cd string)
	}{
		{"truncated in place", func(t *testing.T, cd string) {
			if err := os.Truncate(Path(cd), 0); err != nil {
				t.Fatal(err)
			}
		}},
		{"renamed away", func(t *testing.T, cd string) {
			if err := os.Rename(Path(cd), rotatedPath(cd)); err != nil {
				t.Fatal(err)
			}
		}},
		{"renamed away with the mark lost", func(t *testing.T, cd string) {
			if err := os.Rename(Path(cd), rotatedPath(cd)); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(seqPath(cd)); err != nil {
				t.Fatal(err)
			}
		}},
		{"torn tail", func(t *testing.T, cd string) {
			st, err := os.Stat(Path(cd))
			if err != nil {
				t.Fatal(err)
			}
			// Cut the last line in half: its seq (3) is gone from the log.
			if err := os.Truncate(Path(cd), st.Size()-20); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cd := t.TempDir()
			if got := appendN(t, cd, 3); !slices.Equal(got, []int64{1, 2, 3}) {
				t.Fatalf("first seqs %v", got)
			}
			c.damage(t, cd)
			if got := appendN(t, cd, 2); !slices.Equal(got, []int64{4, 5}) {
				t.Fatalf("after the damage, seqs %v; want [4 5]", got)
			}
			if got := logSeqs(t, cd); len(got) < 2 || !slices.Equal(got[len(got)-2:], []int64{4, 5}) || !slices.IsSorted(got) {
				t.Fatalf("the log reads %v", got)
			}
		})
	}
}

// The follower misses nothing across either rotation, and hands out nothing twice: events
// appended just before a rename land in the old file, those before a copytruncate in
// the copy, and both are read before the new log.
func TestFollowerAcrossRotation(t *testing.T) {
	cd := t.TempDir()
	var got []int64
	collect := func(ev Event, _ []byte) error {
		got = append(got, ev.Seq)
		return nil
	}
	w := &follower{path: Path(cd)}
	defer w.close()
	step := func(want ...int64) {
		t.Helper()
		got = nil
		if err := w.poll(collect); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("poll read %v; want %v", got, want)
		}
	}
	step() // no log yet
	appendN(t, cd, 2)
	step(1, 2)

	// Rename rotation between two polls: 3 went to the old file, 4 to the new one.
	appendN(t, cd, 1)
	if err := os.Rename(Path(cd), rotatedPath(cd)); err != nil {
		t.Fatal(err)
	}
	step(3) // the new log is not there yet: the rest of the old one is read
	appendN(t, cd, 1)
	step(4)

	copytruncate := func() {
		t.Helper()
		b, err := os.ReadFile(Path(cd))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(rotatedPath(cd), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(Path(cd), 0); err != nil {
			t.Fatal(err)
		}
	}
	// copytruncate between two polls, and the log grows back past the offset read before
	// the next one: 5 was copied out, then the log emptied, then 6, 7, 8.
	appendN(t, cd, 1)
	copytruncate()
	appendN(t, cd, 3)
	step(5, 6, 7, 8)
	// copytruncate, and the log is shorter than what was read: 9 copied out, then 10.
	appendN(t, cd, 1)
	copytruncate()
	appendN(t, cd, 1)
	step(9, 10)

	// A rename with the successor already written: 11 in the old file, 12 in the new.
	appendN(t, cd, 1)
	if err := os.Rename(Path(cd), rotatedPath(cd)); err != nil {
		t.Fatal(err)
	}
	appendN(t, cd, 1)
	step(11, 12)
	appendN(t, cd, 1)
	step(13)
}
