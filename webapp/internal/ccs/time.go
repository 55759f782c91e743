package ccs

import (
	"fmt"
	"regexp"
	"time"
)

// Version is the Contest API version implemented.
const Version = "2023-06"

// VersionURL is its specification.
const VersionURL = "https://ccs-specs.icpc.io/2023-06/contest_api"

// AbsTime formats t as a CLICS TIME (ABSTIME): ISO 8601 with milliseconds
// and the UTC offset, e.g. 2014-06-25T10:00:00.000+00:00.
func AbsTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000-07:00") }

// AbsTimePtr is AbsTime, nil for the zero time.
func AbsTimePtr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := AbsTime(t)
	return &s
}

// RelTime formats d as a CLICS RELTIME: (-)h:mm:ss.uuu, hours unbounded,
// truncated to the millisecond.
func RelTime(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	ms := int64(d / time.Millisecond)
	return fmt.Sprintf("%s%d:%02d:%02d.%03d", sign, ms/3600000, ms/60000%60, ms/1000%60, ms%1000)
}

// The patterns of CLICS common.json (2023-06), for tests and clients.
var (
	AbsTimePattern    = regexp.MustCompile(`^[12][0-9]{3}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-6][0-9]:[0-6][0-9](\.[0-9]{3})?([+-][0-1][0-9](:[0-5][0-9])?|Z)$`)
	RelTimePattern    = regexp.MustCompile(`^-?([1-9][0-9]*)?[0-9]:[0-5][0-9]:[0-5][0-9](\.[0-9]{3})?$`)
	IdentifierPattern = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_.-]{0,34}[A-Za-z0-9_-]|)$`)
)
