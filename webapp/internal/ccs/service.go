package ccs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Boards assembles scoreboard documents (judging.Service).
type Boards interface {
	Scoreboard(ctx context.Context, c *store.Contest, public bool) (scoreboard.Doc, error)
}

// Service answers the Contest API's reads from MySQL, the boards and the
// feed stream.
type Service struct {
	St     *store.Store
	Boards Boards
	Feed   *Feed
	// LanguageNames are the languages offered (judging.LanguageNames).
	LanguageNames map[string]string
}

// ErrNotFound: no such contest or object (for this viewer).
var ErrNotFound = errors.New("ccs: not found")

// Viewer is who reads: staff see everything, the public what the
// scoreboard shows (no source files, no outcomes the freeze holds back).
type Viewer struct {
	Staff bool
}

// Contest resolves a CLICS contest id (ContestID: a slug, or a numeric id
// for a slug that is no identifier) for a viewer: hidden contests are
// staff's.
func (s *Service) Contest(ctx context.Context, id string, v Viewer) (store.Contest, error) {
	c, err := s.St.ContestBySlug(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		if n, perr := strconv.ParseInt(id, 10, 64); perr == nil {
			c, err = s.St.ContestByID(ctx, n)
		}
	}
	if errors.Is(err, store.ErrNotFound) || (err == nil && (ContestID(&c) != id || (!c.Visible && !v.Staff))) {
		return store.Contest{}, fmt.Errorf("%w: contest %q", ErrNotFound, id)
	}
	return c, err
}

// Contests lists the contests a viewer may see.
func (s *Service) Contests(ctx context.Context, v Viewer) ([]Contest, error) {
	cs, err := s.St.ListContests(ctx, v.Staff)
	if err != nil {
		return nil, err
	}
	out := make([]Contest, 0, len(cs))
	for i := range cs {
		if cs[i].Visible || v.Staff {
			out = append(out, ContestObject(&cs[i]))
		}
	}
	return out, nil
}

// started: before the start the public sees no problems, submissions or
// results.
func started(c *store.Contest, v Viewer, now time.Time) bool {
	return v.Staff || !now.Before(c.StartAt)
}

// Languages lists the languages.
func (s *Service) Languages() []Language { return Languages(s.LanguageNames) }

// Problems lists a contest's problems in label order.
func (s *Service) Problems(ctx context.Context, c *store.Contest, v Viewer, now time.Time) ([]Problem, error) {
	out := []Problem{}
	if !started(c, v, now) {
		return out, nil
	}
	cps, err := s.St.ContestProblems(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	colors, err := s.St.ContestProblemColors(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	for i := range cps {
		p, err := s.St.ProblemByID(ctx, cps[i].ProblemID)
		if err != nil {
			return nil, err
		}
		cases := 0
		if p.TestdataHash.Valid {
			if cases, err = s.St.CaseCount(ctx, p.ID, p.TestdataHash.String); err != nil {
				return nil, err
			}
		}
		po := ProblemObject(c, &cps[i], i+1, p.TimeLimitMs, cases)
		if col, ok := colors[cps[i].ProblemID]; ok {
			po.Color, po.RGB = &col.Color, &col.RGB
		}
		out = append(out, po)
	}
	return out, nil
}

// Teams lists a contest's registered users as teams.
func (s *Service) Teams(ctx context.Context, c *store.Contest) ([]Team, error) {
	ps, err := s.St.ContestParticipants(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	out := make([]Team, 0, len(ps))
	for _, p := range ps {
		out = append(out, TeamObject(p.UserID, p.Username, p.DisplayName))
	}
	slices.SortFunc(out, func(a, b Team) int { return cmpID(a.ID, b.ID) })
	return out, nil
}

func cmpID(a, b string) int {
	x, _ := strconv.ParseInt(a, 10, 64)
	y, _ := strconv.ParseInt(b, 10, 64)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// submissions are a contest's submissions of registered users (a team
// contest's: of its teams, teamSubmissions).
func (s *Service) submissions(ctx context.Context, c *store.Contest, v Viewer) ([]store.Submission, error) {
	subs, err := s.St.ContestSubmissions(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if c.TeamMode {
		return s.teamSubmissions(ctx, c, v, subs)
	}
	listed, err := s.St.ParticipantIDs(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(subs, func(sub store.Submission) bool { return !listed[sub.UserID] }), nil
}

// Submissions lists a contest's submissions.
func (s *Service) Submissions(ctx context.Context, c *store.Contest, v Viewer, now time.Time) ([]Submission, error) {
	out := []Submission{}
	if !started(c, v, now) {
		return out, nil
	}
	subs, err := s.submissions(ctx, c, v)
	if err != nil {
		return nil, err
	}
	for _, sub := range subs {
		out = append(out, SubmissionOf(c, sub.ID, SubmissionTeamID(c, &sub), sub.ProblemID, sub.Language, sub.CreatedAt))
	}
	return out, nil
}

// Source returns a submission's language and source (staff only; the
// caller checks).
func (s *Service) Source(ctx context.Context, c *store.Contest, id string) (lang, source string, err error) {
	n, perr := strconv.ParseInt(id, 10, 64)
	if perr != nil {
		return "", "", fmt.Errorf("%w: submission %q", ErrNotFound, id)
	}
	sub, err := s.St.SubmissionByID(ctx, n)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (!sub.ContestID.Valid || sub.ContestID.Int64 != c.ID)) {
		return "", "", fmt.Errorf("%w: submission %q", ErrNotFound, id)
	}
	if err != nil {
		return "", "", err
	}
	return sub.Language, sub.Source, nil
}

// Judgements lists the current judgement of each submission and its runs;
// the public gets none of what the freeze holds back.
func (s *Service) Judgements(ctx context.Context, c *store.Contest, v Viewer, now time.Time) ([]Judgement, []Run, error) {
	js, runs := []Judgement{}, []Run{}
	if !started(c, v, now) {
		return js, runs, nil
	}
	subs, err := s.submissions(ctx, c, v)
	if err != nil {
		return nil, nil, err
	}
	cases, err := s.St.ContestCases(ctx, c.ID)
	if err != nil {
		return nil, nil, err
	}
	bySub := map[int64][]Case{}
	for _, cs := range cases {
		bySub[cs.SubmissionID] = append(bySub[cs.SubmissionID], Case{Index: cs.Index, Verdict: cs.Verdict, TimeMs: cs.TimeMs})
	}
	for _, sub := range subs {
		if !v.Staff && Hidden(c, sub.CreatedAt, now) {
			continue
		}
		if !sub.Final() {
			js = append(js, PendingJudgement(c, sub.ID, sub.Attempt, sub.CreatedAt))
			continue
		}
		end := sub.CreatedAt
		if sub.JudgedAt.Valid {
			end = sub.JudgedAt.Time
		}
		j, rs := FinalJudgement(c, sub.ID, sub.Attempt, sub.Verdict, sub.CreatedAt, end, bySub[sub.ID])
		js = append(js, j)
		runs = append(runs, rs...)
	}
	return js, runs, nil
}

// Clarifications lists a contest's clarifications: a question from its
// team (to the jury), the answer from the jury (to the team, or to all
// when public) replying to it, an announcement from the jury to all. The
// public sees only what went to all.
func (s *Service) Clarifications(ctx context.Context, c *store.Contest, v Viewer, now time.Time) ([]Clarification, error) {
	out := []Clarification{}
	if !started(c, v, now) {
		return out, nil
	}
	cls, err := s.St.Clarifications(ctx, c.ID, v.Staff, 0)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(cls, func(a, b store.Clarification) int { return int(a.ID - b.ID) })
	for i := range cls {
		out = append(out, ClarificationObjects(c, &cls[i], v.Staff)...)
	}
	if c.TeamMode { // from and to the members' teams (teams.go)
		teams, err := s.memberTeams(ctx, c)
		if err != nil {
			return nil, err
		}
		out = TeamClarifications(out, func(u string) (string, bool) { t, ok := teams[u]; return t, ok })
	}
	return out, nil
}

// board is a contest's scoreboard document for a viewer with its problem
// order.
func (s *Service) board(ctx context.Context, c *store.Contest, v Viewer) (scoreboard.Doc, []string, map[string]int64, error) {
	doc, err := s.Boards.Scoreboard(ctx, c, !v.Staff)
	if err != nil {
		return scoreboard.Doc{}, nil, nil, err
	}
	cps, err := s.St.ContestProblems(ctx, c.ID)
	if err != nil {
		return scoreboard.Doc{}, nil, nil, err
	}
	labels := make([]string, 0, len(cps))
	ids := make(map[string]int64, len(cps))
	for _, p := range cps {
		labels = append(labels, p.Label)
		ids[p.Label] = p.ProblemID
	}
	return doc, labels, ids, nil
}

// Scoreboard is a contest's CLICS scoreboard: the public one (frozen
// during the freeze) or, for staff, the live one.
func (s *Service) Scoreboard(ctx context.Context, c *store.Contest, v Viewer, now time.Time) (Scoreboard, error) {
	doc, labels, ids, err := s.board(ctx, c, v)
	if err != nil {
		return Scoreboard{}, err
	}
	if !started(c, v, now) {
		doc.Rows = nil
	}
	return ScoreboardOf(c, doc, labels, ids, now), nil
}

// Awards are the contest's awards: those Verdict computes (ComputeAwards,
// awards.go) with staff's edits applied (ApplyAwardEdits): for staff
// from the live board; for the public from the public one, and none
// while the freeze holds (the awards would tell what it hides).
func (s *Service) Awards(ctx context.Context, c *store.Contest, v Viewer, now time.Time) ([]Award, error) {
	as, _, err := s.AwardsAndComputed(ctx, c, v, now)
	return as, err
}

// AwardsAndComputed are Awards and the computed awards they were made
// from (before staff's edits).
func (s *Service) AwardsAndComputed(ctx context.Context, c *store.Contest, v Viewer, now time.Time) (awards, computed []Award, err error) {
	if !started(c, v, now) || (!v.Staff && PublicFrozen(c, now)) {
		return []Award{}, []Award{}, nil
	}
	doc, labels, ids, err := s.board(ctx, c, v)
	if err != nil {
		return nil, nil, err
	}
	set, err := s.St.ContestAwardSettings(ctx, c.ID)
	if err != nil {
		return nil, nil, err
	}
	groups, groupsOf, err := s.GroupsOf(ctx, c, v) // teams.go: none in an individual contest
	if err != nil {
		return nil, nil, err
	}
	// A first to solve waits for earlier pending submissions: the
	// accepted ones are read only when something is pending.
	unjudged, err := s.St.ContestUnjudged(ctx, c.ID)
	if err != nil {
		return nil, nil, err
	}
	var acc []store.Accepted
	if len(unjudged) > 0 {
		if acc, err = s.St.ContestAccepted(ctx, c.ID); err != nil {
			return nil, nil, err
		}
	}
	edits, err := s.St.ContestAwardEdits(ctx, c.ID)
	if err != nil {
		return nil, nil, err
	}
	computed = ComputeAwards(doc, labels, ids, AwardSettingsOf(set), groups, groupsOf, HeldFirstSolves(doc, ids, acc, unjudged))
	onBoard := make(map[string]bool, len(doc.Rows))
	for i := range doc.Rows {
		onBoard[RowTeamID(&doc.Rows[i])] = true
	}
	return ApplyAwardEdits(computed, edits, onBoard), computed, nil
}

// Balloons is the contest's balloon list (staff: the live board).
func (s *Service) Balloons(ctx context.Context, c *store.Contest) ([]Balloon, error) {
	doc, err := s.Boards.Scoreboard(ctx, c, false)
	if err != nil {
		return nil, err
	}
	cps, err := s.St.ContestProblems(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	acc, err := s.St.ContestAccepted(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	colors, err := s.St.ContestProblemColors(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	marks, err := s.St.BalloonMarks(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	return Balloons(c, doc, cps, acc, colors, marks), nil
}

// Snapshot is the event feed's beginning: every object the viewer may
// see, as events, with r's teams recorded.
func (s *Service) Snapshot(ctx context.Context, c *store.Contest, v Viewer, r *Reader, now time.Time) ([]Event, error) {
	out := []Event{NewEvent(TypeContests, ContestID(c), ContestObject(c)), NewEvent(TypeState, "", StateObject(c, now))}
	for _, t := range JudgementTypes(c) {
		out = append(out, NewEvent(TypeJudgementTypes, t.ID, t))
	}
	for _, l := range s.Languages() {
		out = append(out, NewEvent(TypeLanguages, l.ID, l))
	}
	ps, err := s.Problems(ctx, c, v, now)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		out = append(out, NewEvent(TypeProblems, p.ID, p))
	}
	if c.TeamMode {
		tes, err := s.teamSnapshot(ctx, c, v, r)
		if err != nil {
			return nil, err
		}
		out = append(out, tes...)
	} else {
		ts, err := s.Teams(ctx, c)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			n, _ := strconv.ParseInt(t.ID, 10, 64)
			r.SentTeam(n)
			out = append(out, NewEvent(TypeTeams, t.ID, t))
		}
	}
	subs, err := s.Submissions(ctx, c, v, now)
	if err != nil {
		return nil, err
	}
	for _, sub := range subs {
		n, _ := strconv.ParseInt(sub.ID, 10, 64)
		r.SentSubmission(n)
		out = append(out, NewEvent(TypeSubmissions, sub.ID, sub))
	}
	js, runs, err := s.Judgements(ctx, c, v, now)
	if err != nil {
		return nil, err
	}
	for _, run := range runs {
		out = append(out, NewEvent(TypeRuns, run.ID, run))
	}
	for _, j := range js {
		r.SentJudgement(j)
		out = append(out, NewEvent(TypeJudgements, j.ID, j))
	}
	cls, err := s.Clarifications(ctx, c, v, now)
	if err != nil {
		return nil, err
	}
	for _, cl := range cls {
		out = append(out, NewEvent(TypeClarifications, cl.ID, cl))
	}
	return out, nil
}
