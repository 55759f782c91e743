package sim

// eventKind names what an event does.
type eventKind uint8

const (
	evArrival   eventKind = iota // a job arrives (idx = job)
	evRunStart                   // an attempt's data is ready: it computes
	evComplete                   // an attempt finishes computing
	evHeartbeat                  // a judge takes and sends a heartbeat (idx = judge)
	evLoadTick                   // every judge's load1 decays (Linux: every 5 s)
	evReap                       // the hub's reaper and heartbeat watchdog
	evDisturb                    // a disturbance starts or ends (idx = step)
	evTick                       // the hub's dispatch tick
	evFunc                       // tests: call fn
	evJoin                       // a judge connects (idx = judge; JudgeSpec.Join)
	evLeave                      // a judge is killed (idx = judge; JudgeSpec.Leave)
	evHoldEnd                    // an attempt's slot frees after its work (Job.Hold)
)

// event is one scheduled happening. Events that concern an attempt carry
// its version: a stale version (the attempt was moved or killed since) is
// ignored.
type event struct {
	t    float64
	seq  uint64
	kind eventKind
	idx  int
	a    *attempt
	ver  uint32
	fn   func()
}

// Engine is a deterministic discrete-event queue: events run in time
// order, ties in the order they were scheduled.
type Engine struct {
	now  float64
	seq  uint64
	heap []event
}

// Now is the simulated time in seconds.
func (e *Engine) Now() float64 { return e.now }

// Len is the number of pending events.
func (e *Engine) Len() int { return len(e.heap) }

func (e *Engine) less(i, j int) bool {
	a, b := &e.heap[i], &e.heap[j]
	if a.t != b.t {
		return a.t < b.t
	}
	return a.seq < b.seq
}

// schedule adds ev at time ev.t (never before now).
func (e *Engine) schedule(ev event) {
	if ev.t < e.now {
		ev.t = e.now
	}
	e.seq++
	ev.seq = e.seq
	e.heap = append(e.heap, ev)
	i := len(e.heap) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.less(i, p) {
			break
		}
		e.heap[i], e.heap[p] = e.heap[p], e.heap[i]
		i = p
	}
}

// At schedules fn at time t (for tests and one-off actions).
func (e *Engine) At(t float64, fn func()) { e.schedule(event{t: t, kind: evFunc, fn: fn}) }

// next removes and returns the earliest event and advances the clock.
func (e *Engine) next() (event, bool) {
	if len(e.heap) == 0 {
		return event{}, false
	}
	top := e.heap[0]
	n := len(e.heap) - 1
	e.heap[0] = e.heap[n]
	e.heap[n] = event{}
	e.heap = e.heap[:n]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && e.less(l, m) {
			m = l
		}
		if r < n && e.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		e.heap[i], e.heap[m] = e.heap[m], e.heap[i]
		i = m
	}
	e.now = top.t
	return top, true
}

// Run runs evFunc events until none is left or until is passed; other
// kinds are ignored (the simulator has its own loop). For tests.
func (e *Engine) Run(until float64) {
	for len(e.heap) > 0 && e.heap[0].t <= until {
		ev, _ := e.next()
		if ev.fn != nil {
			ev.fn()
		}
	}
}
