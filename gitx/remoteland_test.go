package gitx

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Records go in as blobs of a flat tree on a parent commit, without a worktree or an
// index, and come back byte for byte; the worktree's index and HEAD are untouched.
func TestRecordTreeRoundTrip(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	s.commit(repo, "a.txt", "a\n", "first")
	head := strings.TrimSpace(s.git(repo, "rev-parse", "HEAD"))
	r, ctx := s.runner(), context.Background()
	recs := map[string]string{"r1.json": "{\"id\":\"r1\"}\n", "r2.json": "two\x00bytes\n"}
	var entries []TreeEntry
	for name, body := range recs {
		oid, err := r.WriteBlob(ctx, repo, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, TreeEntry{Name: name, Blob: oid})
	}
	c, err := r.CommitRecords(ctx, repo, entries, head, "queue: enqueue r1 r2")
	if err != nil {
		t.Fatal(err)
	}
	if p := strings.TrimSpace(s.git(repo, "rev-parse", c+"^")); p != head {
		t.Errorf("parent %s, want %s", p, head)
	}
	items, err := r.ReadTreeItems(ctx, repo, c)
	if err != nil {
		t.Fatal(err)
	}
	var oids []string
	for _, it := range items {
		oids = append(oids, it.OID)
	}
	blobs, err := r.ReadBlobs(ctx, repo, oids)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 {
		t.Fatalf("tree %+v", items)
	}
	for _, it := range items {
		if it.Mode != "100644" || it.Type != "blob" || string(blobs[it.OID]) != recs[it.Name] {
			t.Errorf("%+v holds %q, want %q", it, blobs[it.OID], recs[it.Name])
		}
	}
	if st := s.git(repo, "status", "--porcelain"); st != "" {
		t.Errorf("the worktree changed: %q", st)
	}
	if h := strings.TrimSpace(s.git(repo, "rev-parse", "HEAD")); h != head {
		t.Errorf("HEAD moved to %s", h)
	}
	// An empty tree is a tree too (a queue whose last record was removed).
	if _, err := r.CommitRecords(ctx, repo, nil, c, "empty"); err != nil {
		t.Fatal(err)
	}
}

// A note is built on the notes commit given, as git notes would, and no ref is left.
func TestNoteCommitBuildsOnBase(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	s.commit(repo, "a.txt", "a\n", "first")
	one := strings.TrimSpace(s.git(repo, "rev-parse", "HEAD"))
	s.commit(repo, "b.txt", "b\n", "second")
	two := strings.TrimSpace(s.git(repo, "rev-parse", "HEAD"))
	r, ctx := s.runner(), context.Background()
	first, err := r.NoteCommit(ctx, repo, "", one, `{"job":"r1"}`)
	if err != nil {
		t.Fatal(err)
	}
	second, err := r.NoteCommit(ctx, repo, first, two, `{"job":"r2"}`)
	if err != nil {
		t.Fatal(err)
	}
	s.git(repo, "update-ref", "refs/notes/check", second)
	if n := strings.TrimSpace(s.git(repo, "notes", "--ref=refs/notes/check", "show", one)); n != `{"job":"r1"}` {
		t.Errorf("note of the first commit %q", n)
	}
	if n := strings.TrimSpace(s.git(repo, "notes", "--ref=refs/notes/check", "show", two)); n != `{"job":"r2"}` {
		t.Errorf("note of the second commit %q", n)
	}
	if p := strings.TrimSpace(s.git(repo, "rev-parse", second+"^")); p != first {
		t.Errorf("notes commit's parent %s, want %s", p, first)
	}
	if left := s.git(repo, "for-each-ref", "refs/notes/copse-scratch/"); left != "" {
		t.Errorf("scratch refs left: %s", left)
	}
}

// Values that git would read as options or as other paths are refused before git runs.
func TestRemoteLandBuildersRefuse(t *testing.T) {
	t.Parallel()
	oid := strings.Repeat("a", 40)
	for name, build := range map[string]func() (Cmd, error){
		"remote option":  func() (Cmd, error) { return LsRemoteCmd("/r", "--upload-pack=x", []string{"refs/heads/main"}) },
		"short ref":      func() (Cmd, error) { return FetchRefsCmd("/r", "origin", []string{"main"}) },
		"no refs":        func() (Cmd, error) { return FetchRefsCmd("/r", "origin", nil) },
		"slash in entry": func() (Cmd, error) { return MkTreeCmd("/r", []TreeEntry{{Name: "a/b", Blob: oid}}) },
		"twice": func() (Cmd, error) {
			return MkTreeCmd("/r", []TreeEntry{{Name: "a", Blob: oid}, {Name: "a", Blob: oid}})
		},
		"delete blind": func() (Cmd, error) { return PushAtomicCmd("/r", "origin", []RefUpdate{{Ref: "refs/heads/x"}}) },
		"ref twice": func() (Cmd, error) {
			return PushAtomicCmd("/r", "origin", []RefUpdate{{Ref: "refs/heads/x", New: oid}, {Ref: "refs/heads/x", New: oid}})
		},
		"notes outside": func() (Cmd, error) { return NotesAddCmd("/r", "refs/copse/n", oid, "m") },
		"huge record":   func() (Cmd, error) { return WriteBlobCmd("/r", make([]byte, maxRecordBytes+1)) },
	} {
		var be *BuildError
		if _, err := build(); !errors.As(err, &be) {
			t.Errorf("%s: %v, want a BuildError", name, err)
		}
	}
	c, err := PushAtomicCmd("/r", "origin", []RefUpdate{{Ref: "refs/heads/main", New: oid, Expect: strings.Repeat("b", 40)}, {Ref: "refs/copse/q", New: oid}})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(c.Argv(), " ")
	for _, want := range []string{"--atomic --porcelain", "--force-with-lease=refs/heads/main:" + strings.Repeat("b", 40), "--force-with-lease=refs/copse/q: ", "-- origin " + oid + ":refs/heads/main " + oid + ":refs/copse/q"} {
		if !strings.Contains(got, want) {
			t.Errorf("argv %q lacks %q", got, want)
		}
	}
}

// The porcelain report is read per ref, the server's lines kept without git's padding,
// and a lock lost in the server's own transaction counted as a lost lease.
func TestParsePushPorcelain(t *testing.T) {
	t.Parallel()
	out := "To file:///srv.git\n" +
		"!\tX:refs/heads/main\t[remote rejected] (atomic transaction failed)\n" +
		"!\tX:refs/copse/queue/main\t[remote rejected] (atomic transaction failed)\n" +
		" \tX:refs/notes/copse-land\te1b0635..1129e99\n" +
		"Done\n"
	stderr := "remote: error: cannot lock ref 'refs/copse/queue/main': is at 5c05 but expected a36f        \n" +
		"error: failed to push some refs to 'file:///srv.git'\n"
	res := ParsePushPorcelain([]byte(out), stderr)
	want := map[string]PushStatus{"refs/heads/main": PushAtomicFailed, "refs/copse/queue/main": PushStale, "refs/notes/copse-land": PushOK}
	for ref, st := range want {
		if rr, ok := res.Ref(ref); !ok || rr.Status != st {
			t.Errorf("%s: %+v, want %s", ref, rr, st)
		}
	}
	if res.Message() != "error: cannot lock ref 'refs/copse/queue/main': is at 5c05 but expected a36f" {
		t.Errorf("message %q", res.Message())
	}
	hook := ParsePushPorcelain([]byte("!\tX:refs/heads/main\t[remote rejected] (pre-receive hook declined)\n"), "remote: no\x1b[K\n")
	if rr, _ := hook.Ref("refs/heads/main"); rr.Status != PushRemoteRejected || rr.Reason != "pre-receive hook declined" || hook.Message() != "no" {
		t.Errorf("hook: %+v", hook)
	}
}
