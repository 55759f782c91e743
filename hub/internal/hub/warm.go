package hub

import (
	"context"
	"errors"
	"maps"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/hub/internal/warm"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/warmplan"
)

// warmLoop keeps the judges warm for the contests of the warm plan: every
// WarmInterval (and when the plan changes) it reads the plan, and on every
// pass — also when a judge connects or reports a prefetch — it sends the
// prefetches warm.Plan asks for and writes this hub's warm status.
func (h *Hub) warmLoop(ctx context.Context) {
	t := time.NewTicker(h.cfg.WarmInterval)
	defer t.Stop()
	read := true
	for {
		if read {
			h.readWarmPlan(ctx)
		}
		h.warmOnce(ctx, time.Now())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			read = true
		case <-h.warmRead:
			read = true
		case <-h.warmKick:
			read = false
		}
	}
}

// readWarmPlan replaces the plan with the one in Redis. No plan is an
// empty plan; on a Redis error or an undecodable plan the last one stays
// (a contest's window is in it, so a stale plan only warms what was due).
func (h *Hub) readWarmPlan(ctx context.Context) {
	b, err := h.cfg.Redis.Get(ctx, h.n.WarmPlan()).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		h.warmPlan = warmplan.Plan{}
		return
	case err != nil:
		if ctx.Err() == nil {
			h.log.Warn("cannot read the warm plan", "err", err)
		}
		return
	}
	p, err := warmplan.Decode(b)
	if err != nil {
		h.log.Warn("bad warm plan", "err", err)
		return
	}
	h.warmPlan = p
}

// warmOnce runs one planning pass at now.
func (h *Hub) warmOnce(ctx context.Context, now time.Time) {
	h.mu.Lock()
	conns := make([]*judgeConn, 0, len(h.judges))
	views := make([]warm.Judge, 0, len(h.judges))
	for _, j := range h.judges {
		if j.closing.Load() || j.draining {
			continue
		}
		holds := maps.Clone(j.holds)
		conns = append(conns, j)
		views = append(views, warm.Judge{ID: j.id, Has: func(hash string) bool { return holds[hash] },
			Sent: maps.Clone(j.prefetchSent), Failed: maps.Clone(j.prefetchFailed)})
	}
	h.mu.Unlock()

	res := warm.Plan(warm.Config{Before: h.cfg.WarmBefore}, h.warmPlan, now, views)
	for _, p := range res.Prefetches {
		j := conns[p.Judge]
		b, err := protocol.Marshal(protocol.TypePrefetch, "", protocol.Prefetch{ProblemID: p.ProblemID, TestData: p.TestData})
		if err != nil {
			h.log.Warn("bad prefetch from the warm plan", "problem_id", p.ProblemID, "err", err)
			continue
		}
		h.mu.Lock()
		if !j.closing.Load() && j.enqueue(b) {
			j.prefetchSent[p.TestData.Hash] = now
			h.m.warmPrefetches.Inc()
			j.log.Debug("warming", "problem_id", p.ProblemID, "data_hash", p.TestData.Hash)
		}
		h.mu.Unlock()
	}

	st, err := warmplan.EncodeStatus(warmplan.HubStatus{Hub: h.cfg.HubID, ExpiresAt: now.Add(3 * h.cfg.WarmInterval), Contests: res.Contests})
	if err != nil {
		h.log.Error("encode warm status", "err", err)
		return
	}
	pipe := h.cfg.Redis.Pipeline()
	pipe.HSet(ctx, h.n.WarmStatus(), h.cfg.HubID, st)
	pipe.PExpire(ctx, h.n.WarmStatus(), 3*h.cfg.WarmInterval)
	if _, err := pipe.Exec(ctx); err != nil && ctx.Err() == nil {
		h.log.Warn("cannot write the warm status", "err", err)
	}
}

// notePrefetched records a judge's prefetch reports. Callers hold h.mu.
func (h *Hub) notePrefetched(j *judgeConn, outs []protocol.PrefetchOutcome, now time.Time) {
	for _, o := range outs {
		delete(j.prefetchSent, o.Hash)
		if o.Error != "" {
			j.prefetchFailed[o.Hash] = now
			h.m.warmReports.WithLabelValues("failed").Inc()
			j.log.Info("prefetch failed on the judge", "data_hash", o.Hash, "err", o.Error)
			continue
		}
		delete(j.prefetchFailed, o.Hash)
		j.holds[o.Hash] = true
		j.addData(o.Hash)
		h.m.warmReports.WithLabelValues("cached").Inc()
	}
	if len(outs) > 0 {
		signal(h.warmKick)
	}
}
