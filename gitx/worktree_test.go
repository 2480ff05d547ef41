package gitx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const fixtureHead = "4cc7d522521fb6ba89548a225c884aa960d98902"

func TestParseWorktreeListFixtures(t *testing.T) {
	t.Parallel()
	main := Worktree{Path: "/src/app", Head: fixtureHead, Branch: "main"}
	tests := []struct {
		file string
		want []Worktree
	}{
		{"worktree-list-main.z", []Worktree{main}},
		{"worktree-list-linked.z", []Worktree{
			main,
			{Path: "/src/app.worktrees/detached", Head: fixtureHead, Detached: true, Locked: strp("")},
			{Path: "/src/app.worktrees/feat-x", Head: fixtureHead, Branch: "feat/x"},
			{Path: "/src/app.worktrees/gone", Head: fixtureHead, Branch: "gone",
				Prunable: strp("gitdir file points to non-existent location")},
			// With -z the newlines stay inside the path: no forged record.
			{Path: "/src/app.worktrees/nl\nworktree /forged\nbranch refs/heads/evil", Head: fixtureHead, Branch: "nl"},
			{Path: "/src/app.worktrees/usb", Head: fixtureHead, Branch: "usb", Locked: strp("on a USB disk\nunplugged")},
		}},
		{"worktree-list-bare.z", []Worktree{
			{Path: "/src/bare.git", Bare: true},
			{Path: "/src/bare-wt", Head: fixtureHead, Branch: "main"},
		}},
		{"worktree-list-unborn.z", []Worktree{
			{Path: "/src/unborn", Head: strings.Repeat("0", 40), Branch: "main"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseWorktreeList(readFixture(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got\n%s\nwant\n%s", dumpWorktrees(got), dumpWorktrees(tt.want))
			}
		})
	}
}

func TestParseWorktreeListInline(t *testing.T) {
	t.Parallel()
	oid := fixtureHead
	rec := func(fields ...string) string { return strings.Join(fields, "\x00") + "\x00\x00" }
	valid := []struct {
		name string
		in   string
		want []Worktree
	}{
		{"unknown attribute ignored", rec("worktree /a", "HEAD "+oid, "branch refs/heads/m", "future-thing yes", "flag2"),
			[]Worktree{{Path: "/a", Head: oid, Branch: "m"}}},
		{"neither branch nor detached", rec("worktree /a", "HEAD "+oid),
			[]Worktree{{Path: "/a", Head: oid}}},
		{"prunable without reason", rec("worktree /a", "HEAD "+oid, "detached", "prunable"),
			[]Worktree{{Path: "/a", Head: oid, Detached: true, Prunable: strp("")}}},
		{"sha256 head", rec("worktree /a", "HEAD "+strings.Repeat("ab", 32), "detached"),
			[]Worktree{{Path: "/a", Head: strings.Repeat("ab", 32), Detached: true}}},
		{"space in path", rec("worktree /a b/c ", "HEAD "+oid, "detached"),
			[]Worktree{{Path: "/a b/c ", Head: oid, Detached: true}}},
	}
	for _, tt := range valid {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseWorktreeList([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got\n%s\nwant\n%s", dumpWorktrees(got), dumpWorktrees(tt.want))
			}
		})
	}

	malformed := []struct {
		name, in, wantErr string
	}{
		{"empty", "", "empty"},
		{"newline format, not -z", "worktree /a\nHEAD " + oid + "\nbranch refs/heads/m\n\n", "not NUL-terminated"},
		{"record not starting with worktree", rec("HEAD "+oid, "worktree /a"), "not \"worktree <path>\""},
		{"relative path", rec("worktree a/b", "HEAD "+oid, "detached"), "not absolute"},
		{"empty path", rec("worktree ", "HEAD "+oid, "detached"), "not absolute"},
		{"missing final NUL", "worktree /a\x00HEAD " + oid + "\x00detached\x00", "not terminated"},
		{"truncated field", "worktree /a\x00HEAD " + oid[:10], "not NUL-terminated"},
		{"empty record", "\x00", "not \"worktree <path>\""},
		{"extra NUL between records", rec("worktree /a", "HEAD "+oid, "detached") + "\x00", "not \"worktree <path>\""},
		{"two paths in one record", rec("worktree /a", "worktree /b", "HEAD "+oid), "second \"worktree\""},
		{"short HEAD", rec("worktree /a", "HEAD abc", "detached"), "not a full object id"},
		{"uppercase HEAD", rec("worktree /a", "HEAD "+strings.ToUpper(oid), "detached"), "not a full object id"},
		{"no HEAD", rec("worktree /a", "branch refs/heads/m"), "no HEAD"},
		{"repeated HEAD", rec("worktree /a", "HEAD "+oid, "HEAD "+oid), "repeated"},
		{"branch outside refs/heads", rec("worktree /a", "HEAD "+oid, "branch refs/tags/v1"), "not under refs/heads/"},
		{"empty branch", rec("worktree /a", "HEAD "+oid, "branch refs/heads/"), "not under refs/heads/"},
		{"branch and detached", rec("worktree /a", "HEAD "+oid, "branch refs/heads/m", "detached"), "both"},
		{"bare with HEAD", rec("worktree /a", "bare", "HEAD "+oid), "bare but"},
		{"detached with value", rec("worktree /a", "HEAD "+oid, "detached yes"), "takes no value"},
		{"garbage attribute", rec("worktree /a", "HEAD "+oid, "\xff\x01junk"), "malformed attribute"},
		{"attribute starting with space", rec("worktree /a", "HEAD "+oid, " locked"), "malformed attribute"},
	}
	for _, tt := range malformed {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseWorktreeList([]byte(tt.in))
			if err == nil {
				t.Fatalf("want error containing %q, got %s", tt.wantErr, dumpWorktrees(got))
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func FuzzParseWorktreeList(f *testing.F) {
	for _, p := range fixtures(f, "worktree-list-") {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("worktree /a\x00HEAD " + fixtureHead + "\x00locked \x00prunable x\x00\x00"))
	f.Add([]byte("worktree /a\nHEAD x\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		list, err := ParseWorktreeList(b)
		if err != nil {
			return
		}
		if len(list) == 0 {
			t.Fatal("success with no worktrees")
		}
		for _, w := range list {
			if !filepath.IsAbs(w.Path) {
				t.Fatalf("relative path %q", w.Path)
			}
			if w.Bare != (w.Head == "") || (w.Head != "" && !isOID(w.Head)) {
				t.Fatalf("bad head %q (bare=%v)", w.Head, w.Bare)
			}
			if w.Branch != "" && (w.Detached || w.Bare) {
				t.Fatalf("branch %q on a detached or bare worktree", w.Branch)
			}
		}
		// What was parsed, written back in git's format, parses to the same.
		again, err := ParseWorktreeList(encodeWorktrees(list))
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if !reflect.DeepEqual(again, list) {
			t.Fatalf("round trip changed the list:\n%s\n%s", dumpWorktrees(list), dumpWorktrees(again))
		}
	})
}

// TestWorktreesNewlinePath is the end-to-end proof for DESIGN §4: a real
// linked worktree whose path contains newlines (shaped like porcelain lines)
// comes back from Worktrees as one worktree with the exact path.
func TestWorktreesNewlinePath(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	evil := s.path("wt\nworktree /etc\nbranch refs/heads/main")
	s.git(repo, "worktree", "add", "-q", "-b", "evil", "--", evil, "main")

	list, raw, err := s.runner().Worktrees(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(evil+"\x00")) {
		t.Fatalf("raw output does not hold the path verbatim: %q", raw)
	}
	want := []Worktree{
		{Path: repo, Head: list[0].Head, Branch: "main"},
		{Path: evil, Head: list[0].Head, Branch: "evil"},
	}
	if !reflect.DeepEqual(list, want) {
		t.Fatalf("got\n%s\nwant\n%s", dumpWorktrees(list), dumpWorktrees(want))
	}
	if _, err := os.Stat(filepath.Join(evil, "README")); err != nil {
		t.Fatalf("the worktree is not where the parsed path says: %v", err)
	}
}

// encodeWorktrees writes a list back in `worktree list --porcelain -z` form.
func encodeWorktrees(list []Worktree) []byte {
	var b bytes.Buffer
	opt := func(name string, v *string) {
		switch {
		case v == nil:
		case *v == "":
			b.WriteString(name + "\x00")
		default:
			b.WriteString(name + " " + *v + "\x00")
		}
	}
	for _, w := range list {
		b.WriteString("worktree " + w.Path + "\x00")
		if w.Bare {
			b.WriteString("bare\x00")
		} else {
			b.WriteString("HEAD " + w.Head + "\x00")
			if w.Detached {
				b.WriteString("detached\x00")
			} else if w.Branch != "" {
				b.WriteString("branch refs/heads/" + w.Branch + "\x00")
			}
		}
		opt("locked", w.Locked)
		opt("prunable", w.Prunable)
		b.WriteByte(0)
	}
	return b.Bytes()
}

func dumpWorktrees(list []Worktree) string {
	var b strings.Builder
	for _, w := range list {
		ptr := func(p *string) string {
			if p == nil {
				return "nil"
			}
			return fmt.Sprintf("%q", *p)
		}
		fmt.Fprintf(&b, "  {Path:%q Head:%q Branch:%q Bare:%v Detached:%v Locked:%s Prunable:%s}\n",
			w.Path, w.Head, w.Branch, w.Bare, w.Detached, ptr(w.Locked), ptr(w.Prunable))
	}
	return b.String()
}
