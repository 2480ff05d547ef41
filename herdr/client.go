package herdr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// List runs `herdr worktree list --cwd <cwd>`; the reply must be worktree_list.
func (c *Client) List(ctx context.Context, cwd string) (ListResult, error) {
	var r ListResult
	cmd, err := ListCmd(cwd)
	if err != nil {
		return r, err
	}
	err = c.call(ctx, cmd, TypeList, &r, func() string {
		if r.Worktrees == nil {
			return "no worktrees array"
		}
		for _, w := range r.Worktrees {
			if w.Path == "" {
				return "a worktree without a path"
			}
		}
		return ""
	})
	return r, err
}

// Create runs `herdr worktree create`; the reply must be worktree_created.
func (c *Client) Create(ctx context.Context, a CreateArgs) (OpenResult, error) {
	cmd, err := CreateCmd(a)
	if err != nil {
		return OpenResult{}, err
	}
	return c.openLike(ctx, cmd, TypeCreated)
}

// Open runs `herdr worktree open`; the reply must be worktree_opened.
func (c *Client) Open(ctx context.Context, a OpenArgs) (OpenResult, error) {
	cmd, err := OpenCmd(a)
	if err != nil {
		return OpenResult{}, err
	}
	return c.openLike(ctx, cmd, TypeOpened)
}

func (c *Client) openLike(ctx context.Context, cmd Cmd, want string) (OpenResult, error) {
	var r OpenResult
	err := c.call(ctx, cmd, want, &r, func() string {
		switch {
		case r.Workspace.WorkspaceID == "":
			return "no workspace.workspace_id"
		case r.Worktree.Path == "":
			return "no worktree.path"
		}
		return ""
	})
	return r, err
}

// Remove runs `herdr worktree remove --workspace <ws> [--force]`; the reply must be
// worktree_removed, about that workspace.
func (c *Client) Remove(ctx context.Context, ws string, force bool) (RemoveResult, error) {
	var r RemoveResult
	cmd, err := RemoveCmd(ws, force)
	if err != nil {
		return r, err
	}
	err = c.call(ctx, cmd, TypeRemoved, &r, func() string {
		switch {
		case r.Path == "":
			return "no path"
		case r.WorkspaceID != "" && r.WorkspaceID != ws:
			return fmt.Sprintf("it names workspace %s, not %s", quote(r.WorkspaceID, 40), ws)
		}
		return ""
	})
	return r, err
}

// call runs cmd and decodes its result into v; check names a missing required field.
func (c *Client) call(ctx context.Context, cmd Cmd, want string, v any, check func() string) error {
	out, err := c.Run(ctx, cmd)
	if err != nil {
		return err
	}
	if err := decodeResult(out, want, v); err != nil {
		return &Error{Kind: ErrWrongReply, Message: err.Error(), ExitCode: 0, Argv: c.argv(cmd), Started: true, Err: err}
	}
	if why := check(); why != "" {
		return &Error{Kind: ErrWrongReply, Message: "the " + want + " reply has " + why, ExitCode: 0, Argv: c.argv(cmd), Started: true}
	}
	return nil
}

func (c *Client) argv(cmd Cmd) []string {
	a := cmd.Argv()
	a[0] = c.Bin
	return a
}

// decodeResult reads a success envelope {"id":…,"result":{"type":…,…}}: exactly one JSON
// object, whose result has type want, decoded leniently into v.
func decodeResult(out []byte, want string, v any) error {
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *errorBody      `json:"error"`
	}
	if err := decodeOne(out, &env); err != nil {
		return fmt.Errorf("not a JSON reply (%v): %s", err, quote(firstLine(string(out)), 120))
	}
	if env.Error != nil {
		return fmt.Errorf("exit 0 with an error envelope: %s: %s", env.Error.Code, env.Error.Message)
	}
	if len(env.Result) == 0 || string(env.Result) == "null" {
		return errors.New("the reply has no result")
	}
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(env.Result, &head); err != nil {
		return fmt.Errorf("the result is not an object with a string type: %v", err)
	}
	if head.Type == nil {
		return fmt.Errorf("the result has no type, want %s", want)
	}
	if *head.Type != want {
		return fmt.Errorf("the result type is %s, want %s", quote(*head.Type, 60), want)
	}
	if err := json.Unmarshal(env.Result, v); err != nil {
		return fmt.Errorf("the %s result does not decode: %v", want, err)
	}
	return nil
}

// decodeOne decodes exactly one JSON value from b; trailing data is an error, because a
// second object would mean the output is not the one reply it should be.
func decodeOne(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the reply")
	}
	return nil
}

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// parseErrorEnvelope finds {"error":{"code":…,"message":…}} in herdr's stderr. The whole
// text is tried first, then each line from the last, so a warning printed before the
// envelope does not hide it. Non-JSON text is not an envelope (ok false).
func parseErrorEnvelope(b []byte) (code, msg string, ok bool) {
	try := func(s string) bool {
		var env struct {
			Error *errorBody `json:"error"`
		}
		if decodeOne([]byte(s), &env) != nil || env.Error == nil || env.Error.Code == "" {
			return false
		}
		code, msg = env.Error.Code, env.Error.Message
		return true
	}
	s := strings.TrimSpace(string(b))
	if !strings.Contains(s, "{") {
		return "", "", false
	}
	if try(s) {
		return code, msg, true
	}
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, "{") && try(l) {
			return code, msg, true
		}
	}
	return "", "", false
}
