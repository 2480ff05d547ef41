package main

import (
	"fmt"
	"strings"
	"time"
)

// generatedBranch mirrors upstream's generated_branch_slug: worktree/<adj>-<noun>-<hhhh>,
// hhhh being the low 16 bits of the Unix time in microseconds.
func generatedBranch(now time.Time) string {
	adjs := []string{"brave", "calm", "clear", "green", "lucky", "quiet", "rapid", "silver"}
	nouns := []string{"river", "cloud", "field", "forest", "harbor", "meadow", "stone", "valley"}
	us := now.UnixMicro()
	return fmt.Sprintf("worktree/%s-%s-%04x", adjs[(us>>16)%8], nouns[(us>>19)%8], us&0xffff)
}

// pathSlug mirrors branch_to_path_slug (§6): lower case, runs of anything but ASCII letters
// and digits become one '-', trimmed, "worktree" when empty.
func pathSlug(branch string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(branch) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	if s := strings.Trim(b.String(), "-"); s != "" {
		return s
	}
	return "worktree"
}
