package account

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"
)

// ErrBusy is wrapped by *BusyError: the password work of a request cannot
// finish before its deadline, so it is refused at once instead of being
// queued to time out.
var ErrBusy = errors.New("account: too many password checks in progress")

// BusyError is a refusal by the Hasher with the time after which a retry
// is likely to be admitted (about the time to drain the queue).
type BusyError struct{ RetryAfter time.Duration }

func (e *BusyError) Error() string {
	return fmt.Sprintf("account: busy; retry after %v", e.RetryAfter)
}

// Unwrap makes errors.Is(err, ErrBusy) true.
func (e *BusyError) Unwrap() error { return ErrBusy }

// Expected is the pure admission estimate: how long a request that finds
// ahead requests waiting for a slot (counting one more when no slot is
// free, for the hash in progress) takes to have its own hash done, with
// slots hashes running at once and ewma the duration of one hash (the
// Hasher admits with its mean plus twice the deviation).
func Expected(ahead, slots int, ewma time.Duration) time.Duration {
	slots = max(slots, 1)
	return time.Duration(float64(ewma) * (float64(ahead)/float64(slots) + 1))
}

// Admit is the pure admission rule: a request is admitted when its
// Expected time fits in the time left before its deadline minus margin.
// Without a deadline every request is admitted.
func Admit(ahead, slots int, ewma, left, margin time.Duration, hasDeadline bool) bool {
	return !hasDeadline || Expected(ahead, slots, ewma) <= left-margin
}

// RetryAfter is the wait a refused request is told: the time to drain the
// queue it saw, at least a second.
func RetryAfter(ahead, slots int, ewma time.Duration) time.Duration {
	return max(time.Second, Expected(ahead, slots, ewma))
}

// Schedule is the pure rule that spreads the retries of refused
// requests over the capacity to come: promised is the time by which the
// retries told so far can have been served. A refused request is given
// the next free place after the queue it saw has drained (one hash per
// slot), so a storm of refusals is not told to come back all at once. It
// returns the new promised time and the wait to tell (at least a second).
func Schedule(promised, now time.Time, ahead, slots int, ewma time.Duration) (time.Time, time.Duration) {
	drain := now.Add(Expected(ahead, slots, ewma))
	if promised.Before(drain) {
		promised = drain
	}
	promised = promised.Add(ewma / time.Duration(max(slots, 1)))
	return promised, max(time.Second, promised.Sub(now))
}

// HasherConfig configures NewHasher. Zero values take the defaults.
type HasherConfig struct {
	// Cost is the bcrypt cost of new hashes and of the dummy (0:
	// BcryptCost).
	Cost int
	// Slots is how many hashes run at once (0: GOMAXPROCS). bcrypt is
	// pure CPU: more slots than cores only make every hash slower.
	Slots int
	// Margin is kept free before a request's deadline for the work after
	// the hash (a session in Redis, the answer). Default 250 ms.
	Margin time.Duration
}

// Hasher runs every bcrypt hash and comparison of a web node through a
// bounded number of slots, and admits a request to the queue only when its
// hash can be done before the request's deadline (Admit): in a login storm
// the node answers the surplus at once with ErrBusy and a retry time, and
// the hashes it does are never thrown away by a deadline.
type Hasher struct {
	cost   int
	slots  chan struct{}
	margin time.Duration
	dummy  Dummy

	mu       sync.Mutex
	waiting  int           // requests admitted and waiting for a slot
	ewma     time.Duration // mean duration of one hash
	dev      time.Duration // mean deviation from it
	promised time.Time     // see Schedule
	running  []time.Time   // start of each hash in a slot now
	slow     float64       // see Slowdown
	refused  Refusals
	now      func() time.Time
}

// ewmaWeight is the weight of the newest hash in the mean, devWeight in
// the deviation (as TCP's round-trip estimate).
const ewmaWeight, devWeight = 0.2, 0.25

// Estimate is the pure rule for what admission assumes one hash takes:
// the mean plus twice its deviation, so that a machine slowed down by the
// storm itself (the HTTP work of hundreds of requests shares the cores)
// does not admit requests that will miss their deadline — and at least
// as long as the longest hash now running has run. The mean learns only
// when a hash ends; when the machine slows down at once (a storm's first
// second, another process taking the cores), the hashes in the slots
// show it before any of them ends, and the requests arriving meanwhile
// are refused at once instead of queued to be refused at their deadline.
func Estimate(ewma, dev, longestRunning time.Duration) time.Duration {
	return max(ewma+2*dev, longestRunning)
}

// maxSlowdown bounds Slowdown: past it the estimate is wrong for a
// reason more waiting will not fix, and the idle probe (see run) is what
// lets requests in.
const maxSlowdown = 8

// Slowdown is the pure rule by which the Hasher learns how wrong its
// queue estimates are: slow is the factor it applies to Expected now,
// predicted what Expected said (unscaled) when a request was admitted,
// and took how long that request actually took from its admission to the
// end of its hash (or to its refusal after waiting: then at least that
// long plus one hash). The factor follows the ratio took/predicted as
// the mean follows hash durations, never below 1 (the estimate's own
// margin stays) nor above maxSlowdown.
//
// The per-hash mean alone cannot see what makes a queue drain slower
// than its hashes suggest: on a machine whose cores are shared (the HTTP
// work of the storm itself, other processes, the race detector) a freed
// slot waits for a core before the next hash starts, and the mean learns
// only after the hashes it admitted too many of are already late.
func Slowdown(slow float64, predicted, took time.Duration) float64 {
	if predicted <= 0 {
		return slow
	}
	ratio := float64(took) / float64(predicted)
	return min(max(ewmaWeight*ratio+(1-ewmaWeight)*slow, 1), maxSlowdown)
}

// estimate is Estimate for the Hasher's state now. Called with mu held.
func (h *Hasher) estimate(now time.Time) time.Duration {
	var longest time.Duration
	for _, s := range h.running {
		longest = max(longest, now.Sub(s))
	}
	return Estimate(h.ewma, h.dev, longest)
}

// Refusals counts the requests a Hasher refused busy: at once, on its
// estimate (the point of admission), and after waiting in its queue (the
// estimate was too kind: the request waited for a refusal it could have
// had at once).
type Refusals struct{ AtOnce, AfterWaiting int64 }

// Refusals is the count of refusals so far.
func (h *Hasher) Refusals() Refusals {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refused
}

// Slow is the current factor applied to queue estimates (see Slowdown).
func (h *Hasher) Slow() float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.slow
}

// NewHasher returns a Hasher. It makes the dummy hash for unknown users at
// once; the time that takes is the first estimate of a hash's duration.
func NewHasher(cfg HasherConfig) (*Hasher, error) {
	if cfg.Slots <= 0 {
		cfg.Slots = runtime.GOMAXPROCS(0)
	}
	if cfg.Margin <= 0 {
		cfg.Margin = 250 * time.Millisecond
	}
	h := &Hasher{cost: cfg.Cost, slots: make(chan struct{}, cfg.Slots), margin: cfg.Margin, now: time.Now, slow: 1}
	start := time.Now()
	d, err := NewDummy(cfg.Cost)
	if err != nil {
		return nil, err
	}
	// One sample on an idle node: assume it may be half as fast again.
	h.dummy, h.ewma = d, max(time.Since(start), time.Millisecond)
	h.dev = h.ewma / 2
	return h, nil
}

// Slots is the number of hashes run at once.
func (h *Hasher) Slots() int { return cap(h.slots) }

// EWMA is the current estimate of one hash's duration.
func (h *Hasher) EWMA() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ewma
}

// Waiting is the number of admitted requests waiting for a slot.
func (h *Hasher) Waiting() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.waiting
}

// run admits the request of ctx, waits for a slot and runs fn in it. It
// returns a *BusyError when the request is refused or its deadline comes
// while it waits, and ctx's error when the client went away; fn has then
// not run.
func (h *Hasher) run(ctx context.Context, fn func()) error {
	deadline, hasDeadline := ctx.Deadline()
	h.mu.Lock()
	ahead := h.waiting
	if len(h.slots) == cap(h.slots) {
		ahead++
	}
	ewma := h.ewma
	// An idle Hasher admits whatever its estimate says: the estimate
	// learns only from hashes that run, and one that grew past every
	// deadline (hashes slowed down by a loaded machine) would otherwise
	// refuse every request for ever. The probe is never refused later
	// either.
	probe := ahead == 0 && len(h.running) == 0
	now := h.now()
	est := h.estimate(now)
	// predicted is what Expected says unscaled: the slowdown learns the
	// ratio of what happens to it.
	predicted := Expected(ahead, cap(h.slots), est)
	scaled := time.Duration(float64(est) * h.slow)
	if !probe && !Admit(ahead, cap(h.slots), scaled, deadline.Sub(now), h.margin, hasDeadline) {
		var wait time.Duration
		h.promised, wait = Schedule(h.promised, now, ahead, cap(h.slots), ewma)
		h.refused.AtOnce++
		h.mu.Unlock()
		return &BusyError{RetryAfter: wait}
	}
	admitted := now
	h.waiting++
	h.mu.Unlock()
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		h.mu.Lock()
		h.waiting--
		ahead, ewma = h.waiting, h.ewma
		deadlined := errors.Is(ctx.Err(), context.DeadlineExceeded)
		if deadlined {
			// Refused after waiting: the estimate was too kind by at
			// least the wait and the hash still to come.
			h.slow = Slowdown(h.slow, predicted, h.now().Sub(admitted)+ewma)
			h.refused.AfterWaiting++
		}
		h.mu.Unlock()
		if deadlined {
			return &BusyError{RetryAfter: RetryAfter(ahead, cap(h.slots), ewma)}
		}
		return ctx.Err()
	}
	h.mu.Lock()
	h.waiting--
	ewma = h.ewma
	h.mu.Unlock()
	defer func() { <-h.slots }()
	// The estimate was wrong and the hash can no longer finish in time:
	// do not spend a slot on an answer nobody will read.
	if !probe && hasDeadline && deadline.Sub(h.now()) < ewma {
		h.mu.Lock()
		h.slow = Slowdown(h.slow, predicted, h.now().Sub(admitted)+ewma)
		h.refused.AfterWaiting++
		ahead = h.waiting
		h.mu.Unlock()
		return &BusyError{RetryAfter: RetryAfter(ahead, cap(h.slots), ewma)}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	h.mu.Lock()
	start := h.now()
	h.running = append(h.running, start)
	h.mu.Unlock()
	fn()
	h.mu.Lock()
	d := h.now().Sub(start)
	if i := slices.Index(h.running, start); i >= 0 {
		h.running = slices.Delete(h.running, i, i+1)
	}
	h.dev = time.Duration(devWeight*math.Abs(float64(d-h.ewma)) + (1-devWeight)*float64(h.dev))
	h.ewma = time.Duration(ewmaWeight*float64(d) + (1-ewmaWeight)*float64(h.ewma))
	h.slow = Slowdown(h.slow, predicted, h.now().Sub(admitted))
	h.mu.Unlock()
	return nil
}

// Hash returns the bcrypt hash of password at the Hasher's cost.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	var out string
	var err error
	if rerr := h.run(ctx, func() { out, err = HashPassword(password, h.cost) }); rerr != nil {
		return "", rerr
	}
	return out, err
}

// Check reports whether password matches hash.
func (h *Hasher) Check(ctx context.Context, hash, password string) (bool, error) {
	var ok bool
	if err := h.run(ctx, func() { ok = CheckPassword(hash, password) }); err != nil {
		return false, err
	}
	return ok, nil
}

// Spend does the work of one Check without a user (an unknown username
// takes as long as a wrong password, and waits in the same queue).
func (h *Hasher) Spend(ctx context.Context, password string) error {
	return h.run(ctx, func() { h.dummy.Spend(password) })
}
