package hub

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/redislock"
)

// noticeLock names the lock held by the hub that computes the notice.
const noticeLock = "queue-notice"

func (h *Hub) noticeLoop(ctx context.Context) {
	t := time.NewTicker(h.cfg.NoticeInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := h.computeNotice(ctx); err != nil && ctx.Err() == nil {
				h.log.Warn("queue notice failed", "err", err)
			}
		case <-h.notice:
			if err := h.pushNotice(ctx); err != nil && ctx.Err() == nil {
				h.log.Warn("queue notice push failed", "err", err)
			}
		}
	}
}

// The queue's trend looks back trendWindow notice intervals and needs
// samples spanning trendMinSpan of them.
const trendWindow, trendMinSpan = 10, 3

// computeNotice reports this hub's capacity and, on the one hub that holds
// the notice lock, decides the global notice: up when the queue is
// overloaded (sched.Overloaded: not empty, no live hub has a judge that
// can take work, and the queue grows faster than it drains over the
// trend window, not on one busy pass); then republished
// every interval with a fresh length and ETA until the queue drains, when
// one final notice with overloaded=false clears it.
func (h *Hub) computeNotice(ctx context.Context) error {
	ttl := 3 * h.cfg.NoticeInterval
	h.mu.Lock()
	sat := h.saturated || len(h.judges) == 0
	h.mu.Unlock()
	now := time.Now()
	satFlag := "0"
	if sat {
		satFlag = "1"
	}
	qlen, err := h.q.Len(ctx)
	if err != nil {
		return err
	}
	leased, err := h.q.Leased(ctx)
	if err != nil {
		return err
	}
	h.m.queueLength.Set(float64(qlen))
	h.m.leased.Set(float64(leased))
	if err := h.cfg.Redis.HSet(ctx, h.n.HubCapacity(), h.cfg.HubID,
		satFlag+":"+strconv.FormatInt(now.Add(ttl).UnixMilli(), 10)).Err(); err != nil {
		return err
	}
	lock, err := redislock.New(h.cfg.Redis, h.n.Lock(noticeLock), h.cfg.HubID, ttl)
	if err != nil {
		return err
	}
	lead, err := lock.Hold(ctx)
	if err != nil || !lead {
		h.trend.Reset() // a trend is the leader's; a new one starts afresh
		return err
	}
	if h.trend.Window == 0 {
		h.trend = sched.QueueTrend{Window: trendWindow * h.cfg.NoticeInterval, MinSpan: trendMinSpan * h.cfg.NoticeInterval}
	}
	h.trend.Add(sched.QueueSample{At: now, Length: qlen})
	caps, err := h.cfg.Redis.HGetAll(ctx, h.n.HubCapacity()).Result()
	if err != nil {
		return err
	}
	allSaturated := true
	for hub, v := range caps {
		flag, exp, ok := strings.Cut(v, ":")
		ms, _ := strconv.ParseInt(exp, 10, 64)
		if !ok || ms < now.UnixMilli() {
			if ms < now.Add(-time.Minute).UnixMilli() {
				h.cfg.Redis.HDel(ctx, h.n.HubCapacity(), hub)
			}
			continue
		}
		if flag == "0" {
			allSaturated = false
		}
	}
	rate, err := h.q.CompletionRate(ctx, h.cfg.ETAWindow)
	if err != nil {
		return err
	}
	growth, trendOK := h.trend.Growth()
	overloaded := sched.Overloaded(sched.NoticeInput{Saturated: allSaturated, Length: qlen, Growth: growth, TrendOK: trendOK, Drain: rate})
	h.mu.Lock()
	wasOn := h.noticeOn
	on := overloaded || (wasOn && qlen > 0)
	h.noticeOn = on
	h.mu.Unlock()
	if !on && !wasOn {
		return nil
	}
	n := protocol.QueueNotice{QueueLength: int(qlen), Overloaded: overloaded}
	if on {
		// The stored notice's ETA is the whole queue's: what a new
		// submission would wait. Each browser gets its own (pushNotice).
		n.ETASeconds = sched.PositionETA(int(qlen), rate)
	}
	if overloaded {
		h.m.overloaded.Set(1)
	} else {
		h.m.overloaded.Set(0)
	}
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	pipe := h.cfg.Redis.TxPipeline()
	if on {
		pipe.Set(ctx, h.n.QueueNotice(), b, ttl)
	} else {
		pipe.Del(ctx, h.n.QueueNotice())
	}
	pipe.Publish(ctx, h.n.Events(string(protocol.ChannelQueue), 0), b)
	_, err = pipe.Exec(ctx)
	if err == nil && on != wasOn {
		h.log.Info("queue notice", "on", on, "queue_length", qlen, "eta_seconds", n.ETASeconds)
	}
	return err
}

// currentNotice reads the notice in force (a zero notice when none is).
func (h *Hub) currentNotice(ctx context.Context) (protocol.QueueNotice, error) {
	var n protocol.QueueNotice
	b, err := h.cfg.Redis.Get(ctx, h.n.QueueNotice()).Bytes()
	if errors.Is(err, redis.Nil) {
		qlen, err := h.q.Len(ctx)
		n.QueueLength = int(qlen)
		return n, err
	}
	if err != nil {
		return n, err
	}
	err = json.Unmarshal(b, &n)
	return n, err
}

// pushNotice sends the notice in force to every browser on the queue
// channel, with the position of the earliest of its watched submissions
// and the ETA of that position (sched.PositionETA; a browser without one
// keeps the whole queue's, a new submission's). Messages are encoded once
// per distinct position.
func (h *Hub) pushNotice(ctx context.Context) error {
	h.mu.Lock()
	var cs []*browserConn
	for c := range h.browsers {
		if c.watchesQueue() {
			cs = append(cs, c)
		}
	}
	h.mu.Unlock()
	if len(cs) == 0 {
		return nil
	}
	n, err := h.currentNotice(ctx)
	if err != nil {
		return err
	}
	rate := -1.0 // the completion rate, read at the first position
	encoded := map[int][]byte{}
	h.m.broadcasts.WithLabelValues(string(protocol.ChannelQueue)).Inc()
	for _, c := range cs {
		pos := 0
		if ids := c.submissionIDs(); len(ids) > 0 {
			ps, err := h.q.Positions(ctx, ids)
			if err != nil {
				return err
			}
			pos = bestPosition(ps)
		}
		b, ok := encoded[pos]
		if !ok {
			m := n
			m.Position = pos
			if pos > 0 && (n.Overloaded || n.ETASeconds > 0) {
				if rate < 0 {
					if rate, err = h.q.CompletionRate(ctx, h.cfg.ETAWindow); err != nil {
						return err
					}
				}
				m.ETASeconds = sched.PositionETA(pos, rate)
			}
			if b, err = protocol.Marshal(protocol.TypeQueue, "", m); err != nil {
				return err
			}
			encoded[pos] = b
		}
		c.enqueue(b)
	}
	return nil
}
