package reqstart

import (
	"testing"
	"time"
)

func TestWaited(t *testing.T) {
	now := time.Unix(1765000000, 500_000_000)
	for _, tc := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"t=1765000000.250", 250 * time.Millisecond, true},
		{"t=1765000000.5", 0, true},
		{"t=1765000000", 500 * time.Millisecond, true},
		{"t=1764999990.000", 10*time.Second + 500*time.Millisecond, true},
		{"t=1765000000.000000001", 499_999_999 * time.Nanosecond, true},
		{"t=1765000000.900", 0, true},         // the proxy's clock a little ahead
		{"t=1765000002.000", 0, false},        // too far ahead
		{"t=1764999900.000", 0, false},        // older than MaxAge
		{"t=1764999940.500", MaxAge, true},    // MaxAge exactly
		{"", 0, false},                        // none
		{"1765000000.250", 0, false},          // no t=
		{"t=", 0, false},                      // no number
		{"t=.250", 0, false},                  // no seconds
		{"t=1765000000.", 0, false},           // a dot with nothing after it
		{"t=1765000000.2500000000", 0, false}, // ten decimals
		{"t=-1765000000", 0, false},           // a sign
		{"t=+1765000000", 0, false},           // a sign
		{"t=1765000000.25x", 0, false},        // not a number
		{"t=1765000000 ", 0, false},           // trailing space
		{"t=99999999999999999999", 0, false},  // beyond int64
		{"t=1765000000.250, t=1", 0, false},   // two values joined
		{"T=1765000000.250", 0, false},        // the prefix is lower case
		{"t=1765000000250", 0, false},         // milliseconds, not seconds
	} {
		got, ok := Waited(tc.v, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Waited(%q) = %v, %v; want %v, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Unix(1765000000, 7_900_000), "t=1765000000.007"},
		{time.Unix(1765000000, 0), "t=1765000000.000"},
		{time.Unix(1765000000, 999_999_999), "t=1765000000.999"},
	} {
		if got := Format(tc.t); got != tc.want {
			t.Errorf("Format(%v) = %q, want %q", tc.t, got, tc.want)
		}
		if d, ok := Waited(tc.want, tc.t); !ok || d < 0 || d >= time.Millisecond {
			t.Errorf("Waited(Format(t), t) = %v, %v", d, ok)
		}
	}
}

func FuzzWaited(f *testing.F) {
	for _, s := range []string{"t=1765000000.250", "t=1765000000", "", "t=", "t=1.2.3", "t=0000000000000.0"} {
		f.Add(s)
	}
	now := time.Unix(1765000000, 500_000_000)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := Waited(v, now)
		if !ok && d != 0 {
			t.Fatalf("Waited(%q) = %v without a believable stamp", v, d)
		}
		if d < 0 || d > MaxAge {
			t.Fatalf("Waited(%q) = %v, outside [0, MaxAge]", v, d)
		}
	})
}
