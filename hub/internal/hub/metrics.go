package hub

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verdict-oj/verdict/internal/obs"
)

type metrics struct {
	queueLength       prometheus.Gauge
	leased            prometheus.Gauge
	waitSeconds       prometheus.Histogram
	passSeconds       prometheus.Histogram
	idlePassSeconds   prometheus.Histogram
	wakeSeconds       prometheus.Histogram
	noticeSeconds     prometheus.Histogram
	judgeMessageWait  prometheus.Histogram
	resultSlot        prometheus.Histogram
	dispatches        *prometheus.CounterVec
	leaseExpiries     *prometheus.CounterVec
	results           *prometheus.CounterVec
	judges            prometheus.Gauge
	browsers          prometheus.Gauge
	droppedClients    *prometheus.CounterVec
	overloaded        prometheus.Gauge
	subscriptions     prometheus.Gauge
	broadcasts        *prometheus.CounterVec
	boardPushes       *prometheus.CounterVec
	fullPushes        *prometheus.CounterVec
	boardReadFailures prometheus.Counter
	resyncs           prometheus.Counter
	resyncSnapshots   prometheus.Counter
	republished       *prometheus.CounterVec
	prefetches        prometheus.Counter
	judgeConnections  *prometheus.CounterVec
	cancels           prometheus.Counter
	warmPrefetches    prometheus.Counter
	warmReports       *prometheus.CounterVec
	reserveHolds      prometheus.Counter
	holds             *prometheus.CounterVec
	reserve           prometheus.Gauge

	browserReadWaits       prometheus.Counter
	browserReadWaitSeconds prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		queueLength: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "verdict_hub_queue_length", Help: "Tasks waiting in the judge queue (sampled every notice interval)."}),
		leased: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "verdict_hub_leased_tasks", Help: "Tasks leased to judges (sampled every notice interval)."}),
		waitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: obs.HubQueueWaitSeconds, Help: "Time from enqueue (Redis's clock) to the start of the dispatch pass that placed the task, per dispatch by this hub.",
			Buckets: []float64{.01, .05, .1, .25, .5, 1, 2, 5, 10, 30, 60, 120, 300}}),
		passSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: obs.HubDispatchPassSeconds, Help: "Time from the start of a dispatch pass that placed tasks (Peek, decisions) to its last task handed to a judge's socket (leases taken).",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .25, .5, 1}}),
		idlePassSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: obs.HubDispatchIdlePassSeconds, Help: "Time from the start of a dispatch pass that placed nothing (the queue empty, no judge ready, or no free slot for the head of the queue) to its end: the dispatcher is held as long.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .25, .5, 1}}),
		wakeSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: obs.HubDispatchWakeSeconds, Help: "Time from a wake (a queue change, a freed slot) that found the dispatcher idle to the start of the pass it started: the dispatcher's wait for a core.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .25, .5, 1, 2.5, 5}}),
		noticeSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: obs.HubQueueNoticeSeconds, Help: "Time from an enqueue (Redis's clock) to its notice read by this hub (Redis pub/sub): the way of the wake that dispatches a new task.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .25, .5, 1, 2.5, 5}}),
		judgeMessageWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: obs.HubJudgeMessageWaitSeconds, Help: "Time from a judge's message read off its socket to its handling (progress and results wait behind the ones before them).",
			Buckets: []float64{.001, .005, .01, .05, .1, .25, .5, 1, 2.5, 5, 10}}),
		resultSlot: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: obs.HubResultSlotSeconds, Help: "Time from a judge's result sent (its sent_ms, the judge's clock; else read off its socket) to its slot free in the hub's accounting (once its handler reaches it).",
			Buckets: []float64{.001, .005, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}),
		dispatches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_hub_dispatches_total", Help: "Tasks pushed to judges, by judge."}, []string{"judge"}),
		leaseExpiries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_hub_lease_expiries_total", Help: "Leases that expired, by outcome (requeued or system_error)."}, []string{"outcome"}),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_hub_results_total", Help: "Judge results received, by outcome (recorded; again: recorded by an earlier send, its ack crossed or its answer lost; stale)."}, []string{"outcome"}),
		judges: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "verdict_hub_judges_connected", Help: "Judges connected to this hub."}),
		browsers: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: obs.HubBrowsersConnected, Help: "Browsers connected to this hub."}),
		droppedClients: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: obs.HubDroppedClients, Help: "Browser connections closed by the hub, by reason."}, []string{"reason"}),
		overloaded: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "verdict_hub_overloaded", Help: "1 while the overload notice is up."}),
		subscriptions: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "verdict_hub_subscriptions", Help: "Live channel subscriptions of browsers on this hub."}),
		broadcasts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_hub_broadcasts_total", Help: "Messages fanned out to browsers (each encoded once), by channel kind."}, []string{"kind"}),
		boardPushes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_hub_scoreboard_pushes_total", Help: "Scoreboard pushes to a contest's browsers, by form: delta (changed rows) or full (the whole board)."}, []string{"form"}),
		fullPushes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_hub_scoreboard_full_pushes_total", Help: "Whole-board pushes, by why a delta could not say it: first (no board held yet) or rule (the rule changed; until 2026-12-05 also rule_or_freeze: the freeze too; until 2026-12-08 also row_left: a contestant left the board, now a delta's left)."}, []string{"reason"}),
		republished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_hub_finals_republished_total",
			Help: "Final live states whose publish failed after their result was completed, by outcome: published (again, later) or dropped (not within the bound; the owner reads the verdict from the web nodes)."}, []string{"outcome"}),
		resyncs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_hub_browser_resyncs_total",
			Help: "Times the browsers' pub/sub connection came back after a loss and the browsers' channels were brought up to date.",
		}),
		resyncSnapshots: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_hub_resync_snapshots_total",
			Help: "Subscriptions a resync read a fresh snapshot for: those whose channel moved while the pub/sub was away, the site's status channel's, and every one of a batch whose sequence numbers could not be read.",
		}),
		boardReadFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_hub_scoreboard_read_failures_total", Help: "Reads of a contest's board for a push that failed (each is read again a coalesce interval later)."}),
		prefetches: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_hub_prefetches_total", Help: "Prefetch messages sent to judges for hot problems."}),
		judgeConnections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_hub_judge_connections_total", Help: "Judge connection attempts, by outcome."}, []string{"outcome"}),
		cancels: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_hub_cancels_total", Help: "Attempts withdrawn from judges that still ran them without holding the lease."}),
		warmPrefetches: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_hub_warm_prefetches_total", Help: "Prefetch messages sent to judges to warm them before a contest."}),
		warmReports: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_hub_prefetch_reports_total", Help: "Prefetch outcomes judges reported, by outcome (cached or failed)."}, []string{"outcome"}),
		reserveHolds: prometheus.NewCounter(prometheus.CounterOpts{
			Name: obs.HubReserveHolds, Help: "Rejudge tasks a dispatch pass held to keep the reserve of slots free for contest, practice and custom-run work (--dispatch-reserve), each counted once per pass that held it."}),
		holds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: obs.HubDispatchHolds, Help: "Tasks the dispatch passes held, by reason (busy: every judge that could run it full; no_judge: none runs it; affinity: a judge free, the policy waiting for one holding its test data; reserve: a rejudge held for the reserve), each counted once per pass that held it."}, []string{"reason"}),
		reserve: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: obs.HubDispatchReserve, Help: "The share of the judges' slots rejudges leave free for contest, practice and custom-run work (--dispatch-reserve; 0: none)."}),
		browserReadWaits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: obs.HubBrowserReadWaits, Help: "Browsers' Redis reads (session reads, subscription snapshots) that waited for one of the --browser-reads slots."}),
		browserReadWaitSeconds: prometheus.NewCounter(prometheus.CounterOpts{
			Name: obs.HubBrowserReadWaitSeconds, Help: "Time browsers' Redis reads waited for one of the --browser-reads slots."}),
	}
	for _, c := range []prometheus.Collector{m.queueLength, m.leased, m.waitSeconds, m.passSeconds, m.idlePassSeconds, m.wakeSeconds, m.noticeSeconds, m.judgeMessageWait, m.resultSlot, m.dispatches, m.leaseExpiries,
		m.results, m.judges, m.browsers, m.droppedClients, m.overloaded, m.subscriptions, m.broadcasts, m.boardPushes, m.fullPushes,
		m.boardReadFailures, m.resyncs, m.resyncSnapshots, m.republished, m.prefetches, m.judgeConnections, m.cancels, m.warmPrefetches, m.warmReports, m.reserveHolds, m.holds, m.reserve,
		m.browserReadWaits, m.browserReadWaitSeconds} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("hub: register metrics: %w", err)
		}
	}
	return m, nil
}
