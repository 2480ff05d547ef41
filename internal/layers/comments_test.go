package layers

import (
	"go/parser"
	"go/token"
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

// A comment that cites a file outside the repository cites what a reader of the
// repository cannot open: a design folder beside it, a path on the machine it was built
// on. Such a comment says the fact itself, or cites a file the repository has
// (herdr/PROTOCOL-*.md for Herdr's protocol).

var (
	// url is cut out first: a link to another site is not a path of ours.
	url = regexp.MustCompile(`[a-z][a-z0-9+.-]*://\S+`)
	// machine is a directory of a build machine, never of a user's.
	machine = regexp.MustCompile(`(^|[^\w.~-])(/work|/root)(/|\b)`)
	// upAndOut is a relative path that starts by going up (../shared/DESIGN.md): it must
	// land on something the repository has. One name alone (../x) is an example of a
	// path, unless it is a folder of the design notes.
	upAndOut = regexp.MustCompile(`(?:\.\./)+[\w-][\w.*-]*(?:/[\w.*-]+)*`)
	// outside names a folder of the shared design notes (shared/, seeds/, reference/).
	outside   = regexp.MustCompile(`(?:^|[^\w./-])((?:shared|seeds|reference)/[\w.*-]+(?:/[\w.*-]+)*)`)
	notesDirs = regexp.MustCompile(`^(?:\.\./)+(?:shared|seeds|reference)$`)
	// document is a Markdown file named by path (DESIGN.md, herdr/PROTOCOL-*.md).
	document = regexp.MustCompile(`(?:^|[^\w./-])((?:\./)?[\w*-][\w.*-]*(?:/[\w.*-]+)*\.md)\b`)
)

// tree is the slash-separated path of every file and folder of a module, relative to its
// root.
type tree []string

func walkTree(t *testing.T, root string) tree {
	t.Helper()
	var all tree
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		all = append(all, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// has reports whether ref, cited in a file of folder dir, names something of the tree
// (a pattern may use * as path.Match does): relative to dir, to the root, or as the tail of
// a longer path (PROTOCOL-workspaces.md for herdr/PROTOCOL-workspaces.md). A path that
// climbs out of the root names nothing of it.
func (tr tree) has(dir, ref string) bool {
	ref = strings.TrimSuffix(ref, "/")
	var candidates []string
	if strings.HasPrefix(ref, "../") {
		p := path.Join(dir, ref)
		if p == ".." || strings.HasPrefix(p, "../") {
			return false
		}
		candidates = []string{p}
	} else {
		candidates = []string{path.Join(dir, ref), path.Clean(ref)}
	}
	n := strings.Count(path.Clean(ref), "/") + 1
	for _, f := range tr {
		for _, c := range candidates {
			if ok, _ := path.Match(c, f); ok {
				return true
			}
		}
		if !strings.HasPrefix(ref, "../") && !strings.HasPrefix(ref, "./") {
			segs := strings.Split(f, "/")
			if len(segs) >= n {
				if ok, _ := path.Match(path.Clean(ref), strings.Join(segs[len(segs)-n:], "/")); ok {
					return true
				}
			}
		}
	}
	return false
}

// outsideCitations returns, as "file:line: what", every place in text (of the file at
// rel) that points outside the tree.
func (tr tree) outsideCitations(rel string, line int, text string) []string {
	var bad []string
	dir := path.Dir(rel)
	for i, l := range strings.Split(text, "\n") {
		l = url.ReplaceAllString(l, "")
		at := rel + ":" + strconv.Itoa(line+i) + ": "
		if m := machine.FindStringSubmatch(l); m != nil {
			bad = append(bad, at+"a path of a build machine ("+m[2]+"/…)")
		}
		for _, ref := range upAndOut.FindAllString(l, -1) {
			ref = strings.TrimRight(ref, ".") // the sentence's full stop
			if (strings.Contains(strings.TrimLeft(ref, "./"), "/") || notesDirs.MatchString(ref)) && !tr.has(dir, ref) {
				bad = append(bad, at+ref+" is not in the repository")
			}
		}
		for _, re := range []*regexp.Regexp{outside, document} {
			for _, m := range re.FindAllStringSubmatch(l, -1) {
				if ref := strings.TrimRight(m[1], "."); !tr.has(dir, ref) {
					bad = append(bad, at+ref+" is not in the repository")
				}
			}
		}
	}
	return slices.Compact(bad)
}

// commentCitations checks the comments of every non-test Go file under root.
func commentCitations(t *testing.T, root string) []string {
	t.Helper()
	tr := walkTree(t, root)
	fset := token.NewFileSet()
	var bad []string
	for _, rel := range tr {
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || slices.Contains(strings.Split(rel, "/"), "testdata") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(rel)), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				bad = append(bad, tr.outsideCitations(rel, fset.Position(c.Slash).Line, c.Text)...)
			}
		}
	}
	return bad
}

// docCitations checks every Markdown file under root, outside testdata.
func docCitations(t *testing.T, root string) []string {
	t.Helper()
	tr := walkTree(t, root)
	var bad []string
	for _, rel := range tr {
		if !strings.HasSuffix(rel, ".md") || slices.Contains(strings.Split(rel, "/"), "testdata") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		bad = append(bad, tr.outsideCitations(rel, 1, string(b))...)
	}
	return bad
}

func TestNoCommentCitesAFileOutsideTheRepository(t *testing.T) {
	for _, b := range commentCitations(t, moduleRoot(t)) {
		t.Errorf("%s: a reader of the repository cannot open it; say the fact, or cite a file the repository has", b)
	}
}

func TestNoDocumentCitesAFileOutsideTheRepository(t *testing.T) {
	for _, b := range docCitations(t, moduleRoot(t)) {
		t.Errorf("%s: a reader of the repository cannot open it; say the fact, or cite a file the repository has", b)
	}
}

// The citation checks see what they forbid, in comments only, and let through what the
// repository has.
func TestCitationChecksFindWhatTheyForbid(t *testing.T) {
	root := writeModule(t, map[string]string{
		"herdr/PROTOCOL-workspaces.md": "# workspaces\n",
		"docs/dev/layout.md":           "See [testing](testing.md) and ../../herdr/PROTOCOL-workspaces.md.\nNot ../shared/DESIGN.md.\n",
		"docs/dev/testing.md":          "Built on /work/main once.\n",
		"herdr/doc.go": "// Package herdr speaks the protocol (herdr/PROTOCOL-*.md; PROTOCOL-workspaces.md).\n" +
			"// See docs/dev/layout.md, https://example.com/reference/x.md and /tmp/s.\n" +
			"package herdr\n",
		"core/land.go": "package core\n\n" +
			"// Facts behind it: reference/land.md, \"Merge commits\".\n" +
			"func land() {}\n\n" +
			"/* The design (../shared/DESIGN.md) says so; seeds/land.txt too. */\n" +
			"var x = \"reference/land.md is a string, not a comment\"\n",
		"gitx/gitx.go":            "package gitx\n\n// Measured on /work/wt/main; /home/al is an example, so is ../x.\nvar y = 1\n",
		"gitx/gitx_test.go":       "package gitx\n\n// Test files are not checked: /work/x.\n",
		"gitx/testdata/a.go":      "package a\n\n// Fixtures are not checked: /work/x.\n",
		"core/notes.go":           "package core\n\n// The fixtures in ../testdata/gitx are real; ../../outside/x.go is not.\n",
		"testdata/gitx/README.md": "fixtures\n",
	})
	want := []string{
		"core/land.go:3: reference/land.md is not in the repository",
		"core/land.go:6: ../shared/DESIGN.md is not in the repository",
		"core/land.go:6: seeds/land.txt is not in the repository",
		"core/notes.go:3: ../../outside/x.go is not in the repository",
		"gitx/gitx.go:3: a path of a build machine (/work/…)",
	}
	if got := commentCitations(t, root); !slices.Equal(got, want) {
		t.Errorf("commentCitations =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantDocs := []string{
		"docs/dev/layout.md:2: ../shared/DESIGN.md is not in the repository",
		"docs/dev/testing.md:1: a path of a build machine (/work/…)",
	}
	if got := docCitations(t, root); !slices.Equal(got, wantDocs) {
		t.Errorf("docCitations =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantDocs, "\n"))
	}
}
