package herdr

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/herdr/herdrdouble"
)

// These tests set process environment (the --version child inherits it) and the package
// clock, so none of them runs in parallel.

// envOf is a getenv over a fixed map.
func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// resetDetectCache forgets every detection.
func resetDetectCache() {
	detectCache.Lock()
	detectCache.m = map[string]detectEntry{}
	detectCache.Unlock()
}

// fakeClock replaces the cache clock for the test and returns a way to move it.
func fakeClock(t *testing.T) func(time.Duration) {
	t.Helper()
	cur := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	now = func() time.Time { return cur }
	resetDetectCache()
	t.Cleanup(func() { now = time.Now; resetDetectCache() })
	return func(d time.Duration) { cur = cur.Add(d) }
}

// invocations counts the lines the double logged.
func invocations(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func TestDetectNotInHerdr(t *testing.T) {
	fakeClock(t)
	bin := herdrdouble.Build(t)
	for _, v := range []string{"", "0", "true", " 1", "yes"} {
		_, err := Detect(context.Background(), envOf(map[string]string{"HERDR_ENV": v, "HERDR_BIN_PATH": bin}))
		if !errors.Is(err, ErrNotInHerdr) {
			t.Errorf("HERDR_ENV=%q: err = %v, want ErrNotInHerdr", v, err)
		}
	}
	if !strings.Contains(ErrNotInHerdr.Error(), "not in herdr") {
		t.Errorf("ErrNotInHerdr = %q", ErrNotInHerdr)
	}
}

func TestDetectVersionGate(t *testing.T) {
	bin := herdrdouble.Build(t)
	for _, c := range []struct {
		version string
		ok      bool
	}{
		{"0.7.0", false}, {"0.8.1", false}, {"0.6.2", false},
		{"0.8.2", true}, {"0.9.3", true}, {"0.8.2-preview.3", true}, {"1.0.0", true},
	} {
		t.Run(c.version, func(t *testing.T) {
			fakeClock(t)
			t.Setenv("FAKE_HERDR_VERSION", c.version)
			det, err := Detect(context.Background(), envOf(map[string]string{"HERDR_ENV": "1", "HERDR_BIN_PATH": bin}))
			if c.ok {
				if err != nil {
					t.Fatal(err)
				}
				if det.Bin != bin || det.Version.Raw != c.version {
					t.Fatalf("Detect = %+v", det)
				}
				return
			}
			if !errors.Is(err, ErrVersionTooOld) {
				t.Fatalf("err = %v, want ErrVersionTooOld", err)
			}
			for _, want := range []string{"0.8.2", c.version} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %s", err, want)
				}
			}
		})
	}
}

func TestDetectCacheTenMinutes(t *testing.T) {
	advance := fakeClock(t)
	bin := herdrdouble.Build(t)
	log := filepath.Join(t.TempDir(), "invocations")
	t.Setenv("FAKE_HERDR_LOG", log)
	t.Setenv("FAKE_HERDR_VERSION", "0.9.3")
	env := envOf(map[string]string{"HERDR_ENV": "1", "HERDR_BIN_PATH": bin})
	detect := func() Detection {
		t.Helper()
		det, err := Detect(context.Background(), env)
		if err != nil {
			t.Fatal(err)
		}
		return det
	}
	first := detect()
	if n := invocations(t, log); n != 1 {
		t.Fatalf("first Detect ran herdr %d times, want 1", n)
	}
	advance(9*time.Minute + 59*time.Second)
	if second := detect(); second != first {
		t.Fatalf("cached %+v, then %+v", first, second)
	}
	if n := invocations(t, log); n != 1 {
		t.Fatalf("Detect within ten minutes ran herdr again (%d runs)", n)
	}
	advance(time.Second)
	detect()
	if n := invocations(t, log); n != 2 {
		t.Fatalf("Detect after ten minutes ran herdr %d times in all, want 2", n)
	}
}

// A refusal is an answer too: it is cached like an acceptance.
func TestDetectCachesRefusal(t *testing.T) {
	fakeClock(t)
	bin := herdrdouble.Build(t)
	log := filepath.Join(t.TempDir(), "invocations")
	t.Setenv("FAKE_HERDR_LOG", log)
	t.Setenv("FAKE_HERDR_VERSION", "0.7.0")
	env := envOf(map[string]string{"HERDR_ENV": "1", "HERDR_BIN_PATH": bin})
	for i := 0; i < 2; i++ {
		if _, err := Detect(context.Background(), env); !errors.Is(err, ErrVersionTooOld) {
			t.Fatalf("err = %v", err)
		}
	}
	if n := invocations(t, log); n != 1 {
		t.Fatalf("herdr ran %d times, want 1", n)
	}
}

// A binary that cannot run is not cached: the next call tries again.
func TestDetectFailureNotCached(t *testing.T) {
	fakeClock(t)
	missing := filepath.Join(t.TempDir(), "herdr")
	env := envOf(map[string]string{"HERDR_ENV": "1", "HERDR_BIN_PATH": missing})
	if _, err := Detect(context.Background(), env); err == nil {
		t.Fatal("Detect of a missing binary succeeded")
	}
	if err := os.Symlink(herdrdouble.Build(t), missing); err != nil {
		t.Fatal(err)
	}
	if _, err := Detect(context.Background(), env); err != nil {
		t.Fatalf("after the binary appeared: %v", err)
	}
}

func TestDetectFindsHerdrOnPath(t *testing.T) {
	fakeClock(t)
	bin := herdrdouble.Build(t)
	t.Setenv("PATH", filepath.Dir(bin))
	det, err := Detect(context.Background(), envOf(map[string]string{"HERDR_ENV": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	if det.Bin != bin {
		t.Fatalf("Bin = %q, want %q", det.Bin, bin)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Detect(context.Background(), envOf(map[string]string{"HERDR_ENV": "1"})); err == nil ||
		!strings.Contains(err.Error(), "not on PATH") {
		t.Fatalf("err = %v, want herdr not on PATH", err)
	}
}

func TestDetectRejectsRelativeBinPath(t *testing.T) {
	fakeClock(t)
	_, err := Detect(context.Background(), envOf(map[string]string{"HERDR_ENV": "1", "HERDR_BIN_PATH": "bin/herdr"}))
	if err == nil || !strings.Contains(err.Error(), "not an absolute path") {
		t.Fatalf("err = %v", err)
	}
}

func TestDetectBadVersionOutput(t *testing.T) {
	fakeClock(t)
	t.Setenv("FAKE_HERDR_VERSION", "unknown")
	_, err := Detect(context.Background(), envOf(map[string]string{"HERDR_ENV": "1", "HERDR_BIN_PATH": herdrdouble.Build(t)}))
	if err == nil || !strings.Contains(err.Error(), "herdr X.Y.Z") {
		t.Fatalf("err = %v", err)
	}
}

func TestDetectTimeout(t *testing.T) {
	fakeClock(t)
	old := versionTimeout
	versionTimeout = 200 * time.Millisecond
	t.Cleanup(func() { versionTimeout = old })
	t.Setenv("FAKE_HERDR_DELAY", "5s")
	start := time.Now()
	_, err := Detect(context.Background(), envOf(map[string]string{"HERDR_ENV": "1", "HERDR_BIN_PATH": herdrdouble.Build(t)}))
	if err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Detect took %s despite the timeout", d)
	}
}
