package assets

import (
	"bytes"
	"strings"
	"testing"
)

func TestOmpExtensionIsThePiExtensionPlusTheAdapter(t *testing.T) {
	ext := OmpExtension()
	if !OmpExtensionUnchanged(ext) {
		t.Fatal("the file copse writes does not pass as unchanged")
	}
	if PiExtensionUnchanged(ext) || OmpExtensionUnchanged(PiExtension()) {
		t.Fatal("a pi extension passes for an omp one or the other way round")
	}
	// One source: every line of the pi extension but its entry point is in the omp one, in order.
	rest := string(ext)
	for _, line := range strings.Split(string(piExtension), "\n") {
		switch {
		case line == piEntry:
			line = piEntryOmp
		case strings.Contains(line, string(piCommand)):
			line = strings.Replace(line, string(piCommand), string(ompCommand), 1)
		}
		line = piCommandText.ReplaceAllString(line, string(ompCommandText))
		i := strings.Index(rest, line)
		if i < 0 {
			t.Fatalf("the omp extension lacks the pi extension's line %q", line)
		}
		rest = rest[i+len(line):]
	}
	if !bytes.HasSuffix(ext, ompAdapter) {
		t.Fatal("the omp extension does not end with the adapter")
	}
	if strings.Contains(string(ext), "/worktree ") || strings.Contains(string(ext), `registerCommand("worktree"`) {
		t.Fatal("the omp extension still names /worktree, which omp keeps for its own command")
	}
	if n := strings.Count(string(ext), "export default"); n != 1 {
		t.Fatalf("the omp extension has %d default exports, want 1 (the adapter's)", n)
	}
	for name, content := range map[string][]byte{
		"body edited":   append(bytes.Clone(ext), "// mine\n"...),
		"marker edited": bytes.Replace(ext, []byte("sha256:"), []byte("sha256:0"), 1),
		"no marker":     bytes.Clone(ompBody()),
		"empty":         nil,
	} {
		if OmpExtensionUnchanged(content) {
			t.Errorf("%s: passes as unchanged", name)
		}
	}
}
