package cli_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// copse init pi --install, against the real binary with HOME in a temporary directory.

// tree lists every file under dir with its content, so a test can prove nothing changed.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			lines = append(lines, rel+"/")
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		lines = append(lines, rel+" "+hex.EncodeToString(sum[:8]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInitPiPrintsTheExtension(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	res := run(t, r, r.Root, "init", "pi")
	want(t, res, 0, "// copse pi extension sha256:", `pi.registerCommand("worktree"`, "git_worktree_list")
	if _, err := os.Stat(filepath.Join(r.Home, ".pi")); !os.IsNotExist(err) {
		t.Fatalf("copse init pi without --install wrote under ~/.pi (%v)", err)
	}
}

func TestInitPiInstall(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	printed := run(t, r, r.Root, "init", "pi").stdout
	ext := filepath.Join(r.Home, ".pi", "agent", "extensions", "copse-worktree.ts")

	// A first install writes the file (making the folders) and says where.
	res := run(t, r, r.Root, "init", "pi", "--install")
	want(t, res, 0, "wrote ~/.pi/agent/extensions/copse-worktree.ts")
	if got := readFile(t, ext); got != printed {
		t.Fatalf("installed file differs from copse init pi's output")
	}
	// Again: nothing to do.
	res = run(t, r, r.Root, "init", "pi", "--install")
	want(t, res, 0, "copse-worktree.ts is up to date")

	// A copy the user changed is kept: exit 1, nothing on disk changes.
	edited := printed + "// my own tweak\n"
	coretest.WriteFile(t, ext, edited)
	before := tree(t, r.Home)
	res = run(t, r, r.Root, "init", "pi", "--install")
	want(t, res, 1, "was changed since copse wrote it", "--force")
	if after := tree(t, r.Home); after != before {
		t.Fatalf("a refused install changed files:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if readFile(t, ext) != edited {
		t.Fatal("the user's copy was modified")
	}
	// --json carries the refusal on stdout.
	res = run(t, r, r.Root, "--json", "init", "pi", "--install")
	want(t, res, 1, `"code":"pi_extension_changed"`)

	// --force replaces it.
	res = run(t, r, r.Root, "init", "pi", "--install", "--force")
	want(t, res, 0, "wrote ~/.pi/agent/extensions/copse-worktree.ts")
	if readFile(t, ext) != printed {
		t.Fatal("--force did not write the extension")
	}

	// A file without copse's marker is the user's too.
	coretest.WriteFile(t, ext, "export default function () {}\n")
	res = run(t, r, r.Root, "init", "pi", "--install")
	want(t, res, 1, "was changed since copse wrote it")

	// A copy an older copse wrote (intact marker, other body) is upgraded without --force.
	body := "// an older extension\nexport default function () {}\n"
	sum := sha256.Sum256([]byte(body))
	coretest.WriteFile(t, ext, "// copse pi extension sha256:"+hex.EncodeToString(sum[:])+" (old)\n"+body)
	res = run(t, r, r.Root, "init", "pi", "--install")
	want(t, res, 0, "wrote ")
	if readFile(t, ext) != printed {
		t.Fatal("an unchanged older copy was not upgraded")
	}
	entries, err := os.ReadDir(filepath.Dir(ext))
	if err != nil || len(entries) != 1 {
		t.Fatalf("the extensions folder should hold one file, has %v (%v)", entries, err)
	}
}

// pi's own override of its agent folder, PI_CODING_AGENT_DIR, is honoured as pi reads it.
func TestInitPiInstallAgentDir(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	printed := run(t, r, r.Root, "init", "pi").stdout

	res := runWith(t, r, r.Root, []string{"PI_CODING_AGENT_DIR=~/pi-home"}, nil, "init", "pi", "--install")
	want(t, res, 0, "wrote ~/pi-home/extensions/copse-worktree.ts")
	if readFile(t, filepath.Join(r.Home, "pi-home", "extensions", "copse-worktree.ts")) != printed {
		t.Fatal("not written under PI_CODING_AGENT_DIR")
	}

	abs := filepath.Join(r.Base, "agent")
	res = runWith(t, r, r.Root, []string{"PI_CODING_AGENT_DIR=" + abs}, nil, "init", "pi", "--install")
	want(t, res, 0, filepath.Join(abs, "extensions", "copse-worktree.ts"))

	// A relative folder would depend on pi's working directory: refused, nothing written.
	before := tree(t, r.Base)
	res = runWith(t, r, r.Root, []string{"PI_CODING_AGENT_DIR=rel/agent"}, nil, "init", "pi", "--install")
	want(t, res, 2, "PI_CODING_AGENT_DIR is not an absolute path")
	if after := tree(t, r.Base); after != before {
		t.Fatalf("a refused install changed files:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func TestInitPiFlagMisuse(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	before := tree(t, r.Home)
	for _, args := range [][]string{
		{"init", "bash", "--install"},
		{"init", "pi", "--force"},
	} {
		res := run(t, r, r.Root, args...)
		want(t, res, 2, "--")
	}
	if after := tree(t, r.Home); after != before {
		t.Fatalf("misuse changed files:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
