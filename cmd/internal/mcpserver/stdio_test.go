package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/copse-dev/copse/cmd/internal/agent/agenttest"
	"github.com/copse-dev/copse/internal/gobuild"
)

// These tests drive the built copse-mcp over its real stdin and stdout, line by line, the
// way a host does: one bad message must be answered (or, for a notification or a
// response, dropped) and the next one served.

// stdioBin is copse-mcp, built once for all the stdio tests into a directory TestMain
// removes.
var (
	stdioBinDir string
	stdioBin    = sync.OnceValues(func() (string, error) {
		dir, err := os.MkdirTemp("", "copse-mcp-stdio-")
		if err != nil {
			return "", err
		}
		stdioBinDir = dir
		bin := filepath.Join(dir, "copse-mcp")
		var flags []string
		if raceEnabled {
			flags = append(flags, "-race")
		}
		return bin, gobuild.Build(bin, "github.com/copse-dev/copse/cmd/copse-mcp", flags...)
	})
)

func TestMain(m *testing.M) {
	code := m.Run()
	if stdioBinDir != "" {
		os.RemoveAll(stdioBinDir)
	}
	os.Exit(code)
}

// stdioServer is one copse-mcp process with an initialised session.
type stdioServer struct {
	t      *testing.T
	f      *agenttest.Fixture
	stdin  io.WriteCloser
	lines  chan []byte // the server's stdout, one line each; closed when it ends
	stderr *bytes.Buffer
	pings  int
}

func startStdio(t *testing.T) *stdioServer { t.Helper(); return startStdioWith(t, `{}`) }

// startStdioWith starts copse-mcp on a fresh fixture and initialises a session on
// protocol 2025-06-18 (where the server asks through elicitation/create) with the
// client capabilities caps.
func startStdioWith(t *testing.T, caps string) *stdioServer {
	t.Helper()
	if testing.Short() {
		t.Skip("builds copse-mcp")
	}
	bin, err := stdioBin()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := exec.CommandContext(ctx, bin, "-C", f.Root, "--backend", "git", "mcp")
	cmd.Env = fixtureEnv(f)
	s := &stdioServer{t: t, f: f, lines: make(chan []byte, 64), stderr: &bytes.Buffer{}}
	cmd.Stderr = s.stderr
	s.stdin, err = cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				s.lines <- line
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		defer cancel()
		s.stdin.Close()
		for stray := range s.lines { // the reader must finish before Wait closes stdout
			t.Errorf("unexpected reply at the end: %s", stray)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("copse-mcp after stdin closed: %v\n%s", err, s.stderr)
		}
	})
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + caps + `,"clientInfo":{"name":"stdio-test","version":"1"}}}`)
	if r := s.reply(); r.Result == nil || string(r.ID) != `"init"` {
		t.Fatalf("initialize: %s", r.line)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *stdioServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatalf("writing to copse-mcp: %v (the session ended)\n%s", err, s.stderr)
	}
}

// wireReply is one line the server wrote, its id kept as the bytes it carried.
type wireReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	line string
}

func (s *stdioServer) reply() wireReply {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("copse-mcp ended the session\n%s", s.stderr)
		}
		var r wireReply
		var members map[string]json.RawMessage
		if err := json.Unmarshal(line, &r); err != nil || r.JSONRPC != "2.0" || json.Unmarshal(line, &members) != nil {
			s.t.Fatalf("reply %q: %v", line, err)
		}
		// A response has an id and exactly one of result and error (JSON-RPC 2.0).
		_, hasResult := members["result"]
		_, hasError := members["error"]
		_, hasID := members["id"]
		if r.Method == "" && (hasResult == hasError || !hasID) {
			s.t.Errorf("not a JSON-RPC response: %s", line)
		}
		r.line = strings.TrimSpace(string(line))
		return r
	case <-time.After(20 * time.Second):
		s.t.Fatalf("no reply from copse-mcp\n%s", s.stderr)
	}
	panic("unreachable")
}

// refused checks that the next reply is a JSON-RPC error with code and id (as bytes).
func (s *stdioServer) refused(what string, code int, id string) {
	s.t.Helper()
	r := s.reply()
	if r.Error == nil || r.Error.Code != code || string(r.ID) != id || r.Result != nil {
		s.t.Errorf("%s: got %s, want error %d with id %s", what, r.line, code, id)
	}
}

// alive checks that the session still serves: a ping gets its own answer, and nothing
// else (no stray reply to a message that should have had none) comes first.
func (s *stdioServer) alive(after string) {
	s.t.Helper()
	s.pings++
	id := fmt.Sprintf(`"alive-%d"`, s.pings)
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
	if r := s.reply(); string(r.ID) != id || string(r.Result) != "{}" {
		s.t.Errorf("after %s: ping %s got %s", cut(after), id, r.line)
	}
}

func cut(s string) string {
	if len(s) > 80 {
		return s[:80] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}

// pingWith is a ping whose params carry filler under _meta, which the server accepts
// and ignores: a way to make a valid request of a chosen size or depth.
func pingWith(id, meta string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping","params":{"_meta":{"x":` + meta + `}}}`
}

// nested is a request nested exactly depth levels deep (the message object is level 1).
func nested(id string, depth int) string {
	inner := depth - 3 // the message, params and _meta are three levels
	return pingWith(id, strings.Repeat("[", inner)+strings.Repeat("]", inner))
}

// sized is a request of exactly n bytes, not counting its newline.
func sized(id string, n int) string {
	pad := n - len(pingWith(id, `""`))
	return pingWith(id, `"`+strings.Repeat("x", pad)+`"`)
}

// badLine is a message the server must refuse: code is the JSON-RPC error it answers
// with and id the id that answer carries, or code 0 for a message that gets no answer
// (a notification or a response).
type badLine struct {
	name, line string
	code       int
	id         string
}

var notJSON = []badLine{
	{"plain text", `hello`, -32700, "null"},
	{"cut short", `{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, "null"},
	{"trailing text", `{"jsonrpc":"2.0","id":2,"method":"ping"} and more`, -32700, "null"},
	{"two messages on one line", `{"jsonrpc":"2.0","id":3,"method":"ping"}{"jsonrpc":"2.0","id":4,"method":"ping"}`, -32700, "null"},
	{"a lone bracket", `}`, -32700, "null"},
}

var wrongVersion = []badLine{
	{"version 1.0", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600, "5"},
	{"version as a number", `{"jsonrpc":2.0,"id":6,"method":"ping"}`, -32600, "6"},
	{"no version", `{"id":"seven","method":"ping"}`, -32600, `"seven"`},
	{"version 2.1", `{"jsonrpc":"2.1","id":8,"method":"tools/list"}`, -32600, "8"},
}

var badIDs = []badLine{
	{"object id", `{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}`, -32600, "null"},
	{"true id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
	{"false id", `{"jsonrpc":"2.0","id":false,"method":"ping"}`, -32600, "null"},
	{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null"},
	{"null id (MCP forbids it)", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null"},
}

var notARequest = []badLine{
	{"a number", `42`, -32600, "null"},
	{"a string", `"ping"`, -32600, "null"},
	{"a batch", `[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, -32600, "null"},
	{"an empty batch", `[]`, -32600, "null"},
	{"method not a string", `{"jsonrpc":"2.0","id":10,"method":1}`, -32600, "10"},
	{"neither request nor response", `{"jsonrpc":"2.0","id":11}`, -32600, "11"},
	{"duplicate id", `{"jsonrpc":"2.0","id":12,"id":13,"method":"ping"}`, -32600, "null"},
	{"duplicate method", `{"jsonrpc":"2.0","id":19,"method":"ping","method":"tools/list"}`, -32600, "19"},
	{"params a string", `{"jsonrpc":"2.0","id":18,"method":"tools/list","params":"x"}`, -32600, "18"},
}

var overLimits = []badLine{
	{"nested one level over the limit", nested("14", MaxDepth+1), -32600, "null"},
	{"nested 20000 levels", nested("15", 20000), -32600, "null"},
	{"one byte over the line limit", sized("16", MaxLineBytes+1), -32600, "null"},
	{"a line of 20 MiB", sized("17", 20<<20), -32600, "null"},
}

var silentlyDropped = []badLine{
	{"notification with version 1.0", `{"jsonrpc":"1.0","method":"notifications/initialized"}`, 0, ""},
	{"notification without version", `{"method":"notifications/progress","params":{"progressToken":1,"progress":1}}`, 0, ""},
	{"cancel with params not an object", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}`, 0, ""},
	{"cancel of an object id", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}`, 0, ""},
	{"cancel of an unknown request", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nobody"}}`, 0, ""},
	{"response with a string error", `{"jsonrpc":"2.0","id":99,"error":"boom"}`, 0, ""},
	{"response with a null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, 0, ""},
	{"response with an object id", `{"jsonrpc":"2.0","id":{},"result":{}}`, 0, ""},
	{"response with a fractional id", `{"jsonrpc":"2.0","id":7.5,"result":{}}`, 0, ""},
	{"response to nothing", `{"jsonrpc":"2.0","id":12345,"result":{}}`, 0, ""},
}

// sendAll sends each bad line, checks its answer (or that it has none) and that the
// session still serves after it.
func (s *stdioServer) sendAll(lines []badLine) {
	s.t.Helper()
	for _, b := range lines {
		s.send(b.line)
		if b.code != 0 {
			s.refused(b.name, b.code, b.id)
		}
		s.alive(b.name)
	}
}

// A line that is not JSON is a parse error (id null), not the end of the session.
func TestStdioNotJSONGetsParseErrorAndServes(t *testing.T) {
	startStdio(t).sendAll(notJSON)
}

// A message that is not JSON-RPC 2.0 is an invalid request answered with its id.
func TestStdioWrongVersionGetsInvalidRequestAndServes(t *testing.T) {
	startStdio(t).sendAll(wrongVersion)
}

// An id that is an object, a boolean, an array or null is an invalid request (id null).
func TestStdioBadIDGetsInvalidRequestAndServes(t *testing.T) {
	startStdio(t).sendAll(badIDs)
}

// Something that is JSON but no request (a scalar, a batch, a method that is not a
// string, an id given twice) is an invalid request.
func TestStdioNotARequestGetsInvalidRequestAndServes(t *testing.T) {
	s := startStdio(t)
	s.sendAll(notARequest)
	// What is not refused: params null (some clients send it with ping), a Windows line
	// ending, blank lines and spaces around the message.
	s.send(`{"jsonrpc":"2.0","id":"null-params","method":"ping","params":null}` + "\r\n\n  \t")
	if r := s.reply(); string(r.ID) != `"null-params"` || string(r.Result) != "{}" {
		t.Errorf("ping with params null: %s", r.line)
	}
	s.alive("blank lines")
}

// Nesting deeper than MaxDepth is refused before it is parsed; MaxDepth itself is served.
func TestStdioNestingOverTheLimitGetsInvalidRequest(t *testing.T) {
	s := startStdio(t)
	s.send(nested(`"deep"`, MaxDepth))
	if r := s.reply(); string(r.ID) != `"deep"` || string(r.Result) != "{}" {
		t.Errorf("a request nested exactly %d deep: %s", MaxDepth, cut(r.line))
	}
	s.sendAll(overLimits[:2])
}

// A line over MaxLineBytes is refused without being buffered whole; a line of exactly
// MaxLineBytes is served.
func TestStdioLineOverTheLimitGetsInvalidRequest(t *testing.T) {
	s := startStdio(t)
	s.send(sized(`"big"`, MaxLineBytes))
	if r := s.reply(); string(r.ID) != `"big"` || string(r.Result) != "{}" {
		t.Errorf("a request of exactly %d bytes: %s", MaxLineBytes, cut(r.line))
	}
	s.sendAll(overLimits[2:])
}

// Bad notifications and bad responses get no answer (JSON-RPC answers neither) and do
// not end the session.
func TestStdioBadNotificationsAndResponsesGetNoReply(t *testing.T) {
	startStdio(t).sendAll(silentlyDropped)
}

// Every answer carries the request's id exactly as it was sent: a fraction stays a
// fraction, an integer beyond 2^53 keeps its last digit, a string keeps its escapes.
func TestStdioEchoesRequestIDsByteForByte(t *testing.T) {
	s := startStdio(t)
	for _, id := range []string{`7.5`, `7`, `9007199254740993`, `-12345678901234567890`, `1.0`, `1e2`, `-0`, `0`,
		`"7"`, `"9007199254740993"`, `"\u00e9t\u00e9"`, `""`, `"a\"b"`} {
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if r := s.reply(); string(r.ID) != id || string(r.Result) != "{}" {
			t.Errorf("ping with id %s: %s", id, r.line)
		}
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"no/such/method"}`)
		s.refused("unknown method with id "+id, -32601, id)
	}
	s.send(`{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"worktree","arguments":{"operation":"list"}}}`)
	if r := s.reply(); string(r.ID) != `9007199254740993` || !strings.Contains(string(r.Result), `\"ok\":true`) {
		t.Errorf("tools/call list with id 9007199254740993: %s", cut(r.line))
	}
}

// After every kind of bad line, in one session, a real request is still served: the
// tool list and then a call of the tool.
func TestStdioSessionServesAfterEveryBadLine(t *testing.T) {
	s := startStdio(t)
	for _, group := range [][]badLine{notJSON, wrongVersion, badIDs, notARequest, overLimits, silentlyDropped} {
		for _, b := range group {
			s.send(b.line)
			if b.code != 0 {
				s.refused(b.name, b.code, b.id)
			}
			s.send(`{"jsonrpc":"2.0","id":"tools","method":"tools/list"}`)
			if r := s.reply(); string(r.ID) != `"tools"` || !strings.Contains(string(r.Result), `"name":"worktree"`) {
				t.Errorf("tools/list after %s: %s", b.name, cut(r.line))
			}
		}
	}
	s.send(`{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"worktree","arguments":{"operation":"list"}}}`)
	if r := s.reply(); string(r.ID) != `"call"` || !strings.Contains(string(r.Result), `\"ok\":true`) {
		t.Errorf("tools/call list at the end: %s", cut(r.line))
	}
}

// removeCall is a tools/call of the worktree tool removing path, with the raw id given.
func removeCall(t *testing.T, id, path string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"worktree","arguments":{"operation":"remove","path":` +
		mustJSON(t, path) + `}}}`
}

// asked reads the server's elicitation/create and returns its id.
func (s *stdioServer) asked() string {
	s.t.Helper()
	r := s.reply()
	if r.Method != "elicitation/create" || len(r.ID) == 0 {
		s.t.Fatalf("want the server's elicitation/create, got %s", r.line)
	}
	return string(r.ID)
}

// While a request is in progress (a remove waiting for the user's answer), a second
// request with its id is refused (the replies could not be told apart), other requests
// are served, and the client's answer to the server's question reaches the waiting call,
// whose reply carries the id as sent. Once answered, the id is free again.
func TestStdioRequestInProgressKeepsItsID(t *testing.T) {
	s := startStdioWith(t, `{"elicitation":{}}`)
	before := s.f.Snapshot()
	s.send(removeCall(t, "7.5", s.f.Feat))
	ask := s.asked()
	s.send(`{"jsonrpc":"2.0","id":7.5,"method":"ping"}`)
	s.refused("a second request with id 7.5 in progress", -32600, "7.5")
	s.alive("the second request with id 7.5")
	s.send(`{"jsonrpc":"2.0","id":` + ask + `,"result":{"action":"decline"}}`)
	if r := s.reply(); string(r.ID) != "7.5" || !strings.Contains(string(r.Result), `declined`) {
		t.Fatalf("the declined remove: %s", r.line)
	}
	s.f.Unchanged(before)
	s.send(`{"jsonrpc":"2.0","id":7.5,"method":"ping"}`)
	if r := s.reply(); string(r.ID) != "7.5" || string(r.Result) != "{}" {
		t.Errorf("id 7.5 after its request was answered: %s", r.line)
	}
}

// notifications/cancelled names the request by the client's id (here one the SDK would
// round to another number): the waiting remove ends, nothing is removed, and the
// session goes on.
func TestStdioCancelNamesTheRequestByItsID(t *testing.T) {
	s := startStdioWith(t, `{"elicitation":{}}`)
	before := s.f.Snapshot()
	s.send(removeCall(t, "9007199254740993", s.f.Feat))
	s.asked()
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993,"reason":"the user stopped it"}}`)
	for {
		r := s.reply()
		if r.Method == "notifications/cancelled" { // the server withdraws its question
			continue
		}
		if string(r.ID) != "9007199254740993" {
			t.Fatalf("after the cancel: %s", r.line)
		}
		break
	}
	s.f.Unchanged(before)
	// The server may withdraw its question (notifications/cancelled) before or after
	// the reply; a ping after it is still served.
	s.send(`{"jsonrpc":"2.0","id":"after-cancel","method":"ping"}`)
	for {
		r := s.reply()
		if r.Method == "notifications/cancelled" {
			continue
		}
		if string(r.ID) != `"after-cancel"` || string(r.Result) != "{}" {
			t.Errorf("ping after the cancel: %s", r.line)
		}
		break
	}
}

// A malformed answer to the server's question (an error that is not an error object)
// fails the call that waited for it, and only that: nothing is removed and the session
// goes on.
func TestStdioMalformedAnswerFailsOnlyTheWaitingCall(t *testing.T) {
	s := startStdioWith(t, `{"elicitation":{}}`)
	before := s.f.Snapshot()
	s.send(removeCall(t, `"rm"`, s.f.Feat))
	ask := s.asked()
	s.send(`{"jsonrpc":"2.0","id":` + ask + `,"error":"boom"}`)
	if r := s.reply(); string(r.ID) != `"rm"` || (r.Error == nil && !strings.Contains(string(r.Result), `"isError":true`)) {
		t.Fatalf("the remove after a malformed answer: %s", r.line)
	}
	s.f.Unchanged(before)
	s.alive("the malformed answer")
}

// A line over the limit is skipped, not kept: the reader's buffer never grows past the
// limit however long the line, and the line after it is read whole.
func TestStdioLineReaderKeepsNoMoreThanTheLimit(t *testing.T) {
	long := strings.Repeat("x", 3*MaxLineBytes)
	l := lineReader{r: bufio.NewReaderSize(strings.NewReader(long+"\n"+`{"next":1}`+"\r\n"), 64<<10)}
	line, tooLong, err := l.next()
	if !tooLong || line != nil || err != nil {
		t.Fatalf("the long line: %d bytes, tooLong %v, err %v", len(line), tooLong, err)
	}
	if cap(l.buf) > 2*MaxLineBytes {
		t.Errorf("the reader kept %d bytes for a line of %d (limit %d)", cap(l.buf), len(long), MaxLineBytes)
	}
	line, tooLong, err = l.next()
	if string(line) != `{"next":1}` || tooLong || err != nil {
		t.Errorf("the line after it: %q, tooLong %v, err %v", line, tooLong, err)
	}
	if _, _, err := l.next(); err != io.EOF {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
}
