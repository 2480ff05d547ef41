package removal

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// The verdict on one removal, which remove, prune and land's clean-up share: every
// combination of "the run failed", "git lists it", "it is on disk", "git knew it was gone"
// and "the list is unchanged".
func TestJudgeRemoval(t *testing.T) {
	cases := []struct {
		name                                       string
		failed, listed, onDisk, prunable, sameList bool
		want                                       removalVerdict
	}{
		{"gone, run ok", false, false, false, false, true, RemovalDone},
		{"gone, run ok, list moved", false, false, false, false, false, RemovalDone},
		{"gone though the run failed", true, false, false, false, true, RemovalGoneAnyway},
		{"refused: all still there", true, true, true, false, true, RemovalNothing},
		{"refused: prunable entry still listed", true, true, false, true, true, RemovalNothing},
		{"failed and the list moved", true, true, true, false, false, RemovalPartial},
		{"failed, directory gone, still listed", true, true, false, false, true, RemovalPartial},
		{"failed, unlisted, directory left", true, false, true, false, true, RemovalPartial},
		{"ok but all still there", false, true, true, false, true, RemovalIncomplete},
		{"ok but still listed", false, true, false, false, true, RemovalIncomplete},
		{"ok but directory left", false, false, true, false, true, RemovalIncomplete},
		{"ok, list moved, still there", false, true, true, false, false, RemovalIncomplete},
	}
	for _, c := range cases {
		if got := judgeRemoval(c.failed, c.listed, c.onDisk, c.prunable, c.sameList); got != c.want {
			t.Errorf("%s: judgeRemoval = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestParseEntryRejectsForgedRecords(t *testing.T) {
	t.Parallel()
	const commit = "0123456789abcdef0123456789abcdef01234567"
	const oid = "89abcdef0123456789abcdef0123456789abcdef"
	good := removedMeta{V: 1, Path: "/src/app.worktrees/x\nnewline", Branch: "feat/x", Head: oid,
		Time: time.Unix(1700000000, 0).UTC(), WorktreeTree: oid, IndexTree: oid, IndexCommit: oid}
	msg := func(m removedMeta) string {
		js, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return "copse: removed worktree x\n\n" + metaKey + string(js) + "\n"
	}
	ref := func(id, message string) gitx.RemovedRef {
		return gitx.RemovedRef{Name: gitx.RemovedRefPrefix + id, Commit: commit, Message: message}
	}
	e, err := parseEntry(ref(commit[:idLen], msg(good)))
	if err != nil || e.Path != good.Path || e.Branch != "feat/x" || e.ID != commit[:idLen] || e.WorktreeTree != oid {
		t.Fatalf("good record: %+v, %v", e, err)
	}
	bad := map[string]gitx.RemovedRef{
		"no meta line":        ref(commit[:idLen], "just a message\n"),
		"id not of commit":    ref("fedcba987654", msg(good)),
		"id not hex":          ref("feat/x", msg(good)),
		"unknown field":       ref(commit[:idLen], metaKey+`{"v":1,"evil":true}`),
		"unclean path":        ref(commit[:idLen], msg(func() removedMeta { m := good; m.Path = "/a/../etc"; return m }())),
		"relative path":       ref(commit[:idLen], msg(func() removedMeta { m := good; m.Path = "rel"; return m }())),
		"branch with control": ref(commit[:idLen], msg(func() removedMeta { m := good; m.Branch = "a\x1bb"; return m }())),
		"tree not an oid":     ref(commit[:idLen], msg(func() removedMeta { m := good; m.WorktreeTree = "HEAD"; return m }())),
		"head option":         ref(commit[:idLen], msg(func() removedMeta { m := good; m.Head = "--output=x"; return m }())),
		"version 2":           ref(commit[:idLen], msg(func() removedMeta { m := good; m.V = 2; return m }())),
		"no time":             ref(commit[:idLen], msg(func() removedMeta { m := good; m.Time = time.Time{}; return m }())),
	}
	for name, r := range bad {
		if _, err := parseEntry(r); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
