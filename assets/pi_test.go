package assets

import (
	"bytes"
	"strings"
	"testing"
)

func TestPiExtensionMarker(t *testing.T) {
	ext := PiExtension()
	if !bytes.HasPrefix(ext, []byte("// copse pi extension sha256:")) || !bytes.HasSuffix(ext, piExtension) {
		t.Fatalf("PiExtension is not marker + body:\n%.200s", ext)
	}
	if !PiExtensionUnchanged(ext) {
		t.Fatal("the file copse writes does not pass as unchanged")
	}
	for name, content := range map[string][]byte{
		"body edited":    append(bytes.Clone(ext), "// mine\n"...),
		"marker edited":  bytes.Replace(ext, []byte("sha256:"), []byte("sha256:0"), 1),
		"no marker":      bytes.Clone(piExtension),
		"marker later":   append([]byte("\n"), ext...),
		"empty":          nil,
		"hash truncated": []byte(strings.SplitN(string(ext), " (", 2)[0][:40] + "\n" + string(piExtension)),
	} {
		if PiExtensionUnchanged(content) {
			t.Errorf("%s: passes as unchanged", name)
		}
	}
}
