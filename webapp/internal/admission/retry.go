package admission

import (
	"math"
	"time"
)

// holdWeight is the weight of the newest request in the mean time a slot
// is held: about the last 32 requests count, a fraction of a second on a
// node serving hundreds a second, so the estimate follows a storm that
// slows every request down within its first second.
const holdWeight = 1.0 / 32

// retryEstimate is the pure state behind the Retry-After of a shed
// request (no clock, no randomness, no lock: the Gate passes now and a
// uniform number in, and holds its mutex around it).
//
// Why not a fixed Retry-After: under a sustained overload every shed
// client came back after the same 2 s, in herds, into a gate still full,
// and was shed again — up to five times for one page, most of the node's
// work being the refusals. A shed client is told instead about when its
// turn comes: the requests in line and the clients shed recently (who are
// all coming back: each was told at most the ceiling) go before it, and
// while the gate sheds every slot is taken, so slots come free at
// Slots ÷ the mean time one is held (Little's law).
type retryEstimate struct {
	slots          int
	floor, ceiling int // whole seconds, 1 ≤ floor ≤ ceiling

	hold float64   // mean seconds a slot is held; 0 before the first
	shed float64   // clients shed recently (decayed, see backlog)
	at   time.Time // when shed was last counted
}

func newRetryEstimate(slots int, floor, ceiling time.Duration) retryEstimate {
	// Retry-After is whole seconds: the floor rounds up, the ceiling down
	// (never past what the frontend retries by itself).
	f := max(1, int(math.Ceil(floor.Seconds())))
	c := max(f, int(ceiling/time.Second))
	return retryEstimate{slots: max(1, slots), floor: f, ceiling: c}
}

// done counts a request that held a slot for held.
func (e *retryEstimate) done(held time.Duration) {
	s := max(0, held.Seconds())
	if e.hold == 0 {
		e.hold = s
		return
	}
	e.hold += holdWeight * (s - e.hold)
}

// rate is how many slots come free a second while all are taken; +Inf
// before any request was done (nothing known: no wait assumed).
func (e *retryEstimate) rate() float64 {
	if e.hold <= 0 {
		return math.Inf(1)
	}
	return float64(e.slots) / e.hold
}

// backlog is the clients shed recently, as of now: each counts less as
// time passes, by e^(−age ÷ ceiling), since one told at most the ceiling
// has come back by then (and was counted again if shed again).
func (e *retryEstimate) backlog(now time.Time) float64 {
	age := max(0, now.Sub(e.at).Seconds())
	return e.shed * math.Exp(-age/float64(e.ceiling))
}

// turn is how many seconds until a client shed at now, with waiting
// others in line, has a slot: the line and the backlog go first.
func (e *retryEstimate) turn(now time.Time, waiting int) float64 {
	r := e.rate()
	if math.IsInf(r, 1) {
		return 0
	}
	return (float64(max(0, waiting)) + e.backlog(now) + 1) / r
}

// window is the whole seconds a client shed at now may be told, lo to hi:
// from its turn to half as long again, within [floor, ceiling]. Never
// sooner than the turn: the turn leaves out the new requests that will
// compete for the same slots, so it is the earliest a retry can hope to
// get in; one told sooner is mostly shed again. A turn at or past the
// ceiling is told the last quarter of it, 8 to 10 s by default: all told
// the ceiling would come back in the same herd they were shed in.
func (e *retryEstimate) window(now time.Time, waiting int) (lo, hi int) {
	t := e.turn(now, waiting)
	hi = e.ceiling
	if top := math.Ceil(1.5 * t); top < float64(hi) {
		hi = max(e.floor, int(top))
	}
	lo = max(e.floor, min(int(math.Ceil(t)), (3*hi+3)/4))
	return lo, hi
}

// tell is what a client shed at now, with waiting others in line, is
// told: a whole number of seconds in its window, picked by u (uniform in
// [0, 1)), so that the clients shed in one second come back over several.
// The client then counts in the backlog, which is held to what the
// ceiling covers (rate × ceiling: a turn past it is told the ceiling
// anyway), so that after a storm however long the advice is back at the
// floor within about 2.7 ceilings (30 s by default) of the last shed.
func (e *retryEstimate) tell(now time.Time, waiting int, u float64) time.Duration {
	lo, hi := e.window(now, waiting)
	b := e.backlog(now) + 1
	if r := e.rate(); !math.IsInf(r, 1) {
		b = min(b, r*float64(e.ceiling))
	}
	e.shed, e.at = b, now
	n := lo + int(min(max(u, 0), 1)*float64(hi-lo+1))
	return time.Duration(min(n, hi)) * time.Second
}
