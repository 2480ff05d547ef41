package core

import "strings"

// SessionID names who holds a claim: an agent run, a shell, a Herdr workspace. It is
// written into a git worktree lock reason ("copse claim: session=<id> since=<time>"), so
// it is one word of printable ASCII that reads back unambiguously.
type SessionID struct{ s string }

func (s SessionID) String() string { return s.s }

// IsZero reports an absent session.
func (s SessionID) IsZero() bool { return s.s == "" }

const maxSession = 128

// ParseSession accepts 1-128 characters from [A-Za-z0-9._:@/+=-], not starting with '-'.
// The set keeps the id one word inside a lock reason and safe in every display.
func ParseSession(field, raw string) (SessionID, error) {
	if err := CheckText(field, raw, maxSession); err != nil {
		return SessionID{}, err
	}
	for _, r := range raw {
		if !sessionRune(r) {
			return SessionID{}, Usage(CodeBadSession, field, "use letters, digits and . _ : @ / + = - only (e.g. agent-7 or herdr:wA)",
				"%s %s contains %s, which a session id may not", field, Quote(raw), Quote(string(r)))
		}
	}
	return SessionID{raw}, nil
}

func sessionRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:@/+=-", r)
}

// ResolveSession finds the session of a request: the request's own field (--session),
// else COPSE_SESSION, else the Herdr workspace this process runs in ("herdr:<id>").
// ok is false when none is known; a malformed value is a usage error naming its source.
func ResolveSession(explicit *string, getenv func(string) string) (SessionID, bool, error) {
	if explicit != nil {
		id, err := ParseSession("session", *explicit)
		return id, err == nil, err
	}
	if v := getenv("COPSE_SESSION"); v != "" {
		id, err := ParseSession("COPSE_SESSION", v)
		return id, err == nil, err
	}
	if v := getenv("HERDR_WORKSPACE_ID"); v != "" && getenv("HERDR_ENV") == "1" {
		if ws, err := ParseWorkspaceID(v); err == nil {
			return SessionID{"herdr:" + ws.String()}, true, nil
		}
	}
	return SessionID{}, false, nil
}

// RequireSession is resolveSession for requests that cannot run without one.
func RequireSession(explicit *string, getenv func(string) string, what string) (SessionID, error) {
	id, ok, err := ResolveSession(explicit, getenv)
	if err != nil {
		return SessionID{}, err
	}
	if !ok {
		return SessionID{}, Usage(CodeSessionRequired, "session",
			"pass --session ID (request field \"session\"), or set COPSE_SESSION, or run inside a Herdr workspace",
			"%s needs a session id and none was given", what)
	}
	return id, nil
}
