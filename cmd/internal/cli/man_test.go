package cli

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// The man pages in docs/man are written from the command tree by this test, so they cannot
// say what the command line does not do, and the renderer is not linked into copse:
//
//	go test ./cmd/internal/cli -run TestManPages -update
var updateMan = flag.Bool("update", false, "rewrite docs/man and the operation table of docs/agents.md from the command tree and core's registry")

// manDate is the date in every page's header. It is fixed, not the day of the run, so the
// pages change only when the command line does; move it when they do.
var manDate = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// markdownSpecial are the characters the renderer reads as markdown in a command's help;
// copse's help is plain text ("<repo>.worktrees", ".env*"), so they are escaped.
var markdownSpecial = strings.NewReplacer(`\`, `\\`, "<", `\<`, ">", `\>`, "*", `\*`, "_", `\_`, "`", "\\`")

// literal makes the help texts of c and its subcommands print as written.
func literal(c *cobra.Command) {
	c.Long = markdownSpecial.Replace(c.Long)
	for _, sub := range c.Commands() {
		literal(sub)
	}
}

// writeManPages puts copse.1, copse-create.1, … into dir.
func writeManPages(dir string) error {
	root := NewCmdRoot(NewFactory())
	root.DisableAutoGenTag = true // no "generated on <today>" footer
	literal(root)
	return doc.GenManTree(root, &doc.GenManHeader{Title: "COPSE", Section: "1", Source: "copse", Manual: "copse manual", Date: &manDate}, dir)
}

// docs/man is what the command tree makes today: a flag or command added, renamed or
// re-described without regenerating the pages fails here.
func TestManPages(t *testing.T) {
	const committed = "../../../docs/man"
	if *updateMan {
		if err := os.RemoveAll(committed); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(committed, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeManPages(committed); err != nil {
			t.Fatal(err)
		}
	}
	got := t.TempDir()
	if err := writeManPages(got); err != nil {
		t.Fatal(err)
	}
	names := func(dir string) []string {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	fix := "run `go test ./cmd/internal/cli -run TestManPages -update` and commit docs/man"
	gen, have := names(got), names(committed)
	if !slices.Equal(gen, have) {
		t.Fatalf("docs/man has %v, the command tree makes %v: %s", have, gen, fix)
	}
	if !slices.Contains(gen, "copse.1") || !slices.Contains(gen, "copse-create.1") {
		t.Fatalf("pages %v lack copse.1 or copse-create.1", gen)
	}
	for _, n := range gen {
		a, err := os.ReadFile(filepath.Join(got, n))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(committed, n))
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("docs/man/%s differs from the command tree: %s", n, fix)
		}
	}
}
