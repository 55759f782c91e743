package ccs

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Endpoint types: the "type" of an event and the collection endpoints.
const (
	TypeContests       = "contests"
	TypeState          = "state"
	TypeJudgementTypes = "judgement-types"
	TypeLanguages      = "languages"
	TypeProblems       = "problems"
	TypeGroups         = "groups"
	TypeOrganizations  = "organizations"
	TypeTeams          = "teams"
	TypeSubmissions    = "submissions"
	TypeJudgements     = "judgements"
	TypeRuns           = "runs"
	TypeClarifications = "clarifications"
	TypeAwards         = "awards"
)

// Info is the API information object (GET baseurl/).
type Info struct {
	Version    string   `json:"version"`
	VersionURL string   `json:"version_url"`
	Name       string   `json:"name"`
	Provider   Provider `json:"provider"`
}

// Provider names the implementation.
type Provider struct {
	Name string `json:"name"`
}

// Contest is a CLICS contest object.
type Contest struct {
	ID                       string  `json:"id"`
	Name                     string  `json:"name"`
	FormalName               string  `json:"formal_name"`
	StartTime                *string `json:"start_time"`
	Duration                 string  `json:"duration"`
	ScoreboardFreezeDuration string  `json:"scoreboard_freeze_duration"`
	ScoreboardThawTime       *string `json:"scoreboard_thaw_time,omitempty"`
	ScoreboardType           string  `json:"scoreboard_type"`
	PenaltyTime              *int    `json:"penalty_time,omitempty"`
}

// State is a CLICS state object. Every field is present, null until it
// happened.
type State struct {
	Started      *string `json:"started"`
	Frozen       *string `json:"frozen"`
	Ended        *string `json:"ended"`
	Thawed       *string `json:"thawed"`
	Finalized    *string `json:"finalized"`
	EndOfUpdates *string `json:"end_of_updates"`
}

// JudgementType is a CLICS judgement type.
type JudgementType struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Penalty bool   `json:"penalty"`
	Solved  bool   `json:"solved"`
}

// Language is a CLICS language.
type Language struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	EntryPointRequired bool     `json:"entry_point_required"`
	Extensions         []string `json:"extensions"`
}

// Problem is a CLICS problem.
type Problem struct {
	ID            string   `json:"id"`
	Label         string   `json:"label"`
	Name          string   `json:"name"`
	Ordinal       int      `json:"ordinal"`
	TimeLimit     float64  `json:"time_limit"`
	TestDataCount int      `json:"test_data_count"`
	MaxScore      *float64 `json:"max_score,omitempty"`
	// RGB and Color are the problem's balloon colour (contest settings,
	// migration 0011), absent when unset.
	RGB   *string `json:"rgb,omitempty"`
	Color *string `json:"color,omitempty"`
}

// Organization is a CLICS organization (a team contest's affiliation).
type Organization struct {
	ID         string  `json:"id"`
	ICPCID     *string `json:"icpc_id,omitempty"`
	Name       string  `json:"name"`
	FormalName *string `json:"formal_name,omitempty"`
	Country    *string `json:"country,omitempty"`
}

// Team is a CLICS team: a team of a team contest (teams.go), or a
// registered user (team of one) of an individual contest.
type Team struct {
	ID             string   `json:"id"`
	ICPCID         *string  `json:"icpc_id,omitempty"`
	Name           string   `json:"name"`
	Label          string   `json:"label"`
	DisplayName    *string  `json:"display_name"`
	OrganizationID *string  `json:"organization_id,omitempty"`
	GroupIDs       []string `json:"group_ids,omitempty"`
	Hidden         bool     `json:"hidden"`
}

// FileRef is a CLICS FILE reference.
type FileRef struct {
	Href     string `json:"href"`
	Mime     string `json:"mime"`
	Filename string `json:"filename,omitempty"`
}

// Submission is a CLICS submission.
type Submission struct {
	ID          string    `json:"id"`
	LanguageID  string    `json:"language_id"`
	ProblemID   string    `json:"problem_id"`
	TeamID      string    `json:"team_id"`
	Time        string    `json:"time"`
	ContestTime string    `json:"contest_time"`
	Files       []FileRef `json:"files"`
}

// Judgement is a CLICS judgement: the current attempt of a submission's
// judging. Every field is present; the outcome fields are null while it
// is pending.
type Judgement struct {
	ID               string   `json:"id"`
	SubmissionID     string   `json:"submission_id"`
	JudgementTypeID  *string  `json:"judgement_type_id"`
	StartTime        string   `json:"start_time"`
	StartContestTime string   `json:"start_contest_time"`
	EndTime          *string  `json:"end_time"`
	EndContestTime   *string  `json:"end_contest_time"`
	MaxRunTime       *float64 `json:"max_run_time"`
}

// Run is a CLICS run: one test case of a judgement.
type Run struct {
	ID              string  `json:"id"`
	JudgementID     string  `json:"judgement_id"`
	Ordinal         int     `json:"ordinal"`
	JudgementTypeID string  `json:"judgement_type_id"`
	Time            string  `json:"time"`
	ContestTime     string  `json:"contest_time"`
	RunTime         float64 `json:"run_time"`
}

// Clarification is a CLICS clarification.
type Clarification struct {
	ID          string  `json:"id"`
	FromTeamID  *string `json:"from_team_id"`
	ToTeamID    *string `json:"to_team_id"`
	ReplyToID   *string `json:"reply_to_id"`
	ProblemID   *string `json:"problem_id"`
	Text        string  `json:"text"`
	Time        string  `json:"time"`
	ContestTime string  `json:"contest_time"`
}

// Award is a CLICS award.
type Award struct {
	ID       string   `json:"id"`
	Citation string   `json:"citation"`
	TeamIDs  []string `json:"team_ids"`
}

// Scoreboard is the CLICS scoreboard.
type Scoreboard struct {
	Time        string `json:"time"`
	ContestTime string `json:"contest_time"`
	State       State  `json:"state"`
	Rows        []Row  `json:"rows"`
}

// Row is one team of a Scoreboard.
type Row struct {
	Rank     int          `json:"rank"`
	TeamID   string       `json:"team_id"`
	Score    RowScore     `json:"score"`
	Problems []ProblemRow `json:"problems"`
}

// RowScore is a row's score: num_solved and total_time (pass-fail) or
// score (score).
type RowScore struct {
	NumSolved *int     `json:"num_solved,omitempty"`
	TotalTime *int     `json:"total_time,omitempty"`
	Score     *float64 `json:"score,omitempty"`
}

// ProblemRow is one problem of a Row.
type ProblemRow struct {
	ProblemID  string   `json:"problem_id"`
	NumJudged  int      `json:"num_judged"`
	NumPending int      `json:"num_pending"`
	Solved     *bool    `json:"solved,omitempty"`
	Score      *float64 `json:"score,omitempty"`
	Time       *int     `json:"time,omitempty"`
}

// ID formats a numeric id.
func ID(n int64) string { return strconv.FormatInt(n, 10) }

// ContestID is a contest's CLICS id: its slug when that is an identifier,
// else its numeric id.
func ContestID(c *store.Contest) string {
	if IdentifierPattern.MatchString(c.Slug) {
		return c.Slug
	}
	return ID(c.ID)
}

// JudgementID names the judgement of one attempt of a submission.
func JudgementID(submissionID int64, attempt int) string {
	return ID(submissionID) + "-" + strconv.Itoa(attempt)
}

// RunID names one case of a judgement.
func RunID(submissionID int64, attempt, caseIndex int) string {
	return JudgementID(submissionID, attempt) + "-" + strconv.Itoa(caseIndex)
}

// ContestObject maps a contest.
func ContestObject(c *store.Contest) Contest {
	o := Contest{
		ID: ContestID(c), Name: c.Title, FormalName: c.Title, StartTime: AbsTimePtr(c.StartAt),
		Duration:                 RelTime(c.EndAt.Sub(c.StartAt)),
		ScoreboardFreezeDuration: RelTime(time.Duration(max(0, c.FreezeMinutes)) * time.Minute),
		ScoreboardType:           "pass-fail",
	}
	if c.Rule == scoreboard.RuleIOI {
		o.ScoreboardType = "score"
	} else {
		p := scoreboard.PenaltyOf(c.PenaltyMinutes, c.PenaltyVerdicts).PerTry()
		o.PenaltyTime = &p
	}
	if c.UnfrozenAt.Valid && c.FreezeMinutes > 0 {
		o.ScoreboardThawTime = AbsTimePtr(c.UnfrozenAt.Time)
	}
	return o
}

// FreezeAt is when the public stops seeing results: the freeze, or the
// start under the closed feedback policy (judging.boardFreezeAt).
func FreezeAt(c *store.Contest) time.Time {
	if c.Feedback == "closed" {
		return c.StartAt
	}
	return c.FreezeAt()
}

// PublicFrozen reports whether the public sees the frozen view at now
// (the scoreboard's rule: a freeze not yet thawed, or closed feedback
// before the end).
func PublicFrozen(c *store.Contest, now time.Time) bool {
	return c.Frozen(now) || c.ResultsHidden(now)
}

// PublicFrozenAt reports whether the public view was frozen at t, as far
// as the contest says now (a thaw at its unfrozen_at).
func PublicFrozenAt(c *store.Contest, t time.Time) bool {
	if c.Feedback == "closed" && t.Before(c.EndAt) {
		return true
	}
	f := c.FreezeAt()
	return !f.IsZero() && !t.Before(f) && (!c.UnfrozenAt.Valid || t.Before(c.UnfrozenAt.Time))
}

// Hidden reports whether the outcome of a submission made at subAt is
// held back from the public at now: made at or after the freeze while the
// public view is frozen.
func Hidden(c *store.Contest, subAt, now time.Time) bool {
	f := FreezeAt(c)
	return !f.IsZero() && PublicFrozen(c, now) && !subAt.Before(f)
}

// StateObject is a contest's state at now.
func StateObject(c *store.Contest, now time.Time) State {
	var s State
	if !now.Before(c.StartAt) {
		s.Started = AbsTimePtr(c.StartAt)
	}
	if f := c.FreezeAt(); !f.IsZero() && !now.Before(f) {
		s.Frozen = AbsTimePtr(f)
		if c.UnfrozenAt.Valid {
			s.Thawed = AbsTimePtr(c.UnfrozenAt.Time)
		}
	}
	if !now.Before(c.EndAt) {
		s.Ended = AbsTimePtr(c.EndAt)
	}
	// Finalized: an admin finalised the results (Verdict allows it once
	// the contest is over and nothing is pending). The end of updates is
	// the finalisation, or the thaw when that comes later: a contest
	// frozen at the end is finalised frozen, the resolver reveals it, and
	// the unfreeze is the last change.
	if c.FinalizedAt.Valid {
		s.Finalized = AbsTimePtr(c.FinalizedAt.Time)
		switch {
		case c.FreezeAt().IsZero():
			s.EndOfUpdates = s.Finalized
		case c.UnfrozenAt.Valid:
			s.EndOfUpdates = AbsTimePtr(maxTime(c.FinalizedAt.Time, c.UnfrozenAt.Time))
		}
	}
	return s
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// judgementTypes: CLICS id, Verdict code, name.
var judgementTypes = []struct{ id, verdict, name string }{
	{"AC", "AC", "Accepted"},
	{"WA", "WA", "Wrong Answer"},
	{"TLE", "TLE", "Time Limit Exceeded"},
	{"MLE", "MLE", "Memory Limit Exceeded"},
	{"OLE", "OLE", "Output Limit Exceeded"},
	{"RTE", "RE", "Run-Time Error"},
	{"CE", "CE", "Compile Error"},
	{"PE", "PE", "Presentation Error"},
	{"JE", "SE", "Judging Error"},
}

// JudgementTypeOf maps a Verdict verdict code to its CLICS judgement type
// id ("" for a status or an unknown code: Verdict's RE is CLICS RTE, SE
// is JE).
func JudgementTypeOf(verdict string) string {
	for _, t := range judgementTypes {
		if t.verdict == verdict {
			return t.id
		}
	}
	return ""
}

// JudgementTypes are a contest's judgement types, penalty as its rule says.
func JudgementTypes(c *store.Contest) []JudgementType {
	p := scoreboard.PenaltyOf(c.PenaltyMinutes, c.PenaltyVerdicts)
	out := make([]JudgementType, 0, len(judgementTypes))
	for _, t := range judgementTypes {
		out = append(out, JudgementType{ID: t.id, Name: t.name, Solved: t.verdict == "AC",
			Penalty: c.Rule != scoreboard.RuleIOI && p.Counts(t.verdict)})
	}
	return out
}

// Extensions are the file extensions of a Verdict language id.
func Extensions(lang string) []string {
	switch {
	case strings.HasPrefix(lang, "cpp"):
		return []string{"cpp", "cc", "cxx", "c++"}
	case strings.HasPrefix(lang, "c"):
		return []string{"c"}
	case strings.HasPrefix(lang, "py"):
		return []string{"py"}
	case strings.HasPrefix(lang, "java"):
		return []string{"java"}
	case lang == "go":
		return []string{"go"}
	case strings.HasPrefix(lang, "rust"):
		return []string{"rs"}
	}
	return []string{lang}
}

// SourceFilename is the file name a submission's source gets in its
// files archive.
func SourceFilename(lang string) string {
	if strings.HasPrefix(lang, "java") {
		return "Main.java"
	}
	return "main." + Extensions(lang)[0]
}

// Languages maps language ids and names, sorted by id.
func Languages(names map[string]string) []Language {
	out := make([]Language, 0, len(names))
	for id, name := range names {
		out = append(out, Language{ID: id, Name: name, Extensions: Extensions(id)})
	}
	slices.SortFunc(out, func(a, b Language) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// ProblemObject maps a contest problem; ordinal counts from 1.
func ProblemObject(c *store.Contest, cp *store.ContestProblem, ordinal int, timeLimitMs, cases int) Problem {
	p := Problem{ID: ID(cp.ProblemID), Label: cp.Label, Name: cp.Title, Ordinal: ordinal,
		TimeLimit: float64(timeLimitMs) / 1000, TestDataCount: cases}
	if c.Rule == scoreboard.RuleIOI {
		m := float64(cp.Points)
		p.MaxScore = &m
	}
	return p
}

// TeamObject maps a user as a team of one.
func TeamObject(userID int64, username, displayName string) Team {
	name := displayName
	if name == "" {
		name = username
	}
	return Team{ID: ID(userID), Name: name, Label: username, DisplayName: &name}
}

// SubmissionObject maps a submission.
func SubmissionObject(c *store.Contest, id, userID, problemID int64, lang string, at time.Time) Submission {
	return SubmissionOf(c, id, ID(userID), problemID, lang, at)
}

// SubmissionOf maps a submission of a CLICS team (SubmissionTeamID).
func SubmissionOf(c *store.Contest, id int64, team string, problemID int64, lang string, at time.Time) Submission {
	cid := ContestID(c)
	return Submission{ID: ID(id), LanguageID: lang, ProblemID: ID(problemID), TeamID: team,
		Time: AbsTime(at), ContestTime: RelTime(at.Sub(c.StartAt)),
		Files: []FileRef{{Href: "contests/" + cid + "/submissions/" + ID(id) + "/files", Mime: "application/zip",
			Filename: "files.zip"}}}
}

// PendingJudgement is the judgement of an attempt not judged yet.
func PendingJudgement(c *store.Contest, submissionID int64, attempt int, start time.Time) Judgement {
	return Judgement{ID: JudgementID(submissionID, attempt), SubmissionID: ID(submissionID),
		StartTime: AbsTime(start), StartContestTime: RelTime(start.Sub(c.StartAt))}
}

// Case is one case result as a judgement's run.
type Case struct {
	Index   int    `json:"i"`
	Verdict string `json:"v"`
	TimeMs  int64  `json:"t"`
}

// FinalJudgement is the judgement of a judged attempt and its runs (the
// cases that ran; skipped ones are no runs).
func FinalJudgement(c *store.Contest, submissionID int64, attempt int, verdict string, start, end time.Time, cases []Case) (Judgement, []Run) {
	j := PendingJudgement(c, submissionID, attempt, start)
	if t := JudgementTypeOf(verdict); t != "" {
		j.JudgementTypeID = &t
	} else {
		t := "JE"
		j.JudgementTypeID = &t
	}
	j.EndTime = AbsTimePtr(end)
	ect := RelTime(end.Sub(c.StartAt))
	j.EndContestTime = &ect
	var runs []Run
	var maxMs int64
	for _, cs := range cases {
		t := JudgementTypeOf(cs.Verdict)
		if t == "" {
			continue // skipped
		}
		maxMs = max(maxMs, cs.TimeMs)
		runs = append(runs, Run{ID: RunID(submissionID, attempt, cs.Index), JudgementID: j.ID, Ordinal: cs.Index,
			JudgementTypeID: t, Time: AbsTime(end), ContestTime: ect, RunTime: float64(cs.TimeMs) / 1000})
	}
	if len(runs) > 0 {
		m := float64(maxMs) / 1000
		j.MaxRunTime = &m
	}
	return j, runs
}

// ScoreboardOf maps a scoreboard document. problems are the contest's in
// order (label → problem id).
func ScoreboardOf(c *store.Contest, doc scoreboard.Doc, labels []string, problemIDs map[string]int64, now time.Time) Scoreboard {
	sb := Scoreboard{Time: AbsTime(now), ContestTime: RelTime(now.Sub(c.StartAt)), State: StateObject(c, now), Rows: []Row{}}
	ioi := doc.Rule == scoreboard.RuleIOI
	for _, r := range doc.Rows {
		row := Row{Rank: r.Rank, TeamID: RowTeamID(&r), Problems: []ProblemRow{}}
		if ioi {
			s := r.Score
			row.Score.Score = &s
		} else {
			n, t := r.Solved, r.Penalty
			row.Score.NumSolved, row.Score.TotalTime = &n, &t
		}
		for _, l := range labels {
			cell := r.Problems[l]
			pr := ProblemRow{ProblemID: ID(problemIDs[l]), NumJudged: cell.Attempts, NumPending: cell.Pending}
			if ioi {
				s := 0.0
				if cell.Score != nil {
					s = *cell.Score
				}
				pr.Score = &s
			} else {
				solved := cell.Solved
				pr.Solved = &solved
				if solved && cell.TimeMin != nil {
					m := *cell.TimeMin
					pr.Time = &m
				}
			}
			row.Problems = append(row.Problems, pr)
		}
		sb.Rows = append(sb.Rows, row)
	}
	return sb
}

// ClarificationObjects maps a clarification row: the question from its
// team to the jury (staff only), the answer from the jury (to the team,
// or to all when public; replying to the question, for staff), an
// announcement (no question) from the jury to all. The public gets what
// went to all only.
func ClarificationObjects(c *store.Contest, cl *store.Clarification, staff bool) []Clarification {
	var out []Clarification
	var prob *string
	if cl.ProblemID.Valid {
		p := ID(cl.ProblemID.Int64)
		prob = &p
	}
	qid := ID(cl.ID)
	if cl.Question.Valid && cl.UserID.Valid && staff {
		team := ID(cl.UserID.Int64)
		out = append(out, Clarification{ID: qid, FromTeamID: &team, ProblemID: prob, Text: cl.Question.String,
			Time: AbsTime(cl.CreatedAt), ContestTime: RelTime(cl.CreatedAt.Sub(c.StartAt))})
	}
	if !cl.Answer.Valid {
		return out
	}
	at := cl.CreatedAt
	if cl.AnsweredAt.Valid {
		at = cl.AnsweredAt.Time
	}
	a := Clarification{ID: qid, ProblemID: prob, Text: cl.Answer.String, Time: AbsTime(at), ContestTime: RelTime(at.Sub(c.StartAt))}
	if cl.Question.Valid {
		a.ID = qid + "-a"
		if staff {
			a.ReplyToID = &qid
		}
		if !cl.Public && cl.UserID.Valid {
			if !staff {
				return out
			}
			team := ID(cl.UserID.Int64)
			a.ToTeamID = &team
		}
	}
	return append(out, a)
}
