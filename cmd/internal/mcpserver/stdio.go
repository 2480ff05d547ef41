package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio framing. The SDK's IOTransport ends the session on the first message it
// cannot decode (not JSON, a wrong "jsonrpc", an id that is an object, a line over its
// limit), and it holds ids as int64 or string, so 7.5 came back as 7 and
// 9007199254740993 as 9007199254740992. So copse reads stdin itself, one line (one
// message) at a time: a bad line is answered here (or dropped, when it is a notification
// or a response, which JSON-RPC never answers) and the next line is read; a good request
// reaches the SDK under an id of copse's choosing, and its reply goes out with the id
// the client sent, byte for byte.

const (
	// MaxLineBytes bounds one message: one line of stdin, its newline not counted. A
	// copse request is at most agent.MaxRequestBytes (1 MiB, the limit of copse tool);
	// a tools/call is one such request in a small envelope, so 4 MiB holds the largest
	// legitimate message with room to spare, while a runaway client cannot make the
	// server buffer more. A longer line is skipped without being kept.
	MaxLineBytes = 4 << 20
	// MaxDepth bounds how deeply one message nests objects and arrays (the message
	// itself is level 1). core refuses a request nested deeper than 32, and one sits at
	// level 3 of a tools/call; MCP's own messages nest a handful of levels. 64 is far
	// beyond both and keeps every later parse shallow. Depth is checked before the line
	// is parsed (encoding/json would call 10,000 levels a syntax error).
	MaxDepth = 64
)

// stdioTransport is the MCP transport of ServeMCP: newline-delimited JSON-RPC on in and
// out, with the framing above.
type stdioTransport struct {
	in  io.Reader
	out io.Writer
}

func (t stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		out:      t.out,
		incoming: make(chan readResult),
		closed:   make(chan struct{}),
		ids:      idMap{sent: map[int64]sentID{}, live: map[string]int64{}},
	}
	go c.readLoop(t.in)
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// stdioConn is an mcp.Connection over stdio. Reading happens in readLoop, so that Close
// can unblock a Read waiting for a line (a read of stdin itself cannot be interrupted;
// like the SDK's, that goroutine ends with stdin).
type stdioConn struct {
	out       io.Writer
	writeMu   sync.Mutex // one line at a time: the SDK's replies and the framing's own
	incoming  chan readResult
	closed    chan struct{}
	closeOnce sync.Once
	ids       idMap
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := c.encode(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// encode is msg on the wire. A reply to a client's request carries the id as the client
// sent it (the SDK only ever saw copse's stand-in).
func (c *stdioConn) encode(msg jsonrpc.Message) ([]byte, error) {
	r, ok := msg.(*jsonrpc.Response)
	if !ok {
		return jsonrpc.EncodeMessage(msg)
	}
	raw, ok := c.ids.answered(r.ID)
	if !ok {
		return jsonrpc.EncodeMessage(msg)
	}
	// Encode without the id (an empty ID is left out), then put the client's bytes in.
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{Result: r.Result, Error: r.Error})
	if err != nil {
		return nil, err
	}
	var body struct {
		Result json.RawMessage `json:"result,omitempty"`
		Error  json.RawMessage `json:"error,omitempty"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		return nil, fmt.Errorf("re-reading the SDK's reply: %w", err)
	}
	out := wireOut{JSONRPC: "2.0", ID: raw, Result: body.Result}
	if len(body.Error) > 0 { // a nil RawMessage in Error would still be written, as null
		out.Error = body.Error
	}
	return marshalWire(out)
}

// wireOut is a reply as copse writes it: the id is raw bytes, null included.
type wireOut struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   any             `json:"error,omitempty"`
}

// marshalWire marshals without HTML escaping, as the SDK does, so that raw bytes taken
// from the SDK or the client are written as they are.
func marshalWire(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func (c *stdioConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// deliver hands one read result to Read; false when the connection closed first.
func (c *stdioConn) deliver(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// readLoop reads in line by line until it ends: each line is answered by the framing,
// handed to the SDK, or dropped, and then the next is read. Only the end of in (io.EOF:
// the client left), a read error or a write error ends the session.
func (c *stdioConn) readLoop(in io.Reader) {
	lines := lineReader{r: bufio.NewReaderSize(in, 64<<10)}
	for {
		line, tooLong, err := lines.next()
		if tooLong || len(line) > 0 {
			v := c.frame(line, tooLong)
			if v.reply != nil {
				if werr := c.writeLine(v.reply); werr != nil {
					c.deliver(readResult{err: werr})
					return
				}
			}
			if v.msg != nil && !c.deliver(readResult{msg: v.msg}) {
				return
			}
		}
		if err != nil {
			c.deliver(readResult{err: err})
			return
		}
	}
}

// lineReader splits in into lines (\n, with an optional \r before it) and never holds
// more than MaxLineBytes of one.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

// next returns the next line without its line ending, or tooLong (and no line) when it
// was over MaxLineBytes; err is the reader's (io.EOF after the last line).
func (l *lineReader) next() (line []byte, tooLong bool, err error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLong {
			if len(l.buf)+len(chunk) > MaxLineBytes+len("\r\n") {
				tooLong, l.buf = true, l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(l.buf, []byte("\n")), []byte("\r"))
		if tooLong || len(line) > MaxLineBytes {
			return nil, true, err
		}
		return bytes.Clone(line), false, err
	}
}

// verdict is what becomes of one line: a message for the SDK, a reply the framing
// writes itself, or (both nil) nothing.
type verdict struct {
	msg   jsonrpc.Message
	reply []byte
}

var nullID = json.RawMessage("null")

// refuse is the framing's own JSON-RPC error reply.
func refuse(id json.RawMessage, code int64, message string) verdict {
	b, err := marshalWire(wireOut{JSONRPC: "2.0", ID: id, Error: &jsonrpc.Error{Code: code, Message: message}})
	if err != nil { // cannot happen: every field is plain data
		panic(err)
	}
	return verdict{reply: b}
}

func invalid(id json.RawMessage, format string, args ...any) verdict {
	return refuse(id, jsonrpc.CodeInvalidRequest, "invalid request: "+fmt.Sprintf(format, args...))
}

// frame decides one line. The limits come first, because they are what keep the
// parsing that follows cheap; a line over them is answered with id null even if it
// was a notification, since telling that would mean parsing it.
func (c *stdioConn) frame(line []byte, tooLong bool) verdict {
	if tooLong {
		return invalid(nullID, "the message is longer than %d bytes (copse-mcp's limit for one line)", MaxLineBytes)
	}
	line = bytes.Trim(line, " \t\r\n")
	switch {
	case len(line) == 0:
		return verdict{} // a blank line is no message; the SDK skipped them too
	case tooDeep(line):
		return invalid(nullID, "the message nests deeper than %d levels (copse-mcp's limit)", MaxDepth)
	case !json.Valid(line):
		return refuse(nullID, jsonrpc.CodeParseError, "parse error: the line is not one JSON value (send one JSON-RPC message per line)")
	case line[0] == '[':
		return invalid(nullID, "batches are not accepted (MCP 2025-06-18 removed them); send one message per line")
	case line[0] != '{':
		return invalid(nullID, "a JSON-RPC message is an object")
	}
	m, dup := members(line)
	e := envelope{line: line, m: m, dup: dup}
	switch {
	case e.isNotification():
		return c.notification(e)
	case e.isResponse():
		return c.response(e)
	}
	return c.request(e)
}

// tooDeep reports whether line nests objects and arrays deeper than MaxDepth. It only
// counts brackets outside strings, so it also works on a line that is not JSON.
func tooDeep(line []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range line {
		switch {
		case escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case b == '"':
			inString = !inString
		case inString:
		case b == '{' || b == '[':
			if depth++; depth > MaxDepth {
				return true
			}
		case (b == '}' || b == ']') && depth > 0:
			depth--
		}
	}
	return false
}

// members are the top-level members of a valid JSON object, and the first name given
// twice (encoding/json would silently keep the last).
func members(line []byte) (map[string]json.RawMessage, string) {
	dec := json.NewDecoder(bytes.NewReader(line))
	m, dup := map[string]json.RawMessage{}, ""
	if _, err := dec.Token(); err != nil { // the opening brace
		return m, dup
	}
	for dec.More() {
		tok, err := dec.Token()
		name, _ := tok.(string)
		var v json.RawMessage
		if err != nil || dec.Decode(&v) != nil {
			return m, dup
		}
		if _, seen := m[name]; seen && dup == "" {
			dup = name
		}
		m[name] = v
	}
	return m, dup
}

// envelope is one message object, read no further than its top level.
type envelope struct {
	line []byte
	m    map[string]json.RawMessage
	dup  string
}

func (e envelope) has(name string) bool { _, ok := e.m[name]; return ok }

func (e envelope) methodIsString() bool {
	v := e.m["method"]
	return len(v) > 0 && v[0] == '"'
}

// isNotification: a method and no id. JSON-RPC never answers one, even a bad one.
func (e envelope) isNotification() bool { return e.methodIsString() && !e.has("id") }

// isResponse: no method, and a result or an error (the client answering the server).
func (e envelope) isResponse() bool {
	return !e.has("method") && (e.has("result") || e.has("error"))
}

// idKind is "string", "number", "null", "" (no id) or "bad" (object, array, boolean).
func (e envelope) idKind() string {
	v, ok := e.m["id"]
	switch {
	case !ok:
		return ""
	case v[0] == '"':
		return "string"
	case v[0] == '-' || '0' <= v[0] && v[0] <= '9':
		return "number"
	case v[0] == 'n':
		return "null"
	}
	return "bad"
}

// replyID is the id an error reply carries: the message's own when it is one a reply
// can carry unambiguously, else null (as JSON-RPC says).
func (e envelope) replyID() json.RawMessage {
	if k := e.idKind(); (k == "string" || k == "number") && e.dup != "id" {
		return e.m["id"]
	}
	return nullID
}

// problem is what makes the message invalid as JSON-RPC 2.0 for MCP, or "".
func (e envelope) problem() string {
	var version string
	switch {
	case e.dup != "":
		return fmt.Sprintf("member %q is given twice", e.dup)
	case json.Unmarshal(e.m["jsonrpc"], &version) != nil || version != "2.0":
		return `"jsonrpc" must be "2.0"`
	case e.idKind() == "bad":
		return `"id" must be a string or a number`
	case e.idKind() == "null" && e.has("method"):
		return `"id" must not be null (MCP)`
	case e.has("method") && !e.methodIsString():
		return `"method" must be a string`
	case !e.has("method") && !e.isResponse():
		return `the message is neither a request ("method") nor a response ("result" or "error")`
	}
	if p, ok := e.m["params"]; ok && p[0] != '{' && p[0] != '[' && p[0] != 'n' {
		return `"params" must be an object`
	}
	return ""
}

// request is a call from the client: refused here when invalid, else handed to the
// SDK under a stand-in id (the SDK would round the client's) recorded for the reply.
func (c *stdioConn) request(e envelope) verdict {
	id := e.replyID()
	if p := e.problem(); p != "" {
		return invalid(id, "%s", p)
	}
	msg, err := jsonrpc.DecodeMessage(e.line)
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok {
		return invalid(id, "%v", err)
	}
	standIn, ok := c.ids.add(e.m["id"])
	if !ok {
		return invalid(id, "id %s is already used by a request still in progress", e.m["id"])
	}
	req.ID = standIn
	return verdict{msg: req}
}

// notification: a bad one is dropped unanswered. A cancellation names the request by
// the client's id, which is turned into the SDK's stand-in; one for a request that is
// not in progress is dropped (MCP: ignore it).
func (c *stdioConn) notification(e envelope) verdict {
	if e.problem() != "" {
		return verdict{}
	}
	msg, err := jsonrpc.DecodeMessage(e.line)
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok {
		return verdict{}
	}
	if req.Method == "notifications/cancelled" {
		var params map[string]json.RawMessage
		if json.Unmarshal(req.Params, &params) != nil {
			return verdict{}
		}
		standIn, ok := c.ids.inProgress(params["requestId"])
		if !ok {
			return verdict{}
		}
		params["requestId"], _ = json.Marshal(standIn.Raw())
		if req.Params, err = json.Marshal(params); err != nil {
			return verdict{}
		}
	}
	return verdict{msg: req}
}

// response: the client answering a request of the server's, whose ids are int64. One
// with an id the server cannot have sent is dropped (and never answered); a malformed
// one with a usable id reaches the SDK as an error, so the call waiting for it fails
// instead of waiting on.
func (c *stdioConn) response(e envelope) verdict {
	n, err := strconv.ParseInt(string(e.m["id"]), 10, 64)
	if err != nil || e.dup == "id" {
		return verdict{}
	}
	id, _ := jsonrpc.MakeID(float64(n))
	msg, err := jsonrpc.DecodeMessage(e.line)
	if p := e.problem(); p != "" || err != nil {
		if p == "" {
			p = err.Error()
		}
		return verdict{msg: &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "copse-mcp could not read the client's response: " + p}}}
	}
	return verdict{msg: msg}
}

// idMap holds, for each client request the SDK is working on, the id the client sent
// (answered with) and a stand-in the SDK can hold exactly (an int64 of copse's count).
type idMap struct {
	mu   sync.Mutex
	next int64
	sent map[int64]sentID // stand-in → the client's id
	live map[string]int64 // idKey → stand-in
}

type sentID struct {
	raw json.RawMessage
	key string
}

// idKey identifies a client's id: a string by its value (however it was escaped), a
// number by its bytes.
func idKey(raw json.RawMessage) string {
	var s string
	switch {
	case len(raw) == 0:
	case raw[0] == '"' && json.Unmarshal(raw, &s) == nil:
		return "s" + s
	case raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9':
		return "n" + string(raw)
	}
	return ""
}

// add records a new request's id and returns its stand-in; false if a request with
// that id is still in progress (the SDK refused such a duplicate too: the replies could
// not be told apart).
func (m *idMap) add(raw json.RawMessage) (jsonrpc.ID, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := idKey(raw)
	if _, busy := m.live[key]; busy {
		return jsonrpc.ID{}, false
	}
	m.next++
	m.sent[m.next] = sentID{raw: bytes.Clone(raw), key: key}
	m.live[key] = m.next
	id, _ := jsonrpc.MakeID(float64(m.next))
	return id, true
}

// answered returns the client's id for a reply to stand-in id, and forgets it.
func (m *idMap) answered(id jsonrpc.ID) (json.RawMessage, bool) {
	n, ok := id.Raw().(int64)
	if !ok {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sent[n]
	if ok {
		delete(m.sent, n)
		delete(m.live, s.key)
	}
	return s.raw, ok
}

// inProgress is the stand-in of the request in progress with the client's id raw.
func (m *idMap) inProgress(raw json.RawMessage) (jsonrpc.ID, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.live[idKey(raw)]
	if !ok {
		return jsonrpc.ID{}, false
	}
	id, _ := jsonrpc.MakeID(float64(n))
	return id, true
}
