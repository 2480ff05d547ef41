package agent

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/copse-dev/copse/cmd/internal/agent/agenttest"
)

var (
	newFixture = agenttest.New
	noOpen     = agenttest.NoOpen
	mustJSON   = agenttest.MustJSON
)

type toolRun struct {
	code  int
	reply Reply
	raw   string
}

func runToolJSON(t *testing.T, open Opener, in string, approved bool) toolRun {
	t.Helper()
	var out bytes.Buffer
	code := Tool(t.Context(), open, strings.NewReader(in), &out, approved)
	raw := out.String()
	if strings.Count(raw, "\n") != 1 || !strings.HasSuffix(raw, "\n") {
		t.Fatalf("reply is not exactly one line: %q", raw)
	}
	var rep Reply
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("reply %q: %v", raw, err)
	}
	if rep.OK != (code == 0) || rep.OK != (rep.Error == nil) {
		t.Fatalf("exit %d does not match reply %s", code, raw)
	}
	return toolRun{code: code, reply: rep, raw: raw}
}
