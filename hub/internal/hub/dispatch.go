package hub

import (
	"context"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
)

func (h *Hub) dispatchLoop(ctx context.Context) {
	t := time.NewTicker(h.cfg.DispatchInterval)
	defer t.Stop()
	for {
		h.dispatchIdle.Store(true)
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
		case <-t.C:
		}
		h.dispatchIdle.Store(false)
		if w := h.wokenAt.Swap(0); w != 0 {
			h.m.wakeSeconds.Observe(max(0, time.Since(time.Unix(0, w)).Seconds()))
		}
		for ctx.Err() == nil {
			start := time.Now()
			placed, more, err := h.dispatchOnce(ctx, start)
			if err == nil {
				// Every pass is timed, the ones that placed nothing
				// apart: their Peek holds the dispatcher too, and
				// whatever wakes it meanwhile waits (the scheduling
				// simulator's replay holds its dispatcher as long).
				took := time.Since(start)
				if placed > 0 {
					h.m.passSeconds.Observe(took.Seconds())
				} else {
					h.m.idlePassSeconds.Observe(took.Seconds())
				}
				h.passes.add(start, took, placed)
			}
			if err != nil {
				if ctx.Err() == nil {
					h.log.Warn("dispatch failed", "err", err)
				}
				break
			}
			if !more {
				break
			}
		}
	}
}

// dispatchOnce runs one pass over the head of the queue, started at now.
// It reports how many tasks it placed and whether another pass may place
// more right away.
func (h *Hub) dispatchOnce(ctx context.Context, now time.Time) (placed int, more bool, err error) {
	h.mu.Lock()
	conns := make([]*judgeConn, 0, len(h.judges))
	views := make([]sched.Judge, 0, len(h.judges))
	for _, j := range h.judges {
		if !j.ready || j.closing.Load() {
			continue
		}
		conns = append(conns, j)
		views = append(views, j.view(now))
	}
	h.mu.Unlock()

	tasks, err := h.q.Peek(ctx, h.cfg.PeekWindow)
	if err != nil {
		return 0, false, err
	}
	if len(tasks) == 0 {
		h.setSaturated(false)
		return 0, false, nil
	}
	if len(views) == 0 {
		h.setSaturated(true)
		return 0, false, nil
	}
	// Decide the whole pass first, then take its leases in one round
	// trip: one Redis call per task capped the hub at about 40
	// dispatches a second on a loaded machine (the contest rehearsal).
	type pick struct {
		qt       queue.Queued
		judge    int
		reason   string
		prefetch bool
	}
	ts := make([]sched.Task, len(tasks))
	for i, qt := range tasks {
		t := qt.Task
		ts[i] = sched.Task{
			SubmissionID: t.SubmissionID, ProblemID: t.ProblemID, DataHash: t.TestData.Hash,
			Language: t.Language, Priority: t.Priority.Rank(),
			// A judge without a capability the task needs never gets
			// it (an older agent would misread an input validation).
			Needs: t.Needs(),
			// Redis's clock, for a policy that counts waits from the
			// enqueue (the default keeps its own clock per submission).
			EnqueuedAt: qt.EnqueuedAt,
		}
	}
	// The pass the scheduling simulator runs too (sched.Pass).
	h.policyMu.Lock()
	pass := sched.Pass(now, h.cfg.Policy, ts, views, h.reserve())
	h.policyMu.Unlock()
	busy := pass.Busy
	if pass.Reserved > 0 {
		h.m.reserveHolds.Add(float64(pass.Reserved))
	}
	var holds map[sched.Hold]int
	for i, why := range pass.Holds {
		if why != sched.HoldNone {
			if holds == nil {
				holds = map[sched.Hold]int{}
			}
			holds[why]++
			h.held.add(tasks[i].Task.SubmissionID, tasks[i].EnqueuedAt, why, now)
		}
	}
	for why, n := range holds {
		h.m.holds.WithLabelValues(why.String()).Add(float64(n))
	}
	picks := make([]pick, 0, len(pass.Placed))
	for _, p := range pass.Placed {
		picks = append(picks, pick{qt: tasks[p.Task], judge: p.Judge, reason: p.Reason, prefetch: p.Prefetch})
	}
	reqs := make([]queue.LeaseRequest, len(picks))
	for i, p := range picks {
		reqs[i] = queue.LeaseRequest{Ref: p.qt.Task.TaskRef, Judge: conns[p.judge].id}
	}
	_, leased, err := h.q.LeaseMany(ctx, reqs, h.cfg.LeaseTimeout)
	if err != nil {
		return 0, false, err
	}
	for i, p := range picks {
		if !leased[i] {
			continue // another hub took it, or a rejudge replaced it
		}
		t, j := p.qt.Task, conns[p.judge]
		// The pass's start, or the enqueue if that came later (a pass
		// takes its clock before it reads the queue).
		t.DispatchedMs = now.UnixMilli()
		if !p.qt.EnqueuedAt.IsZero() {
			t.EnqueuedMs = p.qt.EnqueuedAt.UnixMilli()
			t.DispatchedMs = max(t.DispatchedMs, t.EnqueuedMs)
			if read, ok := h.noticed.take(t.SubmissionID, p.qt.EnqueuedAt); ok {
				t.NoticedMs = read.UnixMilli()
			}
			t.Held = h.held.take(t.SubmissionID, p.qt.EnqueuedAt)
		}
		b, err := protocol.Marshal(protocol.TypeTask, "", t)
		if err != nil { // cannot happen for a task that passed Enqueue
			h.log.Error("encode task", obs.SubmissionID(t.SubmissionID), "err", err)
			_ = h.q.Release(ctx, t.TaskRef, j.id)
			continue
		}
		h.mu.Lock()
		ok := !j.closing.Load() && j.enqueue(b)
		if ok {
			j.assigned[t.SubmissionID] = &assignment{attempt: t.Attempt, user: p.qt.UserID, contest: p.qt.ContestID, at: now,
				problem: t.ProblemID, language: t.Language, hash: t.TestData.Hash}
		}
		h.mu.Unlock()
		if !ok {
			_ = h.q.Release(ctx, t.TaskRef, j.id)
			continue
		}
		if t.TestData.Hash != "" { // a custom run carries no test data
			j.addData(t.TestData.Hash)
		}
		placed++
		h.m.dispatches.WithLabelValues(j.id).Inc()
		h.m.waitSeconds.Observe(max(0, now.Sub(p.qt.EnqueuedAt).Seconds()))
		j.log.Debug("task dispatched", obs.SubmissionID(t.SubmissionID), obs.Attempt(t.Attempt), "reason", p.reason)
		if p.prefetch && t.TestData.Hash != "" {
			h.prefetch(t)
		}
	}
	h.setSaturated(busy)
	return placed, placed > 0 && pass.Again(h.cfg.PeekWindow), nil
}

// prefetch sends a hot problem's test data to every judge that lacks it.
// The task's URL may be empty: the judge then uses its default.
func (h *Hub) prefetch(t protocol.Task) {
	b, err := protocol.Marshal(protocol.TypePrefetch, "", protocol.Prefetch{ProblemID: t.ProblemID, TestData: t.TestData})
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, j := range h.judges {
		if j.addData(t.TestData.Hash) {
			j.enqueue(b)
			j.prefetchSent[t.TestData.Hash] = time.Now()
			h.m.prefetches.Inc()
		}
	}
}

func (h *Hub) setSaturated(v bool) {
	h.mu.Lock()
	h.saturated = v
	h.mu.Unlock()
}

func (h *Hub) reapLoop(ctx context.Context) {
	t := time.NewTicker(h.cfg.ReapInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for ctx.Err() == nil {
			exp, err := h.q.Reap(ctx, 100)
			if err != nil {
				if ctx.Err() == nil {
					h.log.Warn("reap failed", "err", err)
				}
				break
			}
			for _, e := range exp {
				h.onExpired(ctx, e)
			}
			if len(exp) < 100 {
				break
			}
		}
	}
}

func (h *Hub) onExpired(ctx context.Context, e queue.Expired) {
	var lost *assignment
	h.mu.Lock()
	for _, j := range h.judges {
		if a := j.assigned[e.Ref.SubmissionID]; a != nil && (a.attempt < e.Ref.Attempt || !e.Requeued) {
			delete(j.assigned, e.Ref.SubmissionID)
			if j.id == e.Judge {
				lost = a
			}
		}
	}
	h.mu.Unlock()
	o := sched.Outcome{Judge: e.Judge, Failed: true, Task: sched.Task{SubmissionID: e.Ref.SubmissionID}}
	if lost != nil {
		o.Task.ProblemID, o.Task.Language, o.Latency = lost.problem, lost.language, time.Since(lost.at)
	}
	h.observe(o)
	log := h.log.With(obs.SubmissionID(e.Ref.SubmissionID), obs.Attempt(e.Ref.Attempt), obs.JudgeID(e.Judge))
	u := queue.SubmissionUpdate{SubmissionID: e.Ref.SubmissionID, Attempt: e.Ref.Attempt, Owner: e.UserID, Guard: queue.GuardAttempt}
	if e.Requeued {
		h.m.leaseExpiries.WithLabelValues("requeued").Inc()
		log.Warn("lease expired; requeued")
		u.Status = protocol.VerdictQueued
		h.wakeDispatcher()
	} else {
		h.m.leaseExpiries.WithLabelValues("system_error").Inc()
		log.Error("lease expired on the last attempt; system error")
		u.Status = protocol.VerdictSE
	}
	if protocol.IsCustomRun(e.Ref.SubmissionID) {
		return // not a submission: Reap told its owner of a failure
	}
	if _, err := h.q.PublishSubmission(ctx, u); err != nil {
		log.Warn("publish expiry failed", "err", err)
		if u.Status.Final() { // the system error: published again (republish.go)
			h.finals.add([]queue.SubmissionUpdate{u}, time.Now())
		}
	}
}

// reserve is the dispatch pass's sched.Reserve (sched.RejudgeReserve): rejudges
// leave cfg.Reserve of the judges' slots free.
func (h *Hub) reserve() sched.Reserve {
	return sched.RejudgeReserve(h.cfg.Reserve)
}
