package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// The settings files of Claude Code, Codex (hooks.json) and Gemini CLI share one shape:
//
//	{"hooks": {"EVENT": [{"matcher": "…", "hooks": [{"type": "command", "command": "…"}]}]}}
//
// copse merges its own entries into it and takes them out again. Everything else — the
// user's hooks, keys copse does not know, the order of keys — stays as it was; only the
// indentation is rewritten (the file's own, else two spaces), and a file copse has
// nothing to change in is not written at all.

// member is one key of a JSON object with its value as written.
type member struct {
	key string
	val json.RawMessage
}

// decodeObject reads a JSON object keeping its keys' order (a duplicate key is kept twice,
// as written).
func decodeObject(b []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("text after the JSON object")
	}
	return out, nil
}

func encodeObject(ms []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshalPlain(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func encodeArray(vs []json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(v)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// marshalPlain is json.Marshal without HTML escaping (a command's & stays &).
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func find(ms []member, key string) int {
	for i, m := range ms {
		if m.key == key {
			return i
		}
	}
	return -1
}

// isCopseHook reports whether a hook command is one copse installed for agent: its
// program is a copse binary (any path: a copse since moved or reinstalled still owns it)
// and its arguments start with `hook AGENT`.
func isCopseHook(command, agent string) bool {
	w := shellWords(command)
	return len(w) >= 3 && strings.HasPrefix(filepath.Base(w[0]), "copse") && w[1] == "hook" && w[2] == agent
}

// shellWords splits a command line as a POSIX shell would for the plain and single- or
// double-quoted words copse writes (no expansions).
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// hookChange is what a merge did.
type hookChange struct {
	added, removed int
}

// mergeHooks puts copse's hooks for agent (event → command) into a settings file's
// content, or takes every one of them out (uninstall: want nil). An entry of copse's
// already there with the same command stays where it is; copse's entries with another
// command (an older copse, an event it no longer uses) go. The file's other content is
// kept; out is nil when nothing changes.
func mergeHooks(orig []byte, agent string, events []string, want map[string]string) (out []byte, ch hookChange, err error) {
	top := []member{}
	if len(bytes.TrimSpace(orig)) > 0 {
		if top, err = decodeObject(orig); err != nil {
			return nil, ch, err
		}
	}
	var hooks []member
	hi := find(top, "hooks")
	if hi >= 0 {
		if hooks, err = decodeObject(top[hi].val); err != nil {
			return nil, ch, fmt.Errorf(`"hooks" is not an object of events: %w`, err)
		}
	}
	present := map[string]bool{}
	for i := 0; i < len(hooks); i++ {
		kept, n, err := dropCopseEntries(hooks[i].val, agent, want[hooks[i].key], present, hooks[i].key)
		if err != nil {
			return nil, ch, fmt.Errorf(`"hooks"."%s": %w`, hooks[i].key, err)
		}
		if n == 0 {
			continue
		}
		ch.removed += n
		if kept == nil {
			hooks = append(hooks[:i], hooks[i+1:]...)
			i--
			continue
		}
		hooks[i].val = kept
	}
	for _, ev := range events {
		cmd, ok := want[ev]
		if !ok || present[ev] {
			continue
		}
		group, _ := marshalPlain(map[string]any{"hooks": []map[string]string{{"type": "command", "command": cmd}}})
		if i := find(hooks, ev); i >= 0 {
			var arr []json.RawMessage
			_ = json.Unmarshal(hooks[i].val, &arr) // an array: dropCopseEntries read it
			hooks[i].val = encodeArray(append(arr, group))
		} else {
			hooks = append(hooks, member{ev, encodeArray([]json.RawMessage{group})})
		}
		ch.added++
	}
	if ch.added == 0 && ch.removed == 0 {
		return nil, ch, nil
	}
	switch {
	case len(hooks) == 0 && hi >= 0:
		top = append(top[:hi], top[hi+1:]...)
	case hi >= 0:
		top[hi].val = encodeObject(hooks)
	default:
		top = append(top, member{"hooks", encodeObject(hooks)})
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact(encodeObject(top)), "", indentOf(orig)); err != nil {
		return nil, ch, err
	}
	b.WriteByte('\n')
	return b.Bytes(), ch, nil
}

func compact(b []byte) []byte {
	var c bytes.Buffer
	if json.Compact(&c, b) != nil {
		return b
	}
	return c.Bytes()
}

// dropCopseEntries takes copse's hooks for agent out of one event's list of groups,
// except one whose command is keep (marked present, once); a group left with no hook is
// dropped. kept is nil when the list is left empty; n counts the hooks taken out.
func dropCopseEntries(list json.RawMessage, agent, keep string, present map[string]bool, event string) (kept json.RawMessage, n int, err error) {
	var groups []json.RawMessage
	if err := json.Unmarshal(list, &groups); err != nil {
		return nil, 0, errors.New("not a list of hook groups")
	}
	var out []json.RawMessage
	for _, g := range groups {
		ms, err := decodeObject(g)
		if err != nil {
			return nil, 0, errors.New("a hook group is not an object")
		}
		hi := find(ms, "hooks")
		if hi < 0 {
			out = append(out, g)
			continue
		}
		var entries []json.RawMessage
		if err := json.Unmarshal(ms[hi].val, &entries); err != nil {
			return nil, 0, errors.New(`a group's "hooks" is not a list`)
		}
		var left []json.RawMessage
		for _, e := range entries {
			var h struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(e, &h) != nil || !isCopseHook(h.Command, agent) {
				left = append(left, e)
				continue
			}
			if keep != "" && h.Command == keep && !present[event] {
				present[event] = true
				left = append(left, e)
				continue
			}
			n++
		}
		switch {
		case len(left) == len(entries):
			out = append(out, g)
		case len(left) > 0:
			ms[hi].val = encodeArray(left)
			out = append(out, encodeObject(ms))
		}
	}
	if n == 0 {
		return list, 0, nil
	}
	if len(out) == 0 {
		return nil, n, nil
	}
	return encodeArray(out), n, nil
}

// indentOf is the indentation of the file's first indented line (two spaces when none).
func indentOf(b []byte) string {
	for _, line := range bytes.Split(b, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if n := len(line) - len(trimmed); n > 0 && len(trimmed) > 0 {
			return string(line[:n])
		}
	}
	return "  "
}
