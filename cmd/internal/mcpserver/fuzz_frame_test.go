package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzFrame feeds one line of anything to the stdio framing: it must never panic, and it
// must answer every line with at most one of a message for the SDK or its own reply, the
// reply one JSON-RPC error object whose id is null or bytes the line itself holds (an id
// echoed as sent, never re-encoded).
func FuzzFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":7.5,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":"a","method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
		`not json`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c := &stdioConn{ids: idMap{sent: map[int64]sentID{}, live: map[string]int64{}}}
		v := c.frame(line, false)
		if v.msg != nil && v.reply != nil {
			t.Fatalf("line %q: both a message and a reply", line)
		}
		if v.reply == nil {
			return
		}
		var out struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(v.reply, &out); err != nil {
			t.Fatalf("line %q: reply %q is not JSON: %v", line, v.reply, err)
		}
		if out.JSONRPC != "2.0" || out.Error == nil || out.Error.Message == "" {
			t.Fatalf("line %q: reply %q is not a JSON-RPC error", line, v.reply)
		}
		if id := string(out.ID); id != "null" && !bytes.Contains(line, out.ID) {
			t.Fatalf("line %q: reply id %s is not the line's own bytes", line, id)
		}
	})
}
