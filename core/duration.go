package core

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Every duration copse reads (flags, request fields, git config) goes through parseSpan, so
// each has an upper bound and none can wrap: a day count multiplied into nanoseconds
// overflows int64 past about 106751 days, and a wrapped value is small, so a huge
// copse.pruneAfter used to prune a worktree touched two hours ago and a huge
// copse.keepRemoved dropped the only restore record.

// Never is the duration of a setting that says "never": a retention that keeps records
// for good, an idle threshold no worktree reaches. It is the largest time.Duration, so
// "age <= Never" holds for every age time.Sub can return.
const Never time.Duration = math.MaxInt64

const (
	day = 24 * time.Hour
	// maxAge bounds ages and retentions (--older-than, copse.pruneAfter, copse.keepRemoved,
	// copse.keepLands): 100 years is past any real use and far from the int64 limit.
	maxAge = 36500 * day
	// maxTimeout bounds waits (copse.testTimeout, copse.setupTimeout, copse.lockTimeout): a
	// gate, a setup step or a lock wait longer than a day is a mistake, not a plan.
	maxTimeout = day
)

// spanRule says which forms a duration may take besides a Go duration, whole days ("3d")
// and whole weeks ("2w").
type spanRule struct {
	max     time.Duration
	never   bool // the word "never" is accepted and means Never
	seconds bool // a bare number is seconds (timeouts: "90")
	zero    bool // 0 is allowed (an idle threshold of 0 prunes every idle worktree)
}

var (
	IdleRule    = spanRule{max: maxAge, zero: true, never: true}
	keepRule    = spanRule{max: maxAge, never: true}
	TimeoutRule = spanRule{max: maxTimeout, seconds: true}
)

// errSpanTooLong is parseSpan's refusal of a value over the rule's maximum.
var errSpanTooLong = errors.New("longer than the largest allowed")

// parseSpan reads raw by rule. It never multiplies past the maximum: day and week counts are
// compared with max before they become nanoseconds, and time.ParseDuration refuses what
// does not fit in int64 itself.
func ParseSpan(raw string, r spanRule) (time.Duration, error) {
	v := strings.TrimSpace(raw)
	if r.never && strings.EqualFold(v, "never") {
		return Never, nil
	}
	var d time.Duration
	unitCount := func(n string, unit time.Duration) error {
		c, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(n, "-") {
				return errSpanTooLong
			}
			return errors.New("not a duration")
		}
		if c > int64(r.max/unit) {
			return errSpanTooLong
		}
		d = time.Duration(c) * unit
		return nil
	}
	var err error
	if n, ok := strings.CutSuffix(v, "d"); ok {
		err = unitCount(n, day)
	} else if n, ok := strings.CutSuffix(v, "w"); ok {
		err = unitCount(n, 7*day)
	} else if _, nerr := strconv.ParseInt(v, 10, 64); (nerr == nil || errors.Is(nerr, strconv.ErrRange)) && r.seconds {
		err = unitCount(v, time.Second)
	} else if d, err = time.ParseDuration(v); err != nil {
		// ParseDuration says "invalid duration" for a value past int64 too: tell them apart,
		// so the message names the largest allowed instead of calling 9999999h no duration.
		if huge, _ := strings.CutPrefix(v, "+"); huge != "" && !strings.HasPrefix(huge, "-") && bigDuration(huge) {
			err = errSpanTooLong
		} else {
			err = errors.New("not a duration")
		}
	}
	if err != nil {
		return 0, err
	}
	switch {
	case d < 0, d == 0 && !r.zero:
		return 0, errors.New("not a positive duration")
	case d > r.max:
		return 0, errSpanTooLong
	}
	return d, nil
}

// bigDuration reports a Go duration that is well formed but too large for int64: the same
// text with every number shrunk to 1 parses.
func bigDuration(v string) bool {
	var b strings.Builder
	inNum := false
	for _, c := range v {
		if c >= '0' && c <= '9' || c == '.' {
			if !inNum {
				b.WriteByte('1')
			}
			inNum = true
			continue
		}
		inNum = false
		b.WriteRune(c)
	}
	_, err := time.ParseDuration(b.String())
	return err == nil
}

// spanError is the usage error for a value parseSpan refused: a value over the maximum is
// duration_too_long and names the largest allowed, anything else is code (bad_duration for
// a flag, bad_config for git config).
func SpanError(code, field, raw string, r spanRule, err error, hint string) *Error {
	if errors.Is(err, errSpanTooLong) {
		h := fmt.Sprintf("use at most %s", FormatSpan(r.max))
		if r.never {
			h += `, or "never"`
		}
		if hint != "" {
			h += "; " + hint
		}
		return Usage(CodeDurationTooLong, field, h, "%s %s is longer than the largest allowed, %s; nothing changed",
			spanField(field), Quote(raw), FormatSpan(r.max))
	}
	return Usage(code, field, hint, "%s %s is %v; nothing changed", spanField(field), Quote(raw), err)
}

// spanField names where a value came from: "git config copse.keepRemoved" for a setting,
// the flag or request field as it is otherwise.
func spanField(field string) string {
	if strings.HasPrefix(field, "copse.") {
		return "git config " + field
	}
	return field
}

// FormatSpan writes d as people write it: "never", "14d" (whole days from a week up),
// "72h", "90m", "45s", else Go's form ("1.5s").
func FormatSpan(d time.Duration) string {
	switch {
	case d == Never:
		return "never"
	case d >= 7*day && d%day == 0:
		return strconv.FormatInt(int64(d/day), 10) + "d"
	case d > 0 && d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d > 0 && d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}
