package core_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The stores sit below core (docs/dev/layout.md): core imports them, never the other way,
// so a store can be read, tested and changed without the safety core. Each may import the
// standard library and only the copse packages listed here.
func TestStoresImportNothingAbove(t *testing.T) {
	const module = "github.com/copse-dev/copse/"
	for dir, allowed := range map[string][]string{
		"eventlog": nil,
		"landjobs": {module + "internal/textsafe"},
	} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range parsed.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasPrefix(path, module) && !slices.Contains(allowed, path) {
					t.Errorf("%s imports %s: a store imports no copse package but %v", f, path, allowed)
				}
			}
		}
	}
}
