package judging

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/verdict-oj/verdict/internal/feedback"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// The status page and the jury's tools: who may list which submissions,
// who may read their source, and the hand-set verdict.

// ListFilter selects submissions for ListSubmissions; zero fields do not
// filter. Before is the cursor (ids below it), Limit caps the page
// (1 to MaxListLimit; 0: DefaultListLimit).
type ListFilter struct {
	UserID, ProblemID, ContestID int64
	Verdict, Language            string
	Before                       int64
	Limit                        int
}

// Page sizes of ListSubmissions.
const (
	DefaultListLimit = 50
	MaxListLimit     = 100
)

// Listed is one row of a list with what its viewer may see of it.
type Listed struct {
	Sub   store.Submission
	Shown feedback.Shown
}

// CanSee reports whether u (nil: not logged in) may list sub at all:
// staff every submission; others their own, practice submissions of
// public problems, and submissions of a visible contest whose status page
// shows everyone's verdicts (store.StatusAll). The store's Restricted
// filter is the same rule in SQL.
func CanSee(u *store.User, sub *store.Submission) bool {
	if u != nil && (u.IsStaff() || u.ID == sub.UserID) {
		return true
	}
	if !sub.ContestID.Valid {
		return sub.Visibility == store.VisibilityPublic
	}
	return statusPublic(sub)
}

// CanReadCode reports whether u may read sub's source: its owner and
// staff. The status page never shows another contestant's code.
func CanReadCode(u *store.User, sub *store.Submission) bool {
	return u != nil && (u.IsStaff() || u.ID == sub.UserID)
}

// statusPublic: a contest submission everyone may list (RuleOf puts it in
// the feedback rule for the hub).
func statusPublic(sub *store.Submission) bool {
	return sub.ContestID.Valid && sub.ContestVisible.Valid && sub.ContestVisible.Bool &&
		sub.ContestStatusVisibility.String == store.StatusAll
}

// ListSubmissions returns a page of the submissions f selects that u may
// see, newest first, each through the feedback policy (judging.Visible):
// no row reaches a viewer who is not staff unfiltered. next is the cursor
// of the following page, 0 when this one is the last.
func (s *Service) ListSubmissions(ctx context.Context, u *store.User, f ListFilter) (rows []Listed, next int64, err error) {
	if f.Limit <= 0 {
		f.Limit = DefaultListLimit
	}
	f.Limit = min(f.Limit, MaxListLimit)
	sf := store.SubmissionFilter{UserID: f.UserID, ProblemID: f.ProblemID, ContestID: f.ContestID,
		Verdict: f.Verdict, Language: f.Language, Before: f.Before, Limit: f.Limit}
	if u == nil || !u.IsStaff() {
		sf.Restricted = true
		if u != nil {
			sf.Viewer = u.ID
		}
	}
	subs, err := s.st.ListSubmissions(ctx, sf)
	if err != nil {
		return nil, 0, fmt.Errorf("judging: list submissions: %w", err)
	}
	now := s.cfg.Now()
	rows = make([]Listed, 0, len(subs))
	for i := range subs {
		sub := &subs[i]
		if !CanSee(u, sub) { // the SQL said so already; never trust one place alone
			continue
		}
		rows = append(rows, Listed{Sub: *sub, Shown: Visible(RuleOf(sub), ViewerOf(u, sub), now, sub, nil)})
	}
	if len(subs) == f.Limit {
		next = subs[len(subs)-1].ID
	}
	return rows, next, nil
}

// StatusChannel is the live channel a status page listing f should watch
// for u: staff the contest's status channel or the site's; others the
// contest's when it lists everyone's verdicts, the site's when the page
// lists no contest (the hub forwards them only the submissions everyone
// may list: practice on public problems, contests that list everyone's
// verdicts; their own others come on their user channel, which the page
// watches too), else their own user channel; anonymous visitors none (ok
// false). c is f's contest, if any.
func StatusChannel(u *store.User, c *store.Contest) (protocol.Channel, bool) {
	switch {
	case u == nil:
		return protocol.Channel{}, false
	case c != nil && (u.IsStaff() || (c.Visible && c.StatusVisibility == store.StatusAll)):
		return protocol.Channel{Kind: protocol.ChannelStatus, ID: c.ID}, true
	case u.IsStaff() || c == nil:
		return protocol.Channel{Kind: protocol.ChannelStatus, ID: 0}, true
	}
	return protocol.Channel{Kind: protocol.ChannelUser, ID: u.ID}, true
}

// MaxReasonChars bounds an override's reason.
const MaxReasonChars = 1000

// Override errors: each names what was wrong, for the caller to report by
// field.
var (
	ErrOverrideVerdict = errors.New("judging: an override sets a final verdict (AC, WA, TLE, MLE, OLE, RE, CE, PE, SE)")
	ErrOverrideScore   = errors.New("judging: an override's score must be a finite number from 0 to 100")
	ErrOverrideReason  = fmt.Errorf("judging: an override needs a reason of 1 to %d characters", MaxReasonChars)
)

// Override sets a judged submission's verdict (and score) by hand, for
// the rare checker bug: the store records who, when, old → new and the
// reason; the scoreboard and the live channels follow. score nil keeps
// the score unless the verdict changes between AC and anything else (an
// AC is worth 100, anything else 0, as a judge scores a one-case
// problem); give it for an IOI problem's partial score. A later rejudge
// replaces the verdict (the record stays).
func (s *Service) Override(ctx context.Context, by *store.User, id int64, verdict string, score *float64, reason string) (store.Submission, error) {
	v := protocol.Verdict(verdict)
	if !v.Valid() || !v.Final() || v == protocol.VerdictSkipped {
		return store.Submission{}, ErrOverrideVerdict
	}
	reason = strings.TrimSpace(reason)
	if reason == "" || utf8.RuneCountInString(reason) > MaxReasonChars || !utf8.ValidString(reason) {
		return store.Submission{}, ErrOverrideReason
	}
	if score != nil && (math.IsNaN(*score) || *score < 0 || *score > 100) {
		return store.Submission{}, ErrOverrideScore
	}
	cur, err := s.st.SubmissionByID(ctx, id)
	if err != nil {
		return store.Submission{}, err
	}
	sc := cur.Score
	switch {
	case score != nil:
		sc = *score
	case v == protocol.VerdictAC && cur.Verdict != string(protocol.VerdictAC):
		sc = 100
	case v != protocol.VerdictAC && cur.Verdict == string(protocol.VerdictAC):
		sc = 0
	}
	sub, err := s.st.OverrideVerdict(ctx, id, by.ID, verdict, sc, reason)
	if err != nil {
		return store.Submission{}, fmt.Errorf("judging: override %d: %w", id, err)
	}
	log := s.log.With(obs.SubmissionID(id), "user_id", by.ID)
	log.Info("verdict overridden", "old", cur.Verdict, "new", verdict, "old_score", cur.Score, "score", sc)
	if sub.ContestID.Valid {
		// A board cell takes a new entry only for a later attempt (or the
		// verdict of a pending one): the cell is rebuilt from MySQL.
		if err := s.reapplyCell(ctx, &sub); err != nil {
			log.Warn("scoreboard update after an override failed", obs.Err(err))
		}
		if err := s.feedChanged(ctx, &sub); err != nil { // the Contest API feed (ccsfeed.go)
			log.Warn("the override did not reach the contest's event feed", obs.Err(err))
		}
	}
	// The live state follows (the submission, its owner's and the status
	// channels); the rule kept with it stays.
	var contest int64
	if sub.ContestID.Valid {
		contest = sub.ContestID.Int64
	}
	if _, err := s.q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: id, Attempt: sub.Attempt,
		Owner: sub.UserID, Contest: contest, Status: v, Score: sc, CompileMessage: sub.CompileMessage.String,
		Guard: queue.GuardNone}); err != nil {
		log.Warn("live state after an override not published", obs.Err(err))
	}
	return sub, nil
}

// reapplyCell rebuilds the board cell of sub's user (team) and problem from the
// contest's submissions in MySQL. The cell is forgotten before MySQL is
// read, so a result applied meanwhile is either read or applied after.
func (s *Service) reapplyCell(ctx context.Context, sub *store.Submission) error {
	c, err := s.contest(ctx, sub.ContestID.Int64)
	if err != nil {
		return err
	}
	key := BoardKey(&c, sub)
	if err := s.board.ForgetCell(ctx, c.ID, key); err != nil {
		return err
	}
	subs, err := s.st.ContestSubmissions(ctx, c.ID)
	if err != nil {
		return err
	}
	for i := range subs {
		if o := &subs[i]; BoardKey(&c, o) == key {
			u := scoreboard.User{ID: o.UserID, Username: o.Username, DisplayName: o.DisplayName}
			if _, err := s.board.ApplyCell(ctx, BoardContest(&c), key, u, BoardEntry(o)); err != nil {
				return err
			}
		}
	}
	s.MarkDirty(c.ID)
	return nil
}
