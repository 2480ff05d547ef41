package unixonly

import (
	"go/build"
	"slices"
	"testing"
)

// The stop is compiled exactly where copse cannot run. (That the compiler then names it is
// checked by hand: GOOS=windows go build ./... prints only the unsupported.go error.)
func TestStopIsBuiltOnlyOffUnix(t *testing.T) {
	for goos, want := range map[string]bool{"windows": true, "plan9": true, "linux": false, "darwin": false, "freebsd": false} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH = goos, "amd64"
		p, err := ctx.ImportDir(".", 0)
		if err != nil {
			t.Fatalf("%s: %v", goos, err)
		}
		if got := slices.Contains(p.GoFiles, "unsupported.go"); got != want {
			t.Errorf("GOOS=%s: unsupported.go built = %v, want %v", goos, got, want)
		}
	}
}

// Every package that uses Unix-only calls imports this one, so a non-Unix build stops here
// before their own errors.
func TestUnixPackagesImportIt(t *testing.T) {
	const self = "github.com/copse-dev/copse/internal/unixonly"
	for _, dir := range []string{"../../gitx", "../../core", "../../core/usercmd", "../../scripts/bench/floor", "../../cmd/copse"} {
		ctx := build.Default
		ctx.GOOS = "windows"
		p, err := ctx.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if !slices.Contains(p.Imports, self) {
			t.Errorf("%s does not import %s", dir, self)
		}
	}
}
