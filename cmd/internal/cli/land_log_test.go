package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/cmd/internal/cli"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// noisyGate prints 30 numbered lines, then one that would retitle the terminal, then fails.
const noisyGate = `for i in $(seq 1 30); do echo "line$i"; done; printf '\033]0;owned\007 evil\n'; exit 3`

// A failed test gate shows the end of its log (bounded, escaped) and where the log is, in
// text and in --json; land status shows the tail, and --log the whole log.
func TestLandFailedGateShowsLogTail(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	landTree(t, r, "feat/g")
	main := r.Git(r.Root, "rev-parse", "main")

	res := run(t, r, r.Root, "land", "feat/g", "--keep", "--test", noisyGate)
	want(t, res, 1, "test_failed", "exited 3")
	log := filepath.Join(r.Root, ".git", "copse", "land", "land-1.log")
	if !strings.Contains(res.stderr, "last 20 lines of "+log+":") {
		t.Fatalf("no tail header naming the log:\n%s", res.stderr)
	}
	// The last 20 lines: line13…line30, the escaped evil line, the gate's footer.
	if !strings.Contains(res.stderr, "    line13\n") || strings.Contains(res.stderr, "line12\n") ||
		!strings.Contains(res.stderr, `\x1b]0;owned\x07 evil`) || !strings.Contains(res.stderr, "# gate: exit 3") {
		t.Fatalf("tail is not the log's last 20 lines, escaped:\n%s", res.stderr)
	}
	if strings.ContainsRune(res.stderr, 0x1b) {
		t.Fatalf("raw escape sequence reached the terminal:\n%q", res.stderr)
	}
	if got := r.Git(r.Root, "rev-parse", "main"); got != main {
		t.Fatalf("a failed gate moved main: %s -> %s", main, got)
	}

	// land status JOB shows the same tail.
	st := run(t, r, r.Root, "land", "status", "land-1")
	want(t, st, 0)
	if !strings.Contains(st.stdout, "    line30\n") || !strings.Contains(st.stdout, "last 20 lines of") {
		t.Fatalf("land status shows no tail:\n%s", st.stdout)
	}

	// --log piped: the log exactly as the gate wrote it.
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lg := run(t, r, r.Root, "land", "status", "land-1", "--log")
	want(t, lg, 0)
	if lg.stdout != string(raw) || !bytes.Contains(raw, []byte("line1\n")) || !bytes.Contains(raw, []byte("\x1b]0;owned")) {
		t.Fatalf("--log piped is not the raw log:\n%q\nwant\n%q", lg.stdout, raw)
	}
	// --log on a terminal: every line, escaped.
	f, out, errb := testFactory(r, strings.NewReader(""), false)
	f.OutTerminal = func() bool { return true }
	if code := cli.Run(context.Background(), f, []string{"-C", r.Root, "land", "status", "land-1", "--log"}); code != 0 {
		t.Fatalf("--log on a terminal: exit %d\n%s", code, errb)
	}
	if strings.ContainsRune(out.String(), 0x1b) || !strings.Contains(out.String(), "line1\n") ||
		!strings.Contains(out.String(), `\x1b]0;owned\x07 evil`) {
		t.Fatalf("--log on a terminal is not the whole log escaped:\n%q", out)
	}

	// --log --json: the log as written, in one JSON value.
	lj := run(t, r, r.Root, "--json", "land", "status", "land-1", "--log")
	want(t, lj, 0)
	var logReply struct {
		Operation, Job, Log, Text string
	}
	if err := json.Unmarshal([]byte(lj.stdout), &logReply); err != nil || logReply.Operation != "land_log" ||
		logReply.Job != "land-1" || logReply.Log != log || logReply.Text != string(raw) {
		t.Fatalf("--log --json %s: %v", lj.stdout, err)
	}

	// --json: the error carries the log and its tail.
	js := run(t, r, r.Root, "--json", "land", "feat/g", "--keep", "--test", noisyGate)
	want(t, js, 1)
	var reply struct {
		Error struct {
			Code    string   `json:"code"`
			Log     string   `json:"log"`
			LogTail []string `json:"log_tail"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &reply); err != nil {
		t.Fatalf("json %s: %v", js.stdout, err)
	}
	e := reply.Error
	if e.Code != core.CodeTestFailed || e.Log != filepath.Join(r.Root, ".git", "copse", "land", "land-2.log") ||
		len(e.LogTail) != 20 || e.LogTail[0] != "line13" || e.LogTail[17] != "line30" {
		t.Fatalf("json error %+v", e)
	}
}

// --log needs a job, and a job whose gate never ran has no log: both say so and change nothing.
func TestLandStatusLogRefusals(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	landTree(t, r, "feat/n")
	want(t, run(t, r, r.Root, "land", "feat/n", "--no-wait"), 0)
	before := r.Snapshot()
	want(t, run(t, r, r.Root, "land", "status", "--log"), 2, "name the JOB")
	want(t, run(t, r, r.Root, "land", "status", "land-1", "--log"), 1, "land-1 has no test log")
	want(t, run(t, r, r.Root, "land", "status", "land-9", "--log"), 1, "no land job land-9")
	r.Unchanged(before)
}
