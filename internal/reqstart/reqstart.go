package reqstart

import (
	"strconv"
	"strings"
	"time"
)

// Header names the header. nginx sets it on every request it proxies
// (nginx/nginx.conf.tmpl), replacing any a client sent.
const Header = "X-Request-Start"

// Bounds of a believable wait: a stamp further ahead of this machine's
// clock than MaxAhead, or older than MaxAge, is a clock set wrong (or a
// header from elsewhere), not a wait.
const (
	MaxAhead = time.Second
	MaxAge   = time.Minute
)

// Format is the header's value for t, as nginx writes it: "t=" and Unix
// seconds with three decimals.
func Format(t time.Time) string {
	ms := t.UnixMilli()
	return "t=" + strconv.FormatInt(ms/1000, 10) + "." + pad3(ms%1000)
}

func pad3(n int64) string {
	s := strconv.FormatInt(n, 10)
	return strings.Repeat("0", 3-len(s)) + s
}

// Waited reads the header's value v: how long before now the request was
// passed on, and whether v is a stamp to believe ("t=" and Unix seconds,
// with up to nine decimals, within MaxAhead of now and MaxAge before it).
// A stamp a little ahead of now (the proxy's clock ahead of this one)
// waited 0.
func Waited(v string, now time.Time) (time.Duration, bool) {
	s, ok := strings.CutPrefix(v, "t=")
	if !ok || len(s) > 30 {
		return 0, false
	}
	secs, frac, dot := strings.Cut(s, ".")
	if secs == "" || len(secs) > 11 || !digits(secs) || (dot && (frac == "" || len(frac) > 9 || !digits(frac))) {
		return 0, false
	}
	sec, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return 0, false
	}
	var nsec int64
	if dot {
		n, err := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		if err != nil {
			return 0, false
		}
		nsec = n
	}
	d := now.Sub(time.Unix(sec, nsec))
	if d < -MaxAhead || d > MaxAge {
		return 0, false
	}
	return max(d, 0), true
}

func digits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
