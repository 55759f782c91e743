package sim

// JudgeSpec is one judge of the simulated cluster.
type JudgeSpec struct {
	ID    string
	Cores int     // also its slots (max_parallel)
	Speed float64 // per-core speed relative to 1
	// Join > 0: the judge connects then (hello and a first heartbeat at
	// once, as the agent does), with the cache Warm lists; before it, it does not
	// exist. Leave > 0: the judge is killed then (its link drops, so the
	// hub stops sending it work at once; its tasks are lost and their
	// leases expire). Seconds; 0 is from the start / never. Replay sets
	// them; the scenarios leave them 0.
	Join, Leave float64
	// Cache is how many problems' test data the judge keeps; 0:
	// Config.CacheCapacity.
	Cache int
	// Languages the judge runs (hello's languages); empty: every one.
	Languages []string
	// Warm is the test data (hashes) the judge holds when it connects, as
	// a recorded run's judges held what the hub warmed them with before
	// the contest (Replay takes it from the trace); hashes of no problem
	// of the run are ignored. Empty: it connects with an empty cache.
	Warm []string
}

// speaks reports whether the judge runs lang.
func (j *JudgeSpec) speaks(lang string) bool {
	if len(j.Languages) == 0 {
		return true
	}
	for _, l := range j.Languages {
		if l == lang {
			return true
		}
	}
	return false
}

// DefaultCluster is the heterogeneous cluster of every scenario: 8 judges,
// 2 to 16 cores, per-core speed 0.5 to 1.5, 60 cores and a capacity of
// 62.2 speed-1 cores. Judge 2 (8 cores, speed 1) is the one disturbances
// hit.
func DefaultCluster() []JudgeSpec {
	return []JudgeSpec{
		{ID: "j0", Cores: 16, Speed: 1.3}, {ID: "j1", Cores: 12, Speed: 0.7}, {ID: "j2", Cores: 8, Speed: 1.0},
		{ID: "j3", Cores: 8, Speed: 1.5}, {ID: "j4", Cores: 6, Speed: 0.5}, {ID: "j5", Cores: 4, Speed: 1.2},
		{ID: "j6", Cores: 4, Speed: 0.8}, {ID: "j7", Cores: 2, Speed: 1.0},
	}
}

// Capacity is Σ cores × speed.
func Capacity(c []JudgeSpec) float64 {
	s := 0.0
	for _, j := range c {
		s += float64(j.Cores) * j.Speed
	}
	return s
}

// DisturbanceKind names what goes wrong.
type DisturbanceKind int

// Disturbances. The traffic ones (flash crowd, burst) live in Traffic;
// the others hit judge Disturbance.Judge.
const (
	DisturbNone DisturbanceKind = iota
	// DisturbDrop: the judge's capacity drops to Factor (a noisy
	// neighbour: its cores run at Factor speed and load1 shows the
	// foreign threads).
	DisturbDrop
	// DisturbCrash: the judge dies (its tasks are lost; leases expire and
	// are requeued) and comes back after Length with its disk cache.
	DisturbCrash
	// DisturbGray: the judge runs at Factor speed but reports healthy.
	DisturbGray
	// DisturbSilent: the judge works but sends no heartbeats for Length.
	DisturbSilent
)

// Disturbance is a fault injected into one judge.
type Disturbance struct {
	Kind       DisturbanceKind
	Judge      int
	At, Length float64 // seconds
	Factor     float64
}

// lru is a judge's test data cache: problem → time the data is (or will
// be) on disk, least recently used evicted beyond capacity.
type lru struct {
	cap   int
	items map[int]*lruItem
	head  lruItem // sentinel: head.next is the most recent
}

type lruItem struct {
	key        int
	readyAt    float64
	prev, next *lruItem
}

func newLRU(capacity int) *lru {
	l := &lru{cap: capacity, items: map[int]*lruItem{}}
	l.head.next, l.head.prev = &l.head, &l.head
	return l
}

func (l *lru) unlink(it *lruItem) { it.prev.next, it.next.prev = it.next, it.prev }

func (l *lru) front(it *lruItem) {
	it.next, it.prev = l.head.next, &l.head
	l.head.next.prev = it
	l.head.next = it
}

// get returns the entry for key (touching it) or nil.
func (l *lru) get(key int) *lruItem {
	it := l.items[key]
	if it != nil {
		l.unlink(it)
		l.front(it)
	}
	return it
}

// put adds key, ready at readyAt, evicting the least recently used.
func (l *lru) put(key int, readyAt float64) *lruItem {
	if it := l.get(key); it != nil {
		return it
	}
	if len(l.items) >= l.cap {
		old := l.head.prev
		l.unlink(old)
		delete(l.items, old.key)
	}
	it := &lruItem{key: key, readyAt: readyAt}
	l.items[key] = it
	l.front(it)
	return it
}

// dropPending forgets downloads not finished at now (a crash).
func (l *lru) dropPending(now float64) {
	for k, it := range l.items {
		if it.readyAt > now {
			l.unlink(it)
			delete(l.items, k)
		}
	}
}

// ready lists the keys on disk at now, most recent first.
func (l *lru) ready(now float64) []int {
	var ks []int
	for it := l.head.next; it != &l.head; it = it.next {
		if it.readyAt <= now {
			ks = append(ks, it.key)
		}
	}
	return ks
}

// keys lists every key in the cache, on disk or being fetched, most
// recent first.
func (l *lru) keys() []int {
	ks := make([]int, 0, len(l.items))
	for it := l.head.next; it != &l.head; it = it.next {
		ks = append(ks, it.key)
	}
	return ks
}
