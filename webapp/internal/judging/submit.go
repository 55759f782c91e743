package judging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// SubmitRequest is one submission as its author makes it: a program
// (Language and Source) or the outputs of an output-only problem
// (Language protocol.LanguageOutputs and Outputs). The HTTP layer has
// checked its shape (the fields are given, the source within its size).
type SubmitRequest struct {
	Problem string // slug
	Contest string // slug; "" outside a contest
	// Language is the language id, protocol.LanguageOutputs for outputs.
	Language string
	Source   string
	// Outputs are an output-only submission's outputs by case; each must
	// name a case of the problem's current test data (else a *CaseError).
	// They become the submission's source (protocol.EncodeOutputs).
	Outputs map[int][]byte
	// Key is the author's idempotency key: a second Submit with it
	// returns the first one's submission.
	Key string
	// Admit, when set, is called once the request is known to be a new
	// submission (no submission has its key), before any rule: the rate
	// limit. Its error is Submit's.
	Admit func(context.Context) error
}

// Submitted is what Submit made or found.
type Submitted struct {
	Submission store.Submission
	// Created is false when the key had already made Submission.
	Created bool
}

// Reason is why Submit refused a submission.
type Reason int

// Reasons of a Refusal.
const (
	// RefusedNotFound: no such problem or contest, as far as the author
	// may know.
	RefusedNotFound Reason = iota + 1
	// RefusedInvalid: the request breaks a rule of the problem or the
	// contest (a language not allowed, outputs for a program, …).
	RefusedInvalid
	// RefusedForbidden: the author may not submit there now (the contest
	// not started or over, not registered, on no team).
	RefusedForbidden
	// RefusedConflict: the problem cannot be judged yet (no test data).
	RefusedConflict
	// RefusedNoJudge: no judge is connected; nothing is wrong with the
	// request, which may be retried with its key after RetryAfter.
	RefusedNoJudge
)

// Refusal is a submission the rules refuse.
type Refusal struct {
	Reason Reason
	// Field is the request field at fault ("problem", "contest",
	// "language"); "" for RefusedNoJudge.
	Field   string
	Message string
	// RetryAfter is set for RefusedNoJudge.
	RetryAfter time.Duration
}

func (e *Refusal) Error() string { return "judging: submission refused: " + e.Message }

func refuse(r Reason, field, msg string) *Refusal {
	return &Refusal{Reason: r, Field: field, Message: msg}
}

// CaseError is an output-only submission's output for a case the
// problem's test data does not have (it has cases 1 to Cases).
type CaseError struct {
	Case, Cases int
}

func (e *CaseError) Error() string {
	return fmt.Sprintf("judging: output for case %d, the problem has cases 1 to %d", e.Case, e.Cases)
}

// Submit makes a submission of u's, applying the rules of a submit —
// the problem's visibility, the contest's window, registration and
// teams, test data, language, live judges — and enqueues it. A
// refusal is a *Refusal (or a *CaseError for outputs); any other error
// means a backing service failed. A student's first submission to an
// open contest registers them in it. In a team contest the submission
// is the author's team's (staff on no team: nobody's). Once the row
// exists Redis failing only delays it: the reconciler enqueues a queued
// row that has no task. The enqueue after the commit runs on a deadline
// of its own (Config.EnqueueTimeout), not on what is left of ctx's.
func (s *Service) Submit(ctx context.Context, u *store.User, req SubmitRequest) (Submitted, error) {
	// A retried submit returns what the first one made, and makes its
	// task if the first one's enqueue failed (idempotent): the browser
	// retries sooner than the reconciler runs.
	if sub, err := s.st.SubmissionByKey(ctx, u.ID, req.Key); err == nil {
		if sub.Verdict == store.StatusQueued {
			if missing, terr := s.withoutTask(ctx, []store.QueuedRef{{ID: sub.ID, Attempt: sub.Attempt}}); terr == nil && len(missing) == 1 {
				if err := s.enqueueRetried(ctx, &sub); err != nil {
					s.log.Warn("enqueue on a retried submit failed; the reconciler will retry", obs.SubmissionID(sub.ID), obs.Err(err))
				}
			}
		}
		return Submitted{Submission: sub}, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return Submitted{}, err
	}
	if req.Admit != nil {
		if err := req.Admit(ctx); err != nil {
			return Submitted{}, err
		}
	}
	pl, err := s.checkSubmit(ctx, u, &req)
	if err != nil {
		return Submitted{}, err
	}
	p := &pl.problem
	src := req.Source
	if req.Outputs != nil {
		if src, err = s.encodeOutputs(ctx, p, req.Outputs); err != nil {
			return Submitted{}, err
		}
	}
	ns := store.NewSubmission{UserID: u.ID, ProblemID: p.ID, Language: req.Language, Source: src,
		TestdataHash: p.TestdataHash.String, IdemKey: req.Key, TeamID: pl.teamID}
	if pl.contest != nil {
		ns.ContestID = pl.contest.ID
		if pl.register {
			if err := s.st.AddParticipant(ctx, ns.ContestID, u.ID); err != nil {
				return Submitted{}, err
			}
		}
	}
	// What the task needs from MySQL (the rule of its test data) is read
	// before the commit, under the request's deadline: once the row
	// exists, enqueueing it takes Redis only.
	var rule store.TestdataRule
	if p.TestdataHash.Valid {
		if rule, err = s.testdataRuleOf(ctx, p.ID, p.TestdataHash.String); err != nil {
			return Submitted{}, fmt.Errorf("judging: submit: %w", err)
		}
	}
	sub, created, err := s.st.CreateSubmission(ctx, ns)
	if err != nil || !created {
		return Submitted{Submission: sub}, err
	}
	log := s.log.With(obs.SubmissionID(sub.ID), "user_id", u.ID)
	// The board's pending mark (and the feed's submission event, which
	// must come before the task can be judged) on what is left of the
	// request's deadline: under overload it is shed, and the result
	// repairs both (the board merges the verdict, the feed's judgement
	// carries its submission). Tried on a deadline of its own, a submit
	// held its connection for the board's work as well, and in that
	// contest rehearsal (2026-12-02 08:16 UTC) the browsers' requests
	// timed out by the thousand; sharing the enqueue's deadline, it left
	// the enqueue too little (10,656 tasks waited for the reconciler).
	if err := s.UpdateBoard(ctx, &sub); err != nil {
		log.Warn("scoreboard pending mark failed", obs.Err(err))
	}
	// The row is committed: its task is owed to it whatever is left of
	// the request's deadline. Under overload a request spends its
	// deadline waiting for CPU and MySQL before the commit; on that spent
	// deadline the enqueue failed and the task waited for the reconciler,
	// which the same overload kept minutes behind (a quarter to a third
	// of the contest rehearsal's submissions at 3,000 contestants).
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.EnqueueTimeout)
	defer cancel()
	if err := s.enqueue(ectx, &sub, p, PriorityOf(&sub), rule); err != nil {
		log.Warn("enqueue failed; the reconciler will retry", obs.Err(err))
	}
	return Submitted{Submission: sub, Created: true}, nil
}

// enqueueRetried makes the task of a retried submit's queued submission
// whose first try's enqueue failed: what it needs from MySQL is read on
// the request's deadline, the enqueue itself runs on a deadline of its own
// (Config.EnqueueTimeout) as the first try's does — a retry comes under
// the same overload that made the first try fail.
func (s *Service) enqueueRetried(ctx context.Context, sub *store.Submission) error {
	p, prio, rule, err := s.taskParts(ctx, sub)
	if err != nil {
		return err
	}
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.EnqueueTimeout)
	defer cancel()
	return s.enqueue(ectx, sub, &p, prio, rule)
}

// submitPlan is what checkSubmit found: where the submission goes.
type submitPlan struct {
	problem store.Problem
	contest *store.Contest
	teamID  int64
	// register: the author is to be registered in the contest (a
	// student's first submission to an open contest).
	register bool
}

// checkSubmit resolves the problem and contest of a submit and applies
// the rules. It changes nothing.
func (s *Service) checkSubmit(ctx context.Context, u *store.User, req *SubmitRequest) (submitPlan, error) {
	var pl submitPlan
	now := s.cfg.Now()
	p, err := s.st.ProblemBySlug(ctx, req.Problem)
	if errors.Is(err, store.ErrNotFound) {
		return pl, refuse(RefusedNotFound, "problem", "no such problem")
	}
	if err != nil {
		return pl, err
	}
	pl.problem = p
	staff := u.IsStaff()
	if req.Contest != "" {
		c, err := s.st.ContestBySlug(ctx, req.Contest)
		if errors.Is(err, store.ErrNotFound) || (err == nil && !c.Visible && !staff) {
			return pl, refuse(RefusedNotFound, "contest", "no such contest")
		}
		if err != nil {
			return pl, err
		}
		// The contest's problem list, not a query of its own: the read
		// cache keeps it as it keeps the contest itself (a contest page
		// reads both), and a change of either purges both.
		cps, err := s.st.ContestProblems(ctx, c.ID)
		if err != nil {
			return pl, err
		}
		if !slices.ContainsFunc(cps, func(cp store.ContestProblem) bool { return cp.ProblemID == p.ID }) {
			return pl, refuse(RefusedInvalid, "problem", "the problem is not in this contest")
		}
		switch c.Phase(now) {
		case "upcoming":
			return pl, refuse(RefusedForbidden, "contest", "the contest has not started")
		case "ended":
			return pl, refuse(RefusedForbidden, "contest", "the contest is over: submit without a contest to practise")
		}
		if c.TeamMode {
			// A team contest: members submit for their team; staff on no
			// team submit for nobody.
			t, err := s.st.TeamOfUser(ctx, c.ID, u.ID)
			switch {
			case err == nil:
				pl.teamID = t.ID
			case !errors.Is(err, store.ErrNotFound):
				return pl, err
			case !staff:
				return pl, refuse(RefusedForbidden, "contest", "this is a team contest and you are on no team of it")
			}
		}
		reg, err := s.st.IsParticipant(ctx, c.ID, u.ID)
		if err != nil {
			return pl, err
		}
		if !reg && !staff {
			if c.Registration != store.RegistrationOpen {
				return pl, refuse(RefusedForbidden, "contest", "you are not registered in this contest")
			}
			// Open contests register a student on the first submission.
			// Staff testing a problem in a contest are not registered, so
			// they never appear on its board (the board shows registered
			// users only); a staff member who competes registers first.
			pl.register = true
		}
		pl.contest = &c
	} else if !staff {
		switch p.Visibility {
		case store.VisibilityPublic:
		case store.VisibilityContestOnly:
			in, err := s.st.InStartedContestOf(ctx, u.ID, p.ID, now)
			if err != nil {
				return pl, err
			}
			if !in {
				return pl, refuse(RefusedNotFound, "problem", "no such problem")
			}
			return pl, refuse(RefusedInvalid, "contest", "this problem is only judged inside its contest: give the contest")
		default:
			return pl, refuse(RefusedNotFound, "problem", "no such problem")
		}
	}
	if !p.TestdataHash.Valid {
		return pl, refuse(RefusedConflict, "problem", "the problem has no test data yet")
	}
	switch {
	case p.OutputOnly && req.Language != protocol.LanguageOutputs:
		return pl, refuse(RefusedInvalid, "language",
			"language cannot be given: this problem is output-only; upload your outputs (POST /api/submissions/outputs)")
	case !p.OutputOnly && req.Language == protocol.LanguageOutputs:
		return pl, refuse(RefusedInvalid, "language", "language outputs is for output-only problems; this problem judges a program")
	}
	if len(p.Languages) > 0 && !p.OutputOnly && !slices.Contains(p.Languages, req.Language) {
		return pl, refuse(RefusedInvalid, "language",
			fmt.Sprintf("language %q is not allowed for this problem (allowed: %s)", req.Language, strings.Join(p.Languages, ", ")))
	}
	langs, live, err := s.Languages(ctx)
	if err != nil {
		return pl, err
	}
	if live > 0 && !p.OutputOnly && !slices.ContainsFunc(langs, func(l Language) bool { return l.ID == req.Language }) {
		// Not in what this node kept: a judge offering it may have just
		// connected. Read again before refusing.
		if langs, live, err = s.languages(ctx, true); err != nil {
			return pl, err
		}
	}
	if live == 0 {
		// Nothing wrong with the request: the judges are away (a hub
		// restart, a network cut). The browser retries with its key.
		return pl, &Refusal{Reason: RefusedNoJudge,
			Message:    "no judge is connected right now; your submission will be taken when one is: retrying",
			RetryAfter: 5 * time.Second}
	}
	if !p.OutputOnly && !slices.ContainsFunc(langs, func(l Language) bool { return l.ID == req.Language }) {
		return pl, refuse(RefusedInvalid, "language",
			fmt.Sprintf("no connected judge offers language %q right now (see GET /api/languages)", req.Language))
	}
	return pl, nil
}

// encodeOutputs checks that every output names a case of the problem's
// current test data and encodes them as the submission's source.
func (s *Service) encodeOutputs(ctx context.Context, p *store.Problem, files map[int][]byte) (string, error) {
	cases, err := s.caseCount(ctx, p.ID, p.TestdataHash.String)
	if err != nil {
		return "", err
	}
	var outs protocol.Outputs
	for _, c := range slices.Sorted(maps.Keys(files)) {
		if c > cases {
			return "", &CaseError{Case: c, Cases: cases}
		}
		outs.Files = append(outs.Files, protocol.OutputFile{Case: c, Data: files[c]})
	}
	src, err := protocol.EncodeOutputs(outs)
	if err != nil {
		return "", refuse(RefusedInvalid, "file", "file "+err.Error())
	}
	return src, nil
}

// caseCount is the number of cases of a problem's test data version, as
// its manifest lists them.
func (s *Service) caseCount(ctx context.Context, problemID int64, hash string) (int, error) {
	vs, err := s.st.TestdataVersions(ctx, problemID)
	if err != nil {
		return 0, err
	}
	for _, v := range vs {
		if v.Hash == hash {
			var m struct {
				Cases []json.RawMessage `json:"cases"`
			}
			if err := json.Unmarshal(v.Manifest, &m); err != nil {
				return 0, fmt.Errorf("manifest of %s: %w", hash, err)
			}
			return len(m.Cases), nil
		}
	}
	return 0, fmt.Errorf("problem %d: test data %s: %w", problemID, hash, store.ErrNotFound)
}
