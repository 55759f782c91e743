package judging

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// ErrConfig reports an unusable Config.
var ErrConfig = errors.New("judging: invalid config")

// Defaults of Config.
const (
	DefaultLiveWindow        = 15 * time.Second
	DefaultOutputLimit       = 64 << 20
	DefaultReconcileInterval = 5 * time.Second
	DefaultReconcileGrace    = 10 * time.Second
	// DefaultReconcileLookback stays inside queue.DefaultDoneTTL: an older
	// task record may be gone, and re-enqueueing would judge twice.
	DefaultReconcileLookback = 6 * 24 * time.Hour
	DefaultClaimIdle         = 30 * time.Second
	DefaultReadBlock         = 2 * time.Second
	DefaultBatch             = 64
	DefaultResultWorkers     = 16
	DefaultPublishInterval   = 500 * time.Millisecond
	DefaultContestCacheTTL   = 2 * time.Second
	DefaultEnqueueTimeout    = 5 * time.Second
	DefaultRejudgeAhead      = 256
	DefaultRejudgePoll       = 100 * time.Millisecond
)

// Config configures New.
type Config struct {
	Store *store.Store // required
	// ResultStore is what the results consumer writes verdicts through:
	// best a pool of its own, so that a storm of page loads holding every
	// request connection cannot hold verdicts back (a result is a short
	// transaction that every owner's socket and every board waits for).
	// Default: Store.
	ResultStore *store.Store
	// ResultWorkers is how many results this node writes at once (results
	// of one submission always one after another). Default
	// DefaultResultWorkers; give ResultStore at least as many connections.
	// Each write waits mostly for the commit's flush (32 ms mean in the
	// 3,000-contestant rehearsal), and on a saturated node the workers get
	// a share of the CPU by their number beside the requests' goroutines:
	// with 4, 2,391 verdicts were still unwritten four minutes after the
	// contest ended.
	ResultWorkers int
	Redis         redis.UniversalClient // required
	Names         rkeys.Names
	// Queue is the judge queue on Redis. Default: queue.New on Redis and
	// Names with its defaults.
	Queue  *queue.Queue
	Logger *slog.Logger // default: discard
	// Metrics registers the package's metrics when set.
	Metrics prometheus.Registerer
	// NodeID names this node as a consumer and a lock holder. Default:
	// hostname-pid-random.
	NodeID string
	// TestdataURL is the base URL judges download test data from, the
	// hash appended (e.g. "https://oj.example/api/judge/testdata/"). Empty:
	// tasks carry no URL and each judge uses its own default (its hub's
	// host, path /api/judge/testdata/).
	TestdataURL string
	// LiveWindow: a judge is live when the hub saw it this recently.
	LiveWindow time.Duration
	// OutputLimit is the stdout limit of every run, bytes.
	OutputLimit int64
	// Reconciler: how often it runs, how old a queued submission must be
	// before it is checked, and how far back it looks.
	ReconcileInterval, ReconcileGrace, ReconcileLookback time.Duration
	// EnqueueTimeout bounds a submit's enqueue once its row is committed,
	// on a context of its own: the request's deadline may be spent by
	// then (overload), and a task not enqueued waits for the reconciler.
	// Default DefaultEnqueueTimeout (5 s).
	EnqueueTimeout time.Duration
	// ClaimIdle: a result pending this long with another (dead) consumer
	// is claimed.
	ClaimIdle time.Duration
	// ReadBlock is how long one XREADGROUP waits; Batch how many entries
	// it takes.
	ReadBlock time.Duration
	Batch     int
	// PublishInterval is the least time between two scoreboard pushes of
	// one contest from this node.
	PublishInterval time.Duration
	// ContestCacheTTL bounds how stale a contest's window and freeze may
	// be when a result updates its board.
	ContestCacheTTL time.Duration
	// WarmPlanInterval is how often the warm plan is rewritten when
	// nothing changed. Default DefaultWarmPlanInterval.
	WarmPlanInterval time.Duration
	// RejudgeAhead is how many rejudge tasks may wait in the queue (from
	// every job, on every node) before a background rejudge waits for
	// judges to take some, polling every RejudgePoll: the judges run a
	// rejudge no faster than their slots free, and enqueueing it all at
	// once only front-loads its MySQL writes, board marks and live events
	// onto the contest (the 10x rehearsal's rejudge of 2,910 enqueued at
	// 150 a second while the judges took 50, and the hub's results waited
	// 100 ms for 20 s). Default DefaultRejudgeAhead (256); negative: no
	// bound. RejudgePoll defaults to DefaultRejudgePoll (100 ms).
	RejudgeAhead int
	RejudgePoll  time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Service is one node's judging machinery.
type Service struct {
	// jobs are the background rejudges (RejudgeAll), joined by Wait.
	jobs       sync.WaitGroup
	jobsMu     sync.Mutex
	jobCancels []context.CancelFunc
	// paceWarned: when a rejudge last logged its pacing's failure
	// (unix ns).
	paceWarned atomic.Int64
	// jobsCtx is the shared board work's (share), ended by Wait.
	jobsCtx  context.Context
	stopJobs context.CancelFunc

	cfg Config
	st  *store.Store
	// langKept is what Languages last read (LanguagesTTL).
	langMu   sync.Mutex
	langKept keptLanguages
	// rst is the results consumer's store (Config.ResultStore).
	rst   *store.Store
	rdb   redis.UniversalClient
	n     rkeys.Names
	q     *queue.Queue
	log   *slog.Logger
	board *scoreboard.Board

	// samples caches the feedback rules of test data versions
	// ("problem/hash" to cachedRule), see FeedbackOf.
	samples sync.Map

	mu       sync.Mutex
	plan     publishPlan // the boards to publish (RunPublisher)
	contests map[int64]cachedContest
	parts    map[int64]cachedParticipants
	// bodies are the public boards this node served last, by contest
	// (PublicBoard), replaced when a newer one is published.
	bodies map[int64]*BoardBody
	// rebuilding and assembling are the board rebuild and the public
	// board's assembly in flight per contest (rebuildShared,
	// assembleShared).
	rebuilding, assembling map[int64]*flight
	// reading is the read of a newly published board, per contest.
	reading  map[int64]*flight
	kick     chan struct{}
	warmKick chan struct{}

	results   *prometheus.CounterVec
	requeued  prometheus.Counter
	published prometheus.Counter
	// staleBoards: board documents not published, a newer one was.
	staleBoards prometheus.Counter
	// boardReads counts public scoreboard reads by how they were served.
	boardReads *prometheus.CounterVec
	// boardGzips counts public boards compressed (BoardBody.Gzip).
	boardGzips prometheus.Counter
	// boardRebuilds counts boards rebuilt from MySQL (RebuildBoard).
	boardRebuilds prometheus.Counter
}

type cachedContest struct {
	c  store.Contest
	at time.Time
}

type cachedParticipants struct {
	ids map[int64]bool
	at  time.Time
}

// New checks cfg and returns a Service. It does not touch MySQL or Redis.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Redis == nil {
		return nil, fmt.Errorf("%w: Store and Redis are required", ErrConfig)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.LiveWindow, DefaultLiveWindow)
	def(&cfg.ReconcileInterval, DefaultReconcileInterval)
	def(&cfg.ReconcileGrace, DefaultReconcileGrace)
	def(&cfg.ReconcileLookback, DefaultReconcileLookback)
	def(&cfg.EnqueueTimeout, DefaultEnqueueTimeout)
	def(&cfg.ClaimIdle, DefaultClaimIdle)
	def(&cfg.ReadBlock, DefaultReadBlock)
	def(&cfg.PublishInterval, DefaultPublishInterval)
	def(&cfg.ContestCacheTTL, DefaultContestCacheTTL)
	def(&cfg.WarmPlanInterval, DefaultWarmPlanInterval)
	def(&cfg.RejudgePoll, DefaultRejudgePoll)
	if cfg.RejudgeAhead == 0 {
		cfg.RejudgeAhead = DefaultRejudgeAhead
	}
	if cfg.OutputLimit <= 0 {
		cfg.OutputLimit = DefaultOutputLimit
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.ResultWorkers <= 0 {
		cfg.ResultWorkers = DefaultResultWorkers
	}
	if cfg.ResultStore == nil {
		cfg.ResultStore = cfg.Store
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NodeID == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		cfg.NodeID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
	}
	if cfg.Queue == nil {
		q, err := queue.New(queue.Config{Client: cfg.Redis, Names: cfg.Names})
		if err != nil {
			return nil, fmt.Errorf("judging: %w", err)
		}
		cfg.Queue = q
	}
	s := &Service{
		cfg: cfg, st: cfg.Store, rst: cfg.ResultStore, rdb: cfg.Redis, n: cfg.Names, q: cfg.Queue,
		log: cfg.Logger.With("component", "judging"), board: scoreboard.New(cfg.Redis, cfg.Names),
		plan: newPublishPlan(), contests: map[int64]cachedContest{}, parts: map[int64]cachedParticipants{}, bodies: map[int64]*BoardBody{}, rebuilding: map[int64]*flight{}, assembling: map[int64]*flight{}, reading: map[int64]*flight{}, kick: make(chan struct{}, 1),
		warmKick: make(chan struct{}, 1),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_webapp_results_total",
			Help: "Judge results consumed from the results stream, by outcome (applied, duplicate, stale, missing, invalid).",
		}, []string{"outcome"}),
		requeued: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_webapp_reconciler_enqueued_total",
			Help: "Queued submissions the reconciler found without a task and enqueued again.",
		}),
		published: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_webapp_scoreboard_publishes_total",
			Help: "Scoreboard documents published to the live contest channels.",
		}),
		staleBoards: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_webapp_scoreboard_stale_publishes_total",
			Help: "Scoreboard documents not published because another node had published one made from a newer board state meanwhile.",
		}),
		boardReads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_webapp_scoreboard_reads_total",
			Help: "Public scoreboard reads (GET .../scoreboard), by how they were served: published (the live channel's document) or assembled.",
		}, []string{"from"}),
		boardGzips: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_webapp_scoreboard_gzips_total",
			Help: "Public scoreboard documents compressed with gzip for the clients that take it: once per published board a node holds, once per request for an assembled one.",
		}),
		boardRebuilds: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_webapp_scoreboard_rebuilds_total",
			Help: "Scoreboards rebuilt in Redis from the contest's submissions in MySQL (a board missing from Redis, or a contest whose window, freeze or teams changed).",
		}),
	}
	if cfg.Metrics != nil {
		for _, c := range []prometheus.Collector{s.results, s.requeued, s.published, s.staleBoards, s.boardReads, s.boardGzips, s.boardRebuilds} {
			if err := cfg.Metrics.Register(c); err != nil {
				return nil, fmt.Errorf("judging: register metrics: %w", err)
			}
		}
	}
	s.jobsCtx, s.stopJobs = context.WithCancel(context.Background())
	return s, nil
}

// Queue returns the judge queue.
func (s *Service) Queue() *queue.Queue { return s.q }

// Board returns the scoreboards.
func (s *Service) Board() *scoreboard.Board { return s.board }

// NodeID returns this node's consumer and lock name.
func (s *Service) NodeID() string { return s.cfg.NodeID }

// Run runs the result consumer, the reconciler, the scoreboard publisher
// and the warm plan until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { s.RunWarmPlan(ctx) })
	wg.Go(func() { s.RunConsumer(ctx) })
	wg.Go(func() { s.RunReconciler(ctx) })
	wg.Go(func() { s.RunPublisher(ctx) })
	wg.Wait()
	s.Wait()
	return nil
}

// PriorityOf is the queue priority of a submission's first judging.
func PriorityOf(sub *store.Submission) protocol.Priority {
	if sub.ContestID.Valid {
		return protocol.PriorityContest
	}
	return protocol.PriorityPractice
}

// Task builds the queued task of a submission's current attempt.
func (s *Service) Task(sub *store.Submission, p *store.Problem, prio protocol.Priority) queue.Task {
	t := protocol.Task{
		TaskRef:   protocol.TaskRef{SubmissionID: sub.ID, Attempt: sub.Attempt},
		ProblemID: p.ID,
		TestData:  s.TestData(sub.TestdataHash.String),
		Language:  sub.Language,
		Source:    sub.Source,
		Limits: protocol.Limits{TimeMs: int64(p.TimeLimitMs), MemoryKiB: int64(p.MemoryLimitKB),
			OutputBytes: s.cfg.OutputLimit},
		Mode:     protocol.Mode(p.Mode),
		Checker:  protocol.Checker{Kind: protocol.CheckerKind(p.Checker)},
		Priority: prio,
	}
	if p.Checker == store.CheckerFloat {
		t.Checker.Tolerance = p.FloatTolerance
	}
	t.IO = problemIO(p)
	qt := queue.Task{Task: t, UserID: sub.UserID, SubmittedAt: sub.CreatedAt}
	if sub.ContestID.Valid {
		qt.ContestID = sub.ContestID.Int64
	}
	return qt
}

// Enqueue puts a submission's current attempt in the judge queue. An
// attempt already queued, leased or done is success (the queue is
// idempotent per submission and attempt).
func (s *Service) Enqueue(ctx context.Context, sub *store.Submission, p *store.Problem, prio protocol.Priority) error {
	rule, err := s.testdataRule(ctx, sub)
	if err != nil {
		return fmt.Errorf("judging: enqueue %d attempt %d: %w", sub.ID, sub.Attempt, err)
	}
	return s.enqueue(ctx, sub, p, prio, rule)
}

// enqueue is Enqueue with the rule of the submission's test data read
// (its feedback's samples and subtasks, its checker's language): Redis
// only.
func (s *Service) enqueue(ctx context.Context, sub *store.Submission, p *store.Problem, prio protocol.Priority, rule store.TestdataRule) error {
	t := s.Task(sub, p, prio)
	fb := feedbackWith(sub, rule)
	t.Feedback = &fb
	// A checker or interactor in Python or Java: only judges that run
	// one get the task (Task.Needs).
	t.Checker.Language = rule.ProgramLanguage
	// ICPC grading rules in the test data: only judges that grade by
	// them get the task (Task.Needs).
	t.Grading = rule.Grading
	err := s.q.Enqueue(ctx, t)
	if err != nil && !errors.Is(err, queue.ErrDuplicate) {
		return fmt.Errorf("judging: enqueue %d attempt %d: %w", sub.ID, sub.Attempt, err)
	}
	return nil
}

// contest returns a contest from a short-lived cache.
func (s *Service) contest(ctx context.Context, id int64) (store.Contest, error) {
	return s.contestFrom(ctx, s.st, id)
}

// contestFrom is contest reading a miss through st (the results
// consumer's own pool, or the requests').
func (s *Service) contestFrom(ctx context.Context, st *store.Store, id int64) (store.Contest, error) {
	now := time.Now()
	s.mu.Lock()
	cc, ok := s.contests[id]
	s.mu.Unlock()
	if ok && now.Sub(cc.at) < s.cfg.ContestCacheTTL {
		return cc.c, nil
	}
	c, err := st.ContestByID(ctx, id)
	if err != nil {
		return store.Contest{}, err
	}
	s.mu.Lock()
	s.contests[id] = cachedContest{c: c, at: now}
	s.mu.Unlock()
	return c, nil
}

// participants returns a contest's registered users from a short-lived
// cache (ContestCacheTTL): every board document needs them, and boards are
// built per page view and twice a second per node while results flow.
// MarkDirty forgets them at once on this node (a registration, a list
// change); other nodes see the change within the TTL.
//
// users are the users about to be shown: if the cached set lacks one of
// them it is read again, so that a student registered by their first
// submission on another node is never left off a board for the TTL (a
// board is only republished on the next result).
func (s *Service) participants(ctx context.Context, id int64, users iter.Seq[int64]) (map[int64]bool, error) {
	return s.participantsFrom(ctx, s.st, id, users)
}

// participantsFrom is participants reading a miss through st.
func (s *Service) participantsFrom(ctx context.Context, st *store.Store, id int64, users iter.Seq[int64]) (map[int64]bool, error) {
	now := time.Now()
	s.mu.Lock()
	cp, ok := s.parts[id]
	s.mu.Unlock()
	if ok && now.Sub(cp.at) < s.cfg.ContestCacheTTL {
		complete := true
		for u := range users {
			if !cp.ids[u] {
				complete = false
				break
			}
		}
		if complete {
			return cp.ids, nil
		}
	}
	ids, err := st.ParticipantIDs(ctx, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.parts[id] = cachedParticipants{ids: ids, at: now}
	s.mu.Unlock()
	return ids, nil
}

// ForgetContest drops a contest from the cache (after it changed).
func (s *Service) ForgetContest(id int64) {
	s.mu.Lock()
	delete(s.contests, id)
	s.mu.Unlock()
	// Its settings changed (visibility, freeze, rule, …): republish the
	// board as they now make it.
	s.MarkDirty(id)
}

// BoardContest is the scoreboard's view of a contest.
func BoardContest(c *store.Contest) scoreboard.Contest {
	return scoreboard.Contest{ID: c.ID, Params: scoreboard.Params{Rule: c.Rule, Start: c.StartAt, FreezeAt: boardFreezeAt(c),
		Penalty: scoreboard.PenaltyOf(c.PenaltyMinutes, c.PenaltyVerdicts)}}
}

// boardFreezeAt is when a contest's public board stops showing results:
// the freeze, or, under the closed feedback policy, the start (nothing is
// shown until the end; after it the board shows everything unless a freeze
// still holds, which then hides every result until an admin unfreezes).
func boardFreezeAt(c *store.Contest) time.Time {
	if c.Feedback == string(protocol.FeedbackClosed) {
		return c.StartAt
	}
	return c.FreezeAt()
}

// publicFrozen reports whether the public board shows the frozen view.
func publicFrozen(c *store.Contest, now time.Time) bool {
	return c.Frozen(now) || c.ResultsHidden(now)
}

// BoardEntry is a submission as its scoreboard cell's entry: pending until
// the row holds an outcome.
func BoardEntry(sub *store.Submission) scoreboard.Entry {
	e := scoreboard.Entry{SubmissionID: sub.ID, Attempt: sub.Attempt, At: sub.CreatedAt}
	if sub.Final() {
		e.Verdict, e.Score = sub.Verdict, sub.Score
	}
	return e
}

// UpdateBoard merges a contest submission's current state into its
// contest's board and marks the board for publishing. Submissions outside
// contests are ignored.
func (s *Service) UpdateBoard(ctx context.Context, sub *store.Submission) error {
	return s.updateBoard(ctx, s.st, sub, nil)
}

// updateBoard is UpdateBoard reading through st; cases, when not nil, are
// the submission's cases as just written (the feed's judgement needs them;
// nil: read them).
func (s *Service) updateBoard(ctx context.Context, st *store.Store, sub *store.Submission, cases []store.SubmissionCase) error {
	if !sub.ContestID.Valid {
		return nil
	}
	c, err := s.contestFrom(ctx, st, sub.ContestID.Int64)
	if err != nil {
		return fmt.Errorf("judging: board of submission %d: %w", sub.ID, err)
	}
	u := scoreboard.User{ID: sub.UserID, Username: sub.Username, DisplayName: sub.DisplayName}
	changed, err := s.board.ApplyCell(ctx, BoardContest(&c), BoardKey(&c, sub), u, BoardEntry(sub))
	if err != nil {
		return err
	}
	if changed {
		s.markDirty(c.ID)
	}
	return s.feedSubmission(ctx, st, &c, sub, cases) // the Contest API feed (ccsfeed.go)
}

// markDirty has the publisher publish a contest's board: at once, unless
// it was published less than an interval ago (publishPlan).
func (s *Service) markDirty(contestID int64) {
	s.mu.Lock()
	s.plan.mark(contestID)
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// MarkDirty asks the publisher to push a contest's board (after an
// unfreeze, say).
func (s *Service) MarkDirty(contestID int64) {
	s.mu.Lock()
	delete(s.parts, contestID)
	s.mu.Unlock()
	s.markDirty(contestID)
}
