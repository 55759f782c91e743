package judging

import (
	"context"
	"encoding/json"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// balloonSolved tells a contest's balloon pages (protocol.ChannelBalloons,
// staff only) that sub was accepted, once its result is in MySQL and on
// the board: the page reads the list again (GET
// /api/contests/{slug}/balloons), which decides whether it is a new
// balloon. Best effort: a page that misses it sees the balloon on its
// next read.
func (s *Service) balloonSolved(ctx context.Context, sub *store.Submission) {
	if !sub.ContestID.Valid || sub.Verdict != string(protocol.VerdictAC) {
		return
	}
	body, err := json.Marshal(protocol.BalloonChange{ContestID: sub.ContestID.Int64, What: "solved", SubmissionID: sub.ID})
	if err != nil {
		return
	}
	state, _ := json.Marshal(map[string]int64{"changed_ms": s.cfg.Now().UnixMilli()})
	ch := protocol.Channel{Kind: protocol.ChannelBalloons, ID: sub.ContestID.Int64}
	if _, err := s.q.PublishDoc(ctx, ch, protocol.EventBalloon, body, state); err != nil {
		s.log.Warn("balloon change not published", obs.SubmissionID(sub.ID), obs.Err(err))
	}
}
