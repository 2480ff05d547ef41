package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/copse-dev/copse"

// above lists, for each floor (a folder of the module), the floors it must not import:
// every floor above it, and the packages beside it that run other programs (gitx, herdr,
// tmux: each is the only one that runs its program). Folders not listed (cmd, scripts) are
// the top.
var above = map[string][]string{
	"tui":      {"cmd"},
	"core":     {"cmd", "tui"},
	"gitx":     {"cmd", "tui", "core", "herdr", "tmux"},
	"herdr":    {"cmd", "tui", "core", "gitx", "tmux"},
	"tmux":     {"cmd", "tui", "core", "gitx", "herdr"},
	"internal": {"cmd", "tui", "core", "gitx", "herdr", "tmux"},
	"assets":   {"cmd", "tui", "core", "gitx", "herdr", "tmux"},
}

// testOnly are the packages (with the packages under them) that exist for tests, besides
// every package whose name ends in "test" (coretest, gitxtest, herdrtest, agenttest…):
// doubles, fakes and fixtures. copse itself must never import one; only test files and
// other test-only packages do.
var testOnly = []string{
	"herdr/herdrdouble",
	"internal/gobuild",
	"internal/testexec",
}

// imp is one import of a non-test Go file, by paths relative to the module.
type imp struct {
	file string // the importing file, slash-separated
	path string // the imported package inside the module ("" for one outside it)
}

// imports lists the imports of every non-test Go file under root. Test files are not
// read: the rules are about the code that ships.
func imports(t *testing.T, root string) []imp {
	t.Helper()
	var out []imp
	fset := token.NewFileSet()
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
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, is := range f.Imports {
			ip, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				return err
			}
			inside := ""
			if strings.HasPrefix(ip, module+"/") {
				inside = strings.TrimPrefix(ip, module+"/")
			}
			out = append(out, imp{file: filepath.ToSlash(rel), path: inside})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// under reports whether the package (or file) at p is pkg or lies below it.
func under(p, pkg string) bool { return p == pkg || strings.HasPrefix(p, pkg+"/") }

// upward returns, as "file imports path", every import that points at a floor above the
// importing file's own.
func upward(list []imp) []string {
	var bad []string
	for _, i := range list {
		floor, _, _ := strings.Cut(i.file, "/")
		for _, up := range above[floor] {
			if i.path != "" && under(i.path, up) {
				bad = append(bad, i.file+" imports "+path.Join(module, i.path))
			}
		}
	}
	return bad
}

// intoTests returns, as "file imports path", every import of a test-only package from a
// file that is not itself part of one.
func intoTests(list []imp) []string {
	var bad []string
	for _, i := range list {
		if i.path == "" || isTestOnly(i.file) {
			continue
		}
		if isTestOnly(i.path) {
			bad = append(bad, i.file+" imports "+path.Join(module, i.path))
		}
	}
	return bad
}

func isTestOnly(p string) bool {
	dir := p
	if strings.HasSuffix(p, ".go") {
		dir = path.Dir(p)
	}
	for _, seg := range strings.Split(dir, "/") {
		if strings.HasSuffix(seg, "test") {
			return true
		}
	}
	for _, pkg := range testOnly {
		if under(p, pkg) {
			return true
		}
	}
	return false
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from %s: %v", root, err)
	}
	return root
}

func TestNoArrowPointsUp(t *testing.T) {
	for _, b := range upward(imports(t, moduleRoot(t))) {
		t.Errorf("%s: an arrow up; move the code to the floor it reads, or pass it plain values", b)
	}
}

func TestTestHelpersStayInTests(t *testing.T) {
	root := moduleRoot(t)
	for _, pkg := range testOnly {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(pkg))); err != nil {
			t.Errorf("test-only package %s is listed but gone: %v", pkg, err)
		}
	}
	for _, b := range intoTests(imports(t, root)) {
		t.Errorf("%s: copse itself would carry a test double; import it from a _test.go file only", b)
	}
}

// writeModule writes files (slash-separated path → source) under a new root.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, src := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// The checks themselves see what they forbid, and only in the code that ships.
func TestChecksFindWhatTheyForbid(t *testing.T) {
	root := writeModule(t, map[string]string{
		// A ground-floor package reading core: an arrow up.
		"internal/marks/marks.go": "package marks\n\nimport _ \"" + module + "/core\"\n",
		// Test files may import anything.
		"internal/marks/marks_test.go": "package marks\n\nimport _ \"" + module + "/tui\"\n",
		// copse importing the Herdr double.
		"core/herdr.go": "package core\n\nimport _ \"" + module + "/herdr/herdrdouble\"\n",
		// A test-only package importing another one is how they are built.
		"herdr/herdrdouble/build.go": "package herdrdouble\n\nimport _ \"" + module + "/internal/gobuild\"\n",
		// A package named …test is test-only too.
		"tui/ops.go": "package tui\n\nimport _ \"" + module + "/gitx/gitxtest\"\n",
		// core importing gitx points down.
		"core/git.go": "package core\n\nimport _ \"" + module + "/gitx\"\n",
	})
	list := imports(t, root)
	if got := upward(list); len(got) != 1 || got[0] != "internal/marks/marks.go imports "+module+"/core" {
		t.Errorf("upward = %q, want only internal/marks/marks.go importing core", got)
	}
	want := []string{"core/herdr.go imports " + module + "/herdr/herdrdouble", "tui/ops.go imports " + module + "/gitx/gitxtest"}
	if got := intoTests(list); !slices.Equal(got, want) {
		t.Errorf("intoTests = %q, want %q", got, want)
	}
}
