package core_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// codeConstants reads core/codes.go: every constant's value, each of which must have a
// comment saying what it means.
func codeConstants(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || !strings.HasPrefix(name.Name, "Code") {
					t.Errorf("codes.go: %s is not a Code constant with a string value", name.Name)
					continue
				}
				v, _ := strconv.Unquote(lit.Value)
				if vs.Doc == nil || !strings.HasPrefix(vs.Doc.Text(), name.Name+" ") {
					t.Errorf("codes.go: %s has no comment saying what it means", name.Name)
				}
				if prev, dup := codes[v]; dup {
					t.Errorf("codes.go: %s and %s are both %q", prev, name.Name, v)
				}
				codes[v] = name.Name
			}
		}
	}
	return codes
}

// Error codes are an API: every constant has a row in docs/codes.md (code, meaning, exit code), and
// every row names a constant.
func TestCodesAreDocumented(t *testing.T) {
	t.Parallel()
	codes := codeConstants(t)
	if len(codes) < 100 {
		t.Fatalf("only %d codes read from codes.go", len(codes))
	}
	readme, err := os.ReadFile("../docs/codes.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "<!-- codes:begin")
	table, _, ok2 := strings.Cut(table, "<!-- codes:end -->")
	if !ok || !ok2 {
		t.Fatal("docs/codes.md has no codes table (<!-- codes:begin --> … <!-- codes:end -->)")
	}
	row := regexp.MustCompile("^\\| `([a-z_]+)` \\| (.+) \\| ([0-9]+(?: or [0-9]+)*) \\|$")
	listed := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if listed[m[1]] {
			t.Errorf("docs/codes.md lists %s twice", m[1])
		}
		listed[m[1]] = true
		if _, ok := codes[m[1]]; !ok {
			t.Errorf("docs/codes.md lists code %s, which core/codes.go does not define", m[1])
		}
	}
	for code, name := range codes {
		if !listed[code] {
			t.Errorf("%s (%q) has no row in docs/codes.md (code | meaning | exit)", name, code)
		}
	}
}

// Every code is written through its constant: a string literal where a code is made or
// compared is a code nobody documented.
func TestCodesAreConstants(t *testing.T) {
	t.Parallel()
	literal := regexp.MustCompile(`\b(?:usage|refused|failed|uncertain|gitFailure|r\.blocked)\("[a-z_]+"|\br\.finish\(Land[A-Za-z]+,\s*"[a-z_]+"|\bCode\s*=\s*[A-Za-z]+,\s*"[a-z_]+"|Code:\s*"[a-z_]+"|(?:\.Code|\bcode)\s*[!=]=\s*"[a-z_]+"|\bmk\(Kind[A-Za-z]+,\s*"[a-z_]+"`)
	caseLine, quoted := regexp.MustCompile(`^\s*case\s+"`), regexp.MustCompile(`"([a-z_]+)"`)
	codes := codeConstants(t)
	isCode := func(line string) bool {
		if literal.MatchString(line) {
			return true
		}
		if caseLine.MatchString(line) { // a switch on a code
			for _, m := range quoted.FindAllStringSubmatch(line, -1) {
				if _, ok := codes[m[1]]; ok {
					return true
				}
			}
		}
		return false
	}
	var found []string
	for _, dir := range []string{".", "../cmd", "../tui"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				if isCode(line) {
					found = append(found, p+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(found)
	for _, f := range found {
		t.Errorf("a code written as a literal (add a constant to core/codes.go and a row in docs/codes.md): %s", f)
	}
}
