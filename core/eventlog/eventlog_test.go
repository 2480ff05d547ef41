package eventlog_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/eventlog"
)

func TestAppendEventSeq(t *testing.T) {
	commonDir := t.TempDir()
	for i := 1; i <= 3; i++ {
		ev, err := eventlog.Append(commonDir, eventlog.Event{Event: "worktree.created", Repo: "/r"})
		if err != nil || ev.Seq != int64(i) || ev.V != 1 || ev.Time == "" {
			t.Fatalf("append %d: %+v %v", i, ev, err)
		}
	}
	// A torn last line (a writer killed mid-line, not copse) is skipped: seq continues
	// from the last whole event, on a fresh line.
	f, err := os.OpenFile(eventlog.Path(commonDir), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":1,"seq":99,"ti`)
	f.Close()
	ev, err := eventlog.Append(commonDir, eventlog.Event{Event: "worktree.removed", Repo: "/r"})
	if err != nil || ev.Seq != 4 {
		t.Fatalf("after a torn line: %+v %v", ev, err)
	}
	var got []int64
	if _, err := eventlog.Read(commonDir, 0, func(e eventlog.Event, _ []byte) error { got = append(got, e.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[1 2 3 4]" {
		t.Fatalf("read after a torn line: %v", got)
	}
	// A long log: the last seq is found from the tail.
	big := strings.Repeat(`{"v":1,"seq":0,"time":"x","event":"pad","repo":"/r"}`+"\n", 5000)
	cd2 := t.TempDir()
	os.MkdirAll(filepath.Dir(eventlog.Path(cd2)), 0o755)
	os.WriteFile(eventlog.Path(cd2), []byte(big+`{"v":1,"seq":41,"time":"x","event":"e","repo":"/r"}`+"\n"), 0o644)
	if ev, err := eventlog.Append(cd2, eventlog.Event{Event: "e", Repo: "/r"}); err != nil || ev.Seq != 42 {
		t.Fatalf("long log: %+v %v", ev, err)
	}
	var seqs []int64
	if _, err := eventlog.Read(cd2, 40, func(e eventlog.Event, _ []byte) error { seqs = append(seqs, e.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 2 || seqs[0] != 41 || seqs[1] != 42 {
		t.Fatalf("since 40: %v", seqs)
	}
}
