package core

import (
	"strings"
	"testing"

	"github.com/copse-dev/copse/internal/liveproc"
)

// allReasons joins every refusal into one, in order: the first one's code, each as a
// Reason, a message naming each; nil entries passed; nothing refused is nil.
func TestAllReasonsNamesEveryRefusalInOrder(t *testing.T) {
	t.Parallel()
	a := Refused(CodeProcessesRunning, "stop them", "a works there")
	b := Refused(CodeDirtyWorktree, "commit", "b is dirty")
	if AllReasons([]*Error{nil, nil}, "x") != nil {
		t.Fatal("no refusal gave an error")
	}
	one := AllReasons([]*Error{nil, a}, "")
	if one.Code != CodeProcessesRunning || one.Message != "a works there" || len(one.Reasons) != 0 {
		t.Fatalf("one reason became %+v", one)
	}
	got := AllReasons([]*Error{a, nil, b}, "with --force, x ends")
	if got.Code != CodeProcessesRunning || len(got.Reasons) != 2 || got.Reasons[1].Code != CodeDirtyWorktree {
		t.Fatalf("got %+v", got)
	}
	for _, m := range []string{"2 reasons", "(1) a works there", "(2) b is dirty", "with --force, x ends"} {
		if !strings.Contains(got.Message, m) {
			t.Errorf("message %q lacks %q", got.Message, m)
		}
	}
	if !strings.Contains(got.Hint, "stop them") || !strings.Contains(got.Hint, "commit") {
		t.Errorf("hint %q lacks one of the hints", got.Hint)
	}
	if a.Message != "a works there" {
		t.Errorf("the first refusal was changed: %+v", a)
	}
	if w := ForceWouldEnd(LiveSet{Procs: []liveproc.Proc{{PID: 7}}}, "@3", "copse closes tmux window @3"); !strings.Contains(w, "window @3") || !strings.Contains(w, "pid 7") {
		t.Errorf("forceWouldEnd = %q", w)
	}
	if w := ForceWouldEnd(LiveSet{}, "", ""); w != "" {
		t.Errorf("nothing to end said %q", w)
	}
}

func TestParseClaudeLock(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		name string
		pid  int
	}{
		{"claude session bold-fox (pid 123)", "bold-fox", 123},
		{"claude session a (b) (pid 9)", "", 0}, // a space and parentheses are no session name
		{"claude session x (pid 0)", "", 0},
		{"claude session x (pid 012)", "", 0},
		{"claude session x (pid 12", "", 0},
		{"claude session  (pid 12)", "", 0},
		{"copse claim: session=x since=2026-01-01T00:00:00Z", "", 0},
	} {
		name, pid, ok := parseClaudeLock(c.in)
		if ok != (c.name != "") || name != c.name || pid != c.pid {
			t.Errorf("parseClaudeLock(%q) = %q %d %v; want %q %d", c.in, name, pid, ok, c.name, c.pid)
		}
	}
}
