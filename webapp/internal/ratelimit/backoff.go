package ratelimit

import "time"

// Policy is a backoff rule. The first Free failures cost nothing: the next
// attempt is checked at once. Every failure after them makes the next
// attempt wait, measured from that failure: Base after the first failure
// beyond Free, then twice as long after each further one, at most Max.
// The state is forgotten once Window passes without a failure.
//
// With Free 5, Base 1 s, Max 5 min: six attempts are checked at once (five
// failures, then one more), then the waits are 1 s, 2 s, 4 s, … 256 s,
// 300 s, 300 s …
type Policy struct {
	Free   int
	Base   time.Duration
	Max    time.Duration
	Window time.Duration
}

// Delay is the wait that count failures impose after the last of them.
func (p Policy) Delay(count int) time.Duration {
	if count <= p.Free {
		return 0
	}
	d := p.Base
	for k := count - p.Free - 1; k > 0 && d < p.Max; k-- {
		d *= 2
	}
	return min(d, p.Max)
}

// Decide is the pure rule that the Lua scripts apply too (a test holds
// them to the same table): given count failures, the last at last, is an
// attempt at now blocked, and for how long still. A state older than the
// window is forgotten.
func Decide(count int, last, now time.Time, p Policy) (blocked bool, wait time.Duration) {
	if count <= 0 || now.Sub(last) >= p.Window {
		return false, 0
	}
	until := last.Add(p.Delay(count))
	if now.Before(until) {
		return true, until.Sub(now)
	}
	return false, 0
}
