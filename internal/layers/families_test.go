package layers

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The operation families (core/op/<family>) stand on the engine (core) and its shared
// floors, side by side: a family that imported another would make the other's rules its
// own, and the engine that imported a family, or the list of them (core/ops), would be
// one package again. Only cmd hands the list to core.Open.

// familyOf is the family a file or package under core/op belongs to ("" for none).
func familyOf(p string) string {
	rest, ok := strings.CutPrefix(p, "core/op/")
	if !ok {
		return ""
	}
	fam, _, _ := strings.Cut(rest, "/")
	return strings.TrimSuffix(fam, ".go")
}

// engineFile reports a file of the engine itself: directly in core/.
func engineFile(file string) bool { return path.Dir(file) == "core" }

// crossed returns, as "file imports path", every import that breaks the families' rules.
func crossed(list []imp) []string {
	var bad []string
	for _, i := range list {
		if i.path == "" {
			continue
		}
		to := familyOf(i.path)
		from := familyOf(i.file)
		switch {
		case engineFile(i.file) && (to != "" || under(i.path, "core/ops") || under(i.path, "core/backend") || under(i.path, "core/removal")):
			bad = append(bad, i.file+" imports "+path.Join(module, i.path))
		case (under(i.file, "core/backend") || under(i.file, "core/removal")) && to != "":
			bad = append(bad, i.file+" imports "+path.Join(module, i.path))
		case from != "" && to != "" && from != to:
			bad = append(bad, i.file+" imports "+path.Join(module, i.path))
		case from != "" && under(i.path, "core/ops"):
			bad = append(bad, i.file+" imports "+path.Join(module, i.path))
		case under(i.path, "core/ops") && !under(i.file, "cmd"):
			bad = append(bad, i.file+" imports "+path.Join(module, i.path))
		}
	}
	return bad
}

func TestFamiliesStandApart(t *testing.T) {
	for _, b := range crossed(imports(t, moduleRoot(t))) {
		t.Errorf("%s: a family imports only core and its shared floors; move what both need down into core", b)
	}
}

func TestFamilyCheckFindsWhatItForbids(t *testing.T) {
	root := writeModule(t, map[string]string{
		// The engine naming a family, and the list.
		"core/engine.go": "package core\n\nimport _ \"" + module + "/core/op/land\"\n",
		"core/list.go":   "package core\n\nimport _ \"" + module + "/core/ops\"\n",
		// One family importing another, and a family importing the list.
		"core/op/land/land.go":  "package land\n\nimport _ \"" + module + "/core/op/create\"\n",
		"core/op/land/phase.go": "package land\n\nimport _ \"" + module + "/core/ops\"\n",
		// The engine naming the backends or the removal step; the removal step naming a
		// family.
		"core/open.go":            "package core\n\nimport _ \"" + module + "/core/backend\"\n",
		"core/remove.go":          "package core\n\nimport _ \"" + module + "/core/removal\"\n",
		"core/removal/records.go": "package removal\n\nimport _ \"" + module + "/core/op/land\"\n",
		// A family on the removal step is how they share it.
		"core/op/land/clean.go": "package land\n\nimport _ \"" + module + "/core/removal\"\n",
		// tui importing the list instead of asking the Service.
		"tui/ops.go": "package tui\n\nimport _ \"" + module + "/core/ops\"\n",
		// Allowed: a family on core, a family's own subpackage, the list in cmd, a leaf
		// package of core's own used by the engine.
		"core/op/create/create.go":    "package create\n\nimport _ \"" + module + "/core\"\n",
		"core/op/land/remote/q.go":    "package remote\n\nimport _ \"" + module + "/core/op/land\"\n",
		"cmd/internal/cli/cli.go":     "package cli\n\nimport _ \"" + module + "/core/ops\"\n",
		"core/events.go":              "package core\n\nimport _ \"" + module + "/core/eventlog\"\n",
		"core/op/land/land_test.go":   "package land\n\nimport _ \"" + module + "/core/op/create\"\n",
		"core/ops/ops.go":             "package ops\n\nimport _ \"" + module + "/core/op/land\"\n",
		"core/op/create/create2.go":   "package create\n\nimport _ \"" + module + "/core/eventlog\"\n",
		"core/op/target/target.go":    "package target\n\nimport _ \"" + module + "/gitx\"\n",
		"core/op/claim/claim.go":      "package claim\n\nimport _ \"" + module + "/core/landjobs\"\n",
		"core/op/list/list.go":        "package list\n\nimport _ \"" + module + "/core\"\n",
		"core/op/remove/remove.go":    "package remove\n\nimport _ \"" + module + "/core\"\n",
		"core/op/remove/prune.go":     "package remove\n\nimport _ \"" + module + "/internal/atomicfile\"\n",
		"core/op/create/undo.go":      "package create\n\nimport _ \"" + module + "/core/usercmd\"\n",
		"core/op/create/record.go":    "package create\n\nimport _ \"" + module + "/core/agentstate\"\n",
		"core/op/target/history.go":   "package target\n\nimport _ \"" + module + "/core\"\n",
		"core/op/claim/release.go":    "package claim\n\nimport _ \"" + module + "/core\"\n",
		"core/op/list/list_test.go":   "package list\n\nimport _ \"" + module + "/core/ops\"\n",
		"core/op/land/land_x_test.go": "package land_test\n\nimport _ \"" + module + "/core/ops\"\n",
	})
	got := crossed(imports(t, root))
	slices.Sort(got)
	want := []string{
		"core/engine.go imports " + module + "/core/op/land",
		"core/list.go imports " + module + "/core/ops",
		"core/op/land/land.go imports " + module + "/core/op/create",
		"core/op/land/phase.go imports " + module + "/core/ops",
		"core/open.go imports " + module + "/core/backend",
		"core/removal/records.go imports " + module + "/core/op/land",
		"core/remove.go imports " + module + "/core/removal",
		"tui/ops.go imports " + module + "/core/ops",
	}
	if !slices.Equal(got, want) {
		t.Errorf("crossed = %q\nwant %q", got, want)
	}
}

// nameCompare finds a comparison of a backend's name: what a backend can do is asked of it
// (a method of core.Backend or an optional interface), never told from its name, so a new
// backend (zellij) is one more file in core/backend.
var nameCompare = regexp.MustCompile(`(?:[Bb]ackend\.Name\(\)|BackendName\(\)|\bbackend)\s*[!=]=\s*"[a-z]|"(?:git|tmux|herdr)"\s*[!=]=\s*(?:[\w.]*[Bb]ackend)`)

// namesCompared returns "file:line" for each comparison of a backend's name in the code that
// ships, outside core/backend.
func namesCompared(t *testing.T, root string) []string {
	t.Helper()
	var bad []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if under(rel, "core/backend") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if nameCompare.MatchString(line) {
				bad = append(bad, rel+":"+strconv.Itoa(i+1))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

func TestOnlyBackendsKnowBackendsByName(t *testing.T) {
	for _, b := range namesCompared(t, moduleRoot(t)) {
		t.Errorf("%s compares a backend's name; ask the backend (core.Backend or an optional interface of core's)", b)
	}
}

func TestNameCheckFindsWhatItForbids(t *testing.T) {
	root := writeModule(t, map[string]string{
		"core/op/create/run.go": "package create\n\nfunc f() bool { return s.Backend.Name() == \"tmux\" }\n",
		"tui/input.go":          "package tui\n\nfunc f() bool { return m.backend == \"tmux\" }\n",
		"cmd/internal/cli/x.go": "package cli\n\nfunc f() bool { return svc.BackendName() != \"git\" }\n",
		"core/backend/pick.go":  "package backend\n\nfunc f() bool { return want == \"tmux\" || b.Name() == \"git\" }\n",
		"core/op/create/x.go":   "package create\n\nfunc f() string { return \"the \" + s.Backend.Name() + \" backend\" }\n",
		"tui/x_test.go":         "package tui\n\nfunc f() bool { return svc.BackendName() != \"tmux\" }\n",
	})
	got := namesCompared(t, root)
	slices.Sort(got)
	want := []string{"cmd/internal/cli/x.go:3", "core/op/create/run.go:3", "tui/input.go:3"}
	if !slices.Equal(got, want) {
		t.Errorf("namesCompared = %q, want %q", got, want)
	}
}
