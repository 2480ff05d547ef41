package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/copse-dev/copse"

// above lists, for each floor (a folder of the module), the floors it must not import:
// every floor above it. Folders not listed (cmd, scripts) are the top.
var above = map[string][]string{
	"tui":      {"cmd"},
	"core":     {"cmd", "tui"},
	"gitx":     {"cmd", "tui", "core", "herdr"},
	"herdr":    {"cmd", "tui", "core", "gitx"},
	"internal": {"cmd", "tui", "core", "gitx", "herdr"},
	"assets":   {"cmd", "tui", "core", "gitx", "herdr"},
}

// upward returns every import of a non-test Go file under root that points at a floor
// above the file's own, as "file imports path".
func upward(t *testing.T, root string) []string {
	t.Helper()
	var bad []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		floor, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			ip, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			for _, up := range above[floor] {
				if ip == path.Join(module, up) || strings.HasPrefix(ip, path.Join(module, up)+"/") {
					bad = append(bad, filepath.ToSlash(rel)+" imports "+ip)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

func TestNoArrowPointsUp(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from %s: %v", root, err)
	}
	for _, b := range upward(t, root) {
		t.Errorf("%s: an arrow up; move the code to the floor it reads, or pass it plain values", b)
	}
}

// The check itself sees an upward import: a package on the ground floor importing core.
func TestUpwardImportIsFound(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "internal", "marks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package marks\n\nimport _ \"" + module + "/core\"\n"
	if err := os.WriteFile(filepath.Join(dir, "marks.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// Test files are not checked: the arrows are about the code that ships.
	if err := os.WriteFile(filepath.Join(dir, "marks_test.go"), []byte("package marks\n\nimport _ \""+module+"/tui\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := upward(t, root)
	if len(got) != 1 || got[0] != "internal/marks/marks.go imports "+module+"/core" {
		t.Fatalf("upward = %q, want the one import of core from internal/marks/marks.go", got)
	}
}
