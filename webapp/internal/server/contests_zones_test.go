package server

import (
	"context"
	"testing"
	"time"
)

// TestContestTimeZone: a contest's zone is set and validated like any
// field; times are taken and given as RFC 3339 with offsets, the API's
// in the contest's zone; the stored instants do not move when only the
// zone changes.
func TestContestTimeZone(t *testing.T) {
	se := newStaffEnv(t, nil)
	body := map[string]any{"slug": "cup", "title": "Cup", "time_zone": "Europe/Berlin",
		"start_at": "2026-03-01T10:00:00+01:00", "end_at": "2026-03-01T15:00:00+01:00"}
	if r := se.setter.call("POST", "/api/contests", body); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	c, err := se.st.ContestBySlug(context.Background(), "cup")
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC); !c.StartAt.Equal(want) || c.TimeZone != "Europe/Berlin" {
		t.Fatalf("stored start %v zone %q, want %v Europe/Berlin", c.StartAt, c.TimeZone, want)
	}
	get := func(who *client) map[string]any {
		t.Helper()
		r := who.do("GET", "/api/contests/cup", nil)
		if r.status != 200 {
			t.Fatalf("get: %d %s", r.status, r.raw)
		}
		if m, ok := r.body["contest"].(map[string]any); ok {
			return m
		}
		return r.body
	}
	g := get(se.setter)
	if g["time_zone"] != "Europe/Berlin" || g["start_at"] != "2026-03-01T10:00:00+01:00" || g["end_at"] != "2026-03-01T15:00:00+01:00" {
		t.Fatalf("contest as given: %v", g)
	}
	// Any offset is taken; summer time is the zone's own business.
	if r := se.setter.call("PUT", "/api/contests/cup", map[string]any{"start_at": "2026-07-01T08:00:00Z", "end_at": "2026-07-01T10:30:00.5-02:00"}); r.status != 200 {
		t.Fatalf("update: %d %s", r.status, r.raw)
	}
	g = get(se.student)
	if g["start_at"] != "2026-07-01T10:00:00+02:00" || g["end_at"] != "2026-07-01T14:30:00.5+02:00" {
		t.Fatalf("summer times: %v", g)
	}
	// Changing only the zone keeps the instants.
	if r := se.setter.call("PUT", "/api/contests/cup", map[string]any{"time_zone": "Asia/Shanghai"}); r.status != 200 {
		t.Fatalf("zone: %d %s", r.status, r.raw)
	}
	g = get(se.student)
	if g["time_zone"] != "Asia/Shanghai" || g["start_at"] != "2026-07-01T16:00:00+08:00" {
		t.Fatalf("in Shanghai: %v", g)
	}
	for _, tc := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"unknown zone", map[string]any{"time_zone": "Mars/Olympus"}, "time_zone"},
		{"the server's local zone", map[string]any{"time_zone": "Local"}, "time_zone"},
		{"an abbreviation", map[string]any{"time_zone": "CET"}, "time_zone"},
		{"a path", map[string]any{"time_zone": "../../etc/passwd"}, "time_zone"},
		{"zone of the wrong type", map[string]any{"time_zone": 1}, "time_zone"},
		{"a time without an offset", map[string]any{"start_at": "2026-07-01T08:00:00"}, "start_at"},
		{"a time in US order", map[string]any{"end_at": "07/01/2026 10:00"}, "end_at"},
		{"a date only", map[string]any{"start_at": "2026-07-01"}, "start_at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, se.setter.call("PUT", "/api/contests/cup", tc.body), 400, CodeValidation, tc.field)
		})
	}
	// Contests made without a zone are in UTC.
	if r := se.setter.call("POST", "/api/contests", map[string]any{"slug": "utc", "title": "UTC",
		"start_at": "2026-03-01T10:00:00+01:00", "end_at": "2026-03-01T15:00:00+01:00"}); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	r := se.student.do("GET", "/api/contests/utc", nil)
	m, _ := r.body["contest"].(map[string]any)
	if m == nil {
		m = r.body
	}
	if m["time_zone"] != "UTC" || m["start_at"] != "2026-03-01T09:00:00Z" {
		t.Fatalf("a contest without a zone: %s", r.raw)
	}
}
