package layers

import (
	"path"
	"slices"
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
		case engineFile(i.file) && (to != "" || under(i.path, "core/ops")):
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
		"tui/ops.go imports " + module + "/core/ops",
	}
	if !slices.Equal(got, want) {
		t.Errorf("crossed = %q\nwant %q", got, want)
	}
}
