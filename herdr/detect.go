package herdr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// ErrNotInHerdr: HERDR_ENV is not "1", so copse is not running in a Herdr pane and uses
// the git backend.
var ErrNotInHerdr = errors.New("not in herdr (HERDR_ENV is not 1)")

// ErrVersionTooOld is wrapped by Detect's error when Herdr is older than MinVersion.
var ErrVersionTooOld = errors.New("herdr is too old")

// Detection is a usable Herdr: its binary and version.
type Detection struct {
	Bin     string
	Version Version
}

// detectTTL is how long a detection is believed. It lives in memory only: a file would
// outlive an upgrade or a different pane's binary.
const detectTTL = 10 * time.Minute

// versionTimeout bounds `herdr --version`, which needs no server and answers at once.
var versionTimeout = 5 * time.Second

// now is the clock of the cache; tests replace it.
var now = time.Now

type detectEntry struct {
	det Detection
	err error
	at  time.Time
}

var detectCache = struct {
	sync.Mutex
	m map[string]detectEntry
}{m: map[string]detectEntry{}}

// Detect finds the Herdr copse should drive. HERDR_ENV must be "1" (else ErrNotInHerdr);
// the binary is HERDR_BIN_PATH (set by Herdr in every pane), else `herdr` on PATH; its
// `--version` must be at least MinVersion. getenv is os.Getenv when nil.
//
// The answer of a binary that ran (accepted, too old, or unparseable version) is cached
// per binary path for ten minutes; failures to run it at all are not, so a transient
// failure is retried on the next call.
func Detect(ctx context.Context, getenv func(string) string) (Detection, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv("HERDR_ENV") != "1" {
		return Detection{}, ErrNotInHerdr
	}
	bin, err := findBinary(getenv)
	if err != nil {
		return Detection{}, err
	}
	detectCache.Lock()
	e, ok := detectCache.m[bin]
	detectCache.Unlock()
	if ok && now().Sub(e.at) < detectTTL {
		return e.det, e.err
	}
	det, err, definite := probe(ctx, bin)
	if definite {
		detectCache.Lock()
		detectCache.m[bin] = detectEntry{det: det, err: err, at: now()}
		detectCache.Unlock()
	}
	return det, err
}

func findBinary(getenv func(string) string) (string, error) {
	if bin := getenv("HERDR_BIN_PATH"); bin != "" {
		// Herdr sets an absolute path; a relative one would name a file in whatever
		// directory copse happens to run in.
		if !filepath.IsAbs(bin) {
			return "", fmt.Errorf("HERDR_BIN_PATH %s is not an absolute path", quote(bin, 200))
		}
		return bin, nil
	}
	bin, err := exec.LookPath("herdr")
	if err != nil {
		return "", fmt.Errorf("HERDR_ENV=1 but HERDR_BIN_PATH is unset and herdr is not on PATH: %w", err)
	}
	return bin, nil
}

// probe runs `<bin> --version`. definite reports an answer worth caching: the binary ran
// and said something.
func probe(ctx context.Context, bin string) (det Detection, err error, definite bool) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	res := runProcess(ctx, bin, []string{"--version"}, neutralDir, childEnv(nil))
	switch {
	case res.StartErr != nil:
		return det, fmt.Errorf("cannot run %s --version: %w", bin, res.StartErr), false
	case res.WaitErr != nil && ctx.Err() != nil:
		return det, fmt.Errorf("%s --version did not answer within %s: %w", bin, versionTimeout, ctx.Err()), false
	case res.WaitErr != nil:
		return det, fmt.Errorf("%s --version failed: %v: %s", bin, res.WaitErr, quote(string(res.Stderr), 200)), false
	}
	v, err := ParseVersion(string(res.Stdout))
	if err != nil {
		return det, err, true
	}
	if v.Less(MinVersion) {
		return det, fmt.Errorf("%w: found herdr %s at %s, copse needs herdr %s or newer", ErrVersionTooOld, v, bin, MinVersion), true
	}
	return Detection{Bin: bin, Version: v}, nil, true
}
