package core

import (
	"errors"
	"testing"
	"time"
)

func TestParseSpanBounds(t *testing.T) {
	t.Parallel()
	ok := []struct {
		in   string
		rule spanRule
		want time.Duration
	}{
		{"3d", IdleRule, 3 * day},
		{"0s", IdleRule, 0},
		{"2w", keepRule, 14 * day},
		{"36500d", keepRule, maxAge},
		{"never", keepRule, Never},
		{"Never", IdleRule, Never},
		{"90", TimeoutRule, 90 * time.Second},
		{"24h", TimeoutRule, day},
		{"1h30m", TimeoutRule, 90 * time.Minute},
	}
	for _, c := range ok {
		if got, err := ParseSpan(c.in, c.rule); err != nil || got != c.want {
			t.Errorf("parseSpan(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	tooLong := []struct {
		in   string
		rule spanRule
	}{
		{"616385997d", IdleRule}, // wraps to half a second when multiplied unchecked
		{"36501d", keepRule},
		{"5215w", keepRule},
		{"99999999999999999999d", keepRule},
		{"99999999999h", IdleRule},
		{"25h", TimeoutRule},
		{"86401", TimeoutRule},
		{"99999999999999999999", TimeoutRule},
	}
	for _, c := range tooLong {
		if d, err := ParseSpan(c.in, c.rule); !errors.Is(err, errSpanTooLong) {
			t.Errorf("parseSpan(%q) = %v, %v; want refused as too long", c.in, d, err)
		}
	}
	for _, c := range []struct {
		in   string
		rule spanRule
	}{{"never", TimeoutRule}, {"0", TimeoutRule}, {"0d", keepRule}, {"-1d", IdleRule}, {"1.5d", keepRule}, {"5", IdleRule}, {"soon", keepRule}} {
		if d, err := ParseSpan(c.in, c.rule); err == nil || errors.Is(err, errSpanTooLong) {
			t.Errorf("parseSpan(%q) = %v, %v; want refused as not a duration", c.in, d, err)
		}
	}
}

func TestFormatSpan(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		72 * time.Hour: "72h", 14 * day: "14d", maxAge: "36500d", 90 * time.Minute: "90m",
		30 * time.Second: "30s", 0: "0s", 1500 * time.Millisecond: "1.5s", Never: "never",
	} {
		if got := FormatSpan(d); got != want {
			t.Errorf("FormatSpan(%v) = %q; want %q", d, got, want)
		}
	}
}
