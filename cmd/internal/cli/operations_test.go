package cli

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/ops"
)

// Every operation of core's registry has a command line, and that command exists.
func TestEveryOperationHasACommand(t *testing.T) {
	root := NewCmdRoot(NewFactory())
	seen := map[core.Operation]bool{}
	for _, op := range ops.All.Operations() {
		seen[op] = true
		line, ok := operationCommands[op]
		if !ok {
			t.Errorf("operation %s has no command line in operationCommands", op)
			continue
		}
		var words []string
		for _, w := range strings.Fields(line)[1:] {
			if strings.HasPrefix(w, "-") || strings.ToUpper(w) == w || strings.HasPrefix(w, "[") {
				break
			}
			words = append(words, w)
		}
		c, rest, err := root.Find(words)
		if err != nil || len(rest) != 0 || c == root && len(words) > 0 {
			t.Errorf("operation %s: %q is not a command of the tree (%v, rest %v)", op, line, err, rest)
		}
		for _, w := range strings.Fields(line) {
			if strings.HasPrefix(w, "--") && c != nil && c.Flags().Lookup(strings.TrimPrefix(w, "--")) == nil {
				t.Errorf("operation %s: %s has no flag %s", op, c.CommandPath(), w)
			}
		}
	}
	for op := range operationCommands {
		if !seen[op] {
			t.Errorf("operationCommands names %s, which core does not have", op)
		}
	}
}

const (
	opsDoc   = "../../../docs/agents.md"
	opsBegin = "<!-- operations: written by go test ./cmd/internal/cli -run TestOperationTable -update -->"
	opsEnd   = "<!-- operations end -->"
)

// operationTable is docs/agents.md's table of operations, from core's registry and schema.
func operationTable(t *testing.T) string {
	t.Helper()
	variants := map[string]map[string]any{}
	for _, v := range ops.All.Schema()["oneOf"].([]any) {
		m := v.(map[string]any)
		variants[m["title"].(string)] = m
	}
	var b strings.Builder
	b.WriteString("| operation | command line | approval | a person confirms | what it does |\n|---|---|---|---|---|\n")
	for _, op := range ops.All.Operations() {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s |\n", op, operationCommands[op], ops.All.ApprovalOf(op),
			confirmText(variants[string(op)]["x-confirm-if"]), ops.All.OperationDoc(op))
	}
	return b.String()
}

// confirmText says in words what the schema's x-confirm-if says.
func confirmText(c any) string {
	switch v := c.(type) {
	case nil:
		return "no"
	case bool:
		if v {
			return "always"
		}
		return "no"
	case map[string]any:
		if not, ok := v["not"]; ok {
			return "unless " + strings.TrimPrefix(confirmText(not), "with ")
		}
		if any, ok := v["anyOf"].([]any); ok {
			var parts []string
			for _, a := range any {
				parts = append(parts, strings.TrimPrefix(confirmText(a), "with "))
			}
			sort.Strings(parts)
			return "with " + strings.Join(parts, " or ")
		}
		if req, ok := v["required"].([]any); ok && len(req) == 1 {
			return fmt.Sprintf("with `%s`", req[0])
		}
	}
	return fmt.Sprintf("%v", c)
}

// The table of operations in docs/agents.md is the registry's: an operation added without
// regenerating it fails here.
func TestOperationTable(t *testing.T) {
	raw, err := os.ReadFile(opsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, opsBegin), strings.Index(doc, opsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q … %q", opsDoc, opsBegin, opsEnd)
	}
	want := operationTable(t)
	have := strings.TrimPrefix(doc[i+len(opsBegin):j], "\n")
	if *updateMan && have != want {
		doc = doc[:i+len(opsBegin)] + "\n" + want + doc[j:]
		if err := os.WriteFile(opsDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if have != want {
		t.Fatalf("docs/agents.md's operation table is not the registry's; run `go test ./cmd/internal/cli -run TestOperationTable -update`\nwant:\n%s\nhave:\n%s", want, have)
	}
}
