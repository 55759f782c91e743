package judging

import (
	"context"
	"fmt"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/warmplan"
)

// DefaultWarmPlanInterval is how often a web node rewrites the warm plan
// when nothing changed (so a Redis that lost it heals).
const DefaultWarmPlanInterval = 10 * time.Second

// TestData is a problem's test data with this hash as its tasks carry it
// (and so as judges prefetch it): the URL from Config.TestdataURL, or none.
func (s *Service) TestData(hash string) protocol.TestData {
	td := protocol.TestData{Hash: hash}
	if s.cfg.TestdataURL != "" && hash != "" {
		td.URL = s.cfg.TestdataURL + hash
	}
	return td
}

// WarmPlan builds the warm plan at now from MySQL: every contest that has
// not ended and starts within warmplan.Horizon, with its problems' current
// test data.
func (s *Service) WarmPlan(ctx context.Context, now time.Time) (warmplan.Plan, error) {
	cs, err := s.st.WarmContests(ctx, now, now.Add(warmplan.Horizon))
	if err != nil {
		return warmplan.Plan{}, fmt.Errorf("judging: warm plan: %w", err)
	}
	p := warmplan.Plan{GeneratedAt: now.UTC(), Contests: make([]warmplan.Contest, 0, len(cs))}
	for _, c := range cs {
		wc := warmplan.Contest{ID: c.ID, Slug: c.Slug, Start: c.StartAt.UTC(), End: c.EndAt.UTC(),
			Problems: make([]warmplan.Problem, 0, len(c.Problems))}
		for _, pr := range c.Problems {
			wc.Problems = append(wc.Problems, warmplan.Problem{ID: pr.ID, TestData: s.TestData(pr.Hash)})
		}
		p.Contests = append(p.Contests, wc)
	}
	return p, nil
}

// PublishWarmPlan writes the warm plan to rkeys.WarmPlan (with
// warmplan.TTL) and, when announce, tells the hubs on
// rkeys.WarmPlanChanged.
func (s *Service) PublishWarmPlan(ctx context.Context, announce bool) error {
	p, err := s.WarmPlan(ctx, s.cfg.Now())
	if err != nil {
		return err
	}
	b, err := warmplan.Encode(p)
	if err != nil {
		return fmt.Errorf("judging: %w", err)
	}
	if err := s.rdb.Set(ctx, s.n.WarmPlan(), b, warmplan.TTL).Err(); err != nil {
		return fmt.Errorf("judging: write the warm plan: %w", err)
	}
	if announce {
		if err := s.rdb.Publish(ctx, s.n.WarmPlanChanged(), "").Err(); err != nil {
			return fmt.Errorf("judging: announce the warm plan: %w", err)
		}
	}
	return nil
}

// WarmPlanChanged asks this node to rewrite the warm plan now and tell the
// hubs (a contest, a problem or its test data changed).
func (s *Service) WarmPlanChanged() {
	select {
	case s.warmKick <- struct{}{}:
	default:
	}
}

// RunWarmPlan keeps the warm plan in Redis until ctx ends: at start, every
// WarmPlanInterval, and at once after WarmPlanChanged.
func (s *Service) RunWarmPlan(ctx context.Context) {
	t := time.NewTicker(s.cfg.WarmPlanInterval)
	defer t.Stop()
	announce := true
	for {
		if err := s.PublishWarmPlan(ctx, announce); err != nil && ctx.Err() == nil {
			s.log.Warn("warm plan not published", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			announce = false
		case <-s.warmKick:
			announce = true
		}
	}
}

// WarmStatus merges the hubs' warm statuses (rkeys.WarmStatus) at now:
// per contest that has not ended, how many connected judges are warm.
func (s *Service) WarmStatus(ctx context.Context, now time.Time) ([]warmplan.ContestStatus, error) {
	m, err := s.rdb.HGetAll(ctx, s.n.WarmStatus()).Result()
	if err != nil {
		return nil, fmt.Errorf("judging: read the warm status: %w", err)
	}
	hubs := make([]warmplan.HubStatus, 0, len(m))
	for field, v := range m {
		st, err := warmplan.DecodeStatus([]byte(v))
		if err != nil {
			s.log.Warn("bad warm status", "hub_id", field, "err", err)
			continue
		}
		hubs = append(hubs, st)
	}
	return warmplan.Merge(now, hubs), nil
}
