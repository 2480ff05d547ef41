package core

import (
	"reflect"
	"testing"
)

func TestCopyGlobs(t *testing.T) {
	got := copyGlobs([]string{".env*", ".vscode/", "config/local.yml", "/top-only", " ", "build/cache/"})
	want := []string{"**/.env*", "**/.vscode/**", "config/local.yml", "top-only", "build/cache/**"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("copyGlobs = %q, want %q", got, want)
	}
}
