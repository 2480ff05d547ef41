package cli_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// copse init omp [--install [--force]], against the real binary with HOME in a temporary
// directory: the same protection of an edited copy as pi's, in omp's agent folder.

func TestInitOmpPrintsTheExtension(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	res := run(t, r, r.Root, "init", "omp")
	want(t, res, 0, "// copse omp extension sha256:", `pi.registerCommand("copse"`, "git_worktree_list", `name: "herdr_worktree"`)
	if _, err := os.Stat(filepath.Join(r.Home, ".omp")); !os.IsNotExist(err) {
		t.Fatalf("copse init omp without --install wrote under ~/.omp (%v)", err)
	}
	// The omp extension is the pi one plus the adapter, not a second copy.
	pi := run(t, r, r.Root, "init", "pi").stdout
	_, piBody, _ := strings.Cut(pi, "\n")
	// (omp keeps /worktree for its own command: there copse's is /copse.)
	shared := strings.ReplaceAll(strings.SplitN(piBody, "const INSTALL_HINT", 2)[1][:2000], "/worktree", "/copse")
	if !strings.Contains(res.stdout, shared) {
		t.Fatal("copse init omp does not carry the pi extension's code")
	}
}

func TestInitOmpInstall(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	printed := run(t, r, r.Root, "init", "omp").stdout
	ext := filepath.Join(r.Home, ".omp", "agent", "extensions", "copse-worktree.ts")

	res := run(t, r, r.Root, "init", "omp", "--install")
	want(t, res, 0, "wrote ~/.omp/agent/extensions/copse-worktree.ts", "herdr_worktree")
	// What it says names copse's command in omp, /copse: omp's own /worktree is another.
	if said := res.stdout + res.stderr; !strings.Contains(said, "/copse") || strings.Contains(strings.ReplaceAll(said, "omp's own /worktree", ""), "/worktree") {
		t.Errorf("copse init omp --install does not name /copse as omp's command:\n%s", said)
	}
	if got := readFile(t, ext); got != printed {
		t.Fatalf("installed file differs from copse init omp's output")
	}
	if _, err := os.Stat(filepath.Join(r.Home, ".pi")); !os.IsNotExist(err) {
		t.Fatalf("copse init omp --install wrote under ~/.pi (%v)", err)
	}
	res = run(t, r, r.Root, "init", "omp", "--install")
	want(t, res, 0, "copse-worktree.ts is up to date")

	// A copy the user changed is kept: exit 1, nothing on disk changes.
	edited := printed + "// my own tweak\n"
	coretest.WriteFile(t, ext, edited)
	before := tree(t, r.Home)
	res = run(t, r, r.Root, "init", "omp", "--install")
	want(t, res, 1, "was changed since copse wrote it", "copse init omp --install --force")
	if after := tree(t, r.Home); after != before {
		t.Fatalf("a refused install changed files:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	res = run(t, r, r.Root, "--json", "init", "omp", "--install")
	want(t, res, 1, `"code":"omp_extension_changed"`)
	if after := tree(t, r.Home); after != before {
		t.Fatalf("a refused install changed files:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// The pi extension is not an omp one: kept too.
	coretest.WriteFile(t, ext, run(t, r, r.Root, "init", "pi").stdout)
	res = run(t, r, r.Root, "init", "omp", "--install")
	want(t, res, 1, "was changed since copse wrote it")

	res = run(t, r, r.Root, "init", "omp", "--install", "--force")
	want(t, res, 0, "wrote ~/.omp/agent/extensions/copse-worktree.ts")
	if readFile(t, ext) != printed {
		t.Fatal("--force did not write the extension")
	}

	// A copy an older copse wrote (intact marker, other body) is upgraded without --force.
	body := "// an older extension\nexport default function () {}\n"
	sum := sha256.Sum256([]byte(body))
	coretest.WriteFile(t, ext, "// copse omp extension sha256:"+hex.EncodeToString(sum[:])+" (old)\n"+body)
	res = run(t, r, r.Root, "init", "omp", "--install")
	want(t, res, 0, "wrote ")
	if readFile(t, ext) != printed {
		t.Fatal("an unchanged older copy was not upgraded")
	}
}

func TestInitOmpInstallAgentDir(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	printed := run(t, r, r.Root, "init", "omp").stdout
	res := runWith(t, r, r.Root, []string{"PI_CODING_AGENT_DIR=~/omp-home"}, nil, "init", "omp", "--install")
	want(t, res, 0, "wrote ~/omp-home/extensions/copse-worktree.ts")
	if readFile(t, filepath.Join(r.Home, "omp-home", "extensions", "copse-worktree.ts")) != printed {
		t.Fatal("not written under PI_CODING_AGENT_DIR")
	}
	before := tree(t, r.Base)
	res = runWith(t, r, r.Root, []string{"PI_CODING_AGENT_DIR=relative/agent"}, nil, "init", "omp", "--install")
	want(t, res, 2, "PI_CODING_AGENT_DIR is not an absolute path")
	res = runWith(t, r, r.Root, []string{"PI_CODING_AGENT_DIR=relative/agent"}, nil, "--json", "init", "omp", "--install")
	want(t, res, 2, `"code":"omp_agent_dir"`)
	if after := tree(t, r.Base); after != before {
		t.Fatalf("a refused install changed files:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
