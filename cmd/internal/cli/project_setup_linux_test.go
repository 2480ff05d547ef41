package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// answerInPTY runs copse with a terminal on stdin, types answer, and returns the exit code
// and stderr (where the approval question goes).
func answerInPTY(t *testing.T, r *coretest.Repo, answer string, args ...string) (int, string) {
	t.Helper()
	code, _, stderr := answerInPTYOut(t, r, answer, args...)
	return code, stderr
}

// answerInPTYOut is answerInPTY that also returns stdout.
func answerInPTYOut(t *testing.T, r *coretest.Repo, answer string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	p := startInPTY(t, r, nil, args...)
	// The terminal is in cooked mode: the line waits in it until copse reads its answer.
	if _, err := p.master.Write([]byte(answer + "\n")); err != nil {
		t.Fatal(err)
	}
	code = p.wait(t)
	return code, p.stdout.String(), p.stderr.String()
}

// A person approves a project setup command once at a terminal; later creates run it
// without asking (no terminal needed), and a changed command text asks again. "no" at the
// question approves nothing and creates nothing.
func TestProjectSetupRunsOnceApproved(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	marker := filepath.Join(r.Base, "project-setup-ran")
	projectRepo(t, r, marker)
	approvals := filepath.Join(r.Home, ".config", "copse", "approved")

	before := r.Snapshot()
	code, stderr := answerInPTY(t, r, "n", "create", "declined")
	if code != 1 || !strings.Contains(stderr, "touch '"+marker+"'") || !strings.Contains(stderr, "not approved; nothing was changed") {
		t.Fatalf("declining: exit %d, stderr:\n%s", code, stderr)
	}
	if exists(marker) || exists(approvals) {
		t.Fatal("a declined approval ran the command or was recorded")
	}
	r.Unchanged(before)

	code, stdout, stderr := answerInPTYOut(t, r, "y", "approve")
	if code != 0 || !strings.Contains(stderr, "Approve them, so copse may run them on this machine? [y/N]") {
		t.Fatalf("approve: exit %d, stderr:\n%s", code, stderr)
	}
	if fi, err := os.Stat(approvals); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("approvals file: %v, %v; want mode 0600", fi, err)
	}
	if exists(marker) {
		t.Fatal("approving ran the command")
	}
	if out := stdout; !strings.Contains(out, "approved 1 command of .copse.conf (nothing ran now)") || !strings.Contains(out, "touch '"+marker+"'") {
		t.Fatalf("approve's yes did not say what it approved; stdout:\n%s", out)
	}

	res := run(t, r, r.Root, "create", "feat")
	want(t, res, 0, "copse: setup 1/1: touch")
	if !exists(marker) {
		t.Fatal("the approved project command did not run")
	}
	res = run(t, r, r.Root, "approve")
	want(t, res, 0, "the commands in .copse.conf are approved already")

	// The same file, another command text: asked again.
	marker2 := filepath.Join(r.Base, "changed-setup-ran")
	r.Git(r.Root, "config", "-f", filepath.Join(r.Root, ".copse.conf"), "--replace-all", "copse.setup", "touch '"+marker2+"'")
	res = run(t, r, r.Root, "create", "feat2")
	want(t, res, 1, "no one approved on this machine", "changed-setup-ran")
	if exists(marker2) || exists(filepath.Join(r.Base, "app.worktrees", "feat2")) {
		t.Fatal("a changed project command ran without a new approval")
	}

	// Approving at create's own question runs it at once.
	code, stderr = answerInPTY(t, r, "y", "create", "feat2")
	if code != 0 || !exists(marker2) {
		t.Fatalf("create with approval: exit %d, marker %v, stderr:\n%s", code, exists(marker2), stderr)
	}
}

// .copse.conf's copse.test gates a land only once a person approved it: unapproved, the
// land is refused before anything changes and the test did not run (an agent's land too);
// approved with copse approve, the next land runs it.
func TestProjectTestGatesALandOnlyOnceApproved(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	marker := filepath.Join(r.Base, "project-test-ran")
	r.Git(r.Root, "config", "-f", filepath.Join(r.Root, ".copse.conf"), "copse.test", "touch '"+marker+"'")
	r.Git(r.Root, "add", ".copse.conf")
	r.Git(r.Root, "commit", "-q", "-m", "project test")
	landTree(t, r, "feat")

	before := r.Snapshot()
	res := run(t, r, r.Root, "land", "feat", "--json")
	want(t, res, 1, `"code":"project_command_unapproved"`, "which no one approved on this machine")
	res = runWith(t, r, r.Root, nil, strings.NewReader(`{"operation":"land","branch":"feat"}`), "tool", "--approved")
	want(t, res, 1, `"code":"project_command_unapproved"`)
	if exists(marker) {
		t.Fatal("the unapproved project test ran")
	}
	r.Unchanged(before)

	code, stderr := answerInPTY(t, r, "y", "approve")
	if code != 0 || !strings.Contains(stderr, "touch '"+marker+"'") {
		t.Fatalf("approve: exit %d, stderr:\n%s", code, stderr)
	}
	res = run(t, r, r.Root, "land", "feat")
	want(t, res, 0)
	if !exists(marker) {
		t.Fatal("the approved project test did not gate the land")
	}
}
