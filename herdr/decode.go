package herdr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

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
