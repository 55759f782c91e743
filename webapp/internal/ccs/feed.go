package ccs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Fact kinds of the feed stream.
const (
	// FactSubmission: a new submission (attempt 1) or a new attempt (a
	// rejudge), pending.
	FactSubmission = "submission"
	// FactJudgement: an attempt's outcome.
	FactJudgement = "judgement"
	// FactThaw: the contest was unfrozen; public readers replay what the
	// freeze held back.
	FactThaw = "thaw"
	// FactClarification: a clarification was asked, answered or
	// announced.
	FactClarification = "clarification"
	// FactState: the contest's state changed by an action (it was
	// finalised): readers send the contest and the state as they are.
	FactState = "state"
)

// Fact is one entry of a contest's feed stream (rkeys.CCSFeed): what
// happened, in Verdict's terms; readers map it to CLICS events (Events)
// with the contest as it is when they read.
type Fact struct {
	Kind         string `json:"k"`
	SubmissionID int64  `json:"s,omitempty"`
	Attempt      int    `json:"a,omitempty"`
	UserID       int64  `json:"u,omitempty"`
	Username     string `json:"un,omitempty"`
	DisplayName  string `json:"ud,omitempty"`
	ProblemID    int64  `json:"p,omitempty"`
	Language     string `json:"l,omitempty"`
	// At is the submission's time; Event when the fact was appended (the
	// start of a rejudge), JudgedAt the outcome's (Unix ms).
	At       int64  `json:"t,omitempty"`
	Event    int64  `json:"e,omitempty"`
	Verdict  string `json:"v,omitempty"`
	JudgedAt int64  `json:"j,omitempty"`
	Cases    []Case `json:"c,omitempty"`
	// Clar is the clarification of a FactClarification, as stored.
	Clar *store.Clarification `json:"cl,omitempty"`
	// Team is the CLICS id of the team a submission was made for (team
	// contests), TeamName its shown name, TeamHidden whether the public
	// sees it (not when its group is hidden).
	Team       string `json:"tm,omitempty"`
	TeamName   string `json:"tn,omitempty"`
	TeamHidden bool   `json:"th,omitempty"`
	// Objects are the objects of a FactObjects fact (teams.go).
	Objects []FactObject `json:"o,omitempty"`
}

// Entry is a fact with its stream id.
type Entry struct {
	ID   string
	Fact Fact
}

// Feed is the contests' feed streams in Redis.
type Feed struct {
	rdb redis.UniversalClient
	n   rkeys.Names
}

// NewFeed returns a Feed.
func NewFeed(rdb redis.UniversalClient, n rkeys.Names) *Feed { return &Feed{rdb: rdb, n: n} }

// ErrBadToken: a since_token that is malformed, of another generation of
// the stream (Redis lost it) or beyond its end.
var ErrBadToken = errors.New("ccs: invalid since_token")

// Append adds a fact to a contest's stream and returns its id. The
// stream's generation is set first if it has none.
func (f *Feed) Append(ctx context.Context, contestID int64, fact Fact) (string, error) {
	b, err := json.Marshal(fact)
	if err != nil {
		return "", fmt.Errorf("ccs: encode fact: %w", err)
	}
	if _, err := f.Generation(ctx, contestID); err != nil {
		return "", err
	}
	id, err := f.rdb.XAdd(ctx, &redis.XAddArgs{Stream: f.n.CCSFeed(contestID), Values: []string{"f", string(b)}}).Result()
	if err != nil {
		return "", fmt.Errorf("ccs: append to the feed of contest %d: %w", contestID, err)
	}
	return id, nil
}

// Generation returns the stream's generation, setting a new one if it has
// none.
func (f *Feed) Generation(ctx context.Context, contestID int64) (string, error) {
	key := f.n.CCSFeedGen(contestID)
	var b [4]byte
	_, _ = rand.Read(b[:])
	if err := f.rdb.SetNX(ctx, key, hex.EncodeToString(b[:]), 0).Err(); err != nil {
		return "", fmt.Errorf("ccs: feed generation of contest %d: %w", contestID, err)
	}
	g, err := f.rdb.Get(ctx, key).Result()
	if err != nil {
		return "", fmt.Errorf("ccs: feed generation of contest %d: %w", contestID, err)
	}
	return g, nil
}

// Last returns the id of the stream's last entry, "0-0" when empty.
func (f *Feed) Last(ctx context.Context, contestID int64) (string, error) {
	xs, err := f.rdb.XRevRangeN(ctx, f.n.CCSFeed(contestID), "+", "-", 1).Result()
	if err != nil {
		return "", fmt.Errorf("ccs: feed of contest %d: %w", contestID, err)
	}
	if len(xs) == 0 {
		return "0-0", nil
	}
	return xs[0].ID, nil
}

// IDTime is when a stream entry was appended (its id's milliseconds).
func IDTime(id string) time.Time {
	ms, _, _ := strings.Cut(id, "-")
	n, _ := strconv.ParseInt(ms, 10, 64)
	return time.UnixMilli(n)
}

// Token is the resume token of a stream position.
func Token(gen, id string) string { return gen + "." + id }

// ParseToken checks a since_token against the stream (its generation, an
// id no later than the last) and returns the stream id to read after.
func (f *Feed) ParseToken(ctx context.Context, contestID int64, token string) (string, error) {
	gen, id, ok := strings.Cut(token, ".")
	ms, seq, ok2 := strings.Cut(id, "-")
	if !ok || !ok2 || !digits(ms) || !digits(seq) {
		return "", fmt.Errorf("%w: %q is not a token of this feed", ErrBadToken, token)
	}
	g, err := f.Generation(ctx, contestID)
	if err != nil {
		return "", err
	}
	if g != gen {
		return "", fmt.Errorf("%w: the feed was reset since (a new generation); start again without since_token", ErrBadToken)
	}
	last, err := f.Last(ctx, contestID)
	if err != nil {
		return "", err
	}
	if compareIDs(id, last) > 0 {
		return "", fmt.Errorf("%w: the token is beyond the end of the feed", ErrBadToken)
	}
	return id, nil
}

func digits(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func compareIDs(a, b string) int {
	am, as, _ := strings.Cut(a, "-")
	bm, bs, _ := strings.Cut(b, "-")
	x, _ := strconv.ParseUint(am, 10, 64)
	y, _ := strconv.ParseUint(bm, 10, 64)
	if x != y {
		if x < y {
			return -1
		}
		return 1
	}
	x, _ = strconv.ParseUint(as, 10, 64)
	y, _ = strconv.ParseUint(bs, 10, 64)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// Read returns up to count entries after id, waiting up to block for
// the first (0: do not wait).
func (f *Feed) Read(ctx context.Context, contestID int64, after string, block time.Duration, count int) ([]Entry, error) {
	if block <= 0 {
		block = -1
	}
	res, err := f.rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{f.n.CCSFeed(contestID), after}, Count: int64(count), Block: block}).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ccs: read the feed of contest %d: %w", contestID, err)
	}
	var out []Entry
	for _, st := range res {
		out = append(out, entries(st.Messages)...)
	}
	return out, nil
}

// Range returns the entries from the start up to and including id, in
// pages of count, calling fn for each page.
func (f *Feed) Range(ctx context.Context, contestID int64, upTo string, count int, fn func([]Entry) error) error {
	start := "-"
	for {
		xs, err := f.rdb.XRangeN(ctx, f.n.CCSFeed(contestID), start, upTo, int64(count)).Result()
		if err != nil {
			return fmt.Errorf("ccs: range the feed of contest %d: %w", contestID, err)
		}
		if len(xs) == 0 {
			return nil
		}
		if err := fn(entries(xs)); err != nil {
			return err
		}
		if len(xs) < count {
			return nil
		}
		start = "(" + xs[len(xs)-1].ID
	}
}

func entries(ms []redis.XMessage) []Entry {
	out := make([]Entry, 0, len(ms))
	for _, m := range ms {
		e := Entry{ID: m.ID}
		raw, _ := m.Values["f"].(string)
		if err := json.Unmarshal([]byte(raw), &e.Fact); err != nil {
			continue // not ours: skipped
		}
		out = append(out, e)
	}
	return out
}

// Event is one CLICS notification of the event feed.
type Event struct {
	Type  string  `json:"type"`
	ID    *string `json:"id"`
	Data  any     `json:"data"`
	Token string  `json:"token,omitempty"`
}

// NewEvent is an event about one object (id nil for the state).
func NewEvent(typ string, id string, data any) Event {
	e := Event{Type: typ, Data: data}
	if typ != TypeState {
		e.ID = &id
	}
	return e
}

// Reader state of one feed connection: the teams and submissions it
// sent, so that every judgement follows its submission and every
// submission its team even where a fact is missing (a submission whose
// pending fact could not be appended) or the connection resumed; the
// judgements it sent, so that a fact appended twice (a result redelivered
// to another web node after a crash between the feed append and the
// acknowledgement) is not sent twice, and a judgement announced pending
// whose attempt was superseded (its judge's lease expired while the hub
// was down: the hub requeued it as the next attempt) is deleted when the
// next attempt's outcome comes. A resumed connection rebuilds this state
// from the stream up to its token (Resume).
type Reader struct {
	Public       bool
	teamsSent    map[int64]bool
	teamKeysSent map[string]bool // a team contest's teams, by CLICS id
	subsSent     map[int64]bool
	// judgementsSent: a judgement's last data sent (JSON); pendingSent: the
	// attempt of a submission last announced pending and not yet judged.
	judgementsSent map[string]sentJudgement
	pendingSent    map[int64]int
}

// sentJudgement is a judgement as a reader last sent it.
type sentJudgement struct {
	data  string // its JSON
	final bool
}

// NewReader starts a connection's mapping.
func NewReader(public bool) *Reader {
	return &Reader{Public: public, teamsSent: map[int64]bool{}, teamKeysSent: map[string]bool{}, subsSent: map[int64]bool{},
		judgementsSent: map[string]sentJudgement{}, pendingSent: map[int64]int{}}
}

// Resume rebuilds the state of a connection that resumes after a token
// from the entries up to it (what the client was sent then, each mapped
// as at the time it was appended), sending nothing.
func (r *Reader) Resume(c *store.Contest, es []Entry) {
	for _, e := range es {
		r.Events(c, e.Fact, IDTime(e.ID))
	}
}

// SentJudgement records a judgement sent in the snapshot.
func (r *Reader) SentJudgement(j Judgement) {
	b, _ := json.Marshal(j)
	r.judgementsSent[j.ID] = sentJudgement{string(b), j.EndTime != nil}
	if j.EndTime == nil {
		if sub, attempt, ok := splitJudgementID(j.ID); ok {
			r.pendingSent[sub] = attempt
		}
	}
}

// splitJudgementID parses "<submission>-<attempt>" (JudgementID).
func splitJudgementID(id string) (int64, int, bool) {
	s, a, ok := strings.Cut(id, "-")
	sub, err1 := strconv.ParseInt(s, 10, 64)
	attempt, err2 := strconv.Atoi(a)
	return sub, attempt, ok && err1 == nil && err2 == nil
}

// judgement is a judgement's events (its runs, then it) unless this
// reader was sent the same already, or was sent it judged and this is
// it pending again (a fact appended twice); before an attempt's outcome,
// the delete of the previous attempt's judgement if that was announced
// pending and never judged (superseded).
func (r *Reader) judgement(j Judgement, evs []Event) []Event {
	b, _ := json.Marshal(j)
	prev, sent := r.judgementsSent[j.ID]
	if sent && (prev.data == string(b) || (j.EndTime == nil && prev.final)) {
		return nil
	}
	r.judgementsSent[j.ID] = sentJudgement{string(b), j.EndTime != nil}
	sub, attempt, _ := splitJudgementID(j.ID)
	var out []Event
	if p, ok := r.pendingSent[sub]; ok && p < attempt {
		old := JudgementID(sub, p)
		if cur, ok := r.judgementsSent[old]; ok && !cur.final {
			out = append(out, NewEvent(TypeJudgements, old, nil))
			delete(r.judgementsSent, old)
		}
	}
	if j.EndTime == nil {
		r.pendingSent[sub] = attempt
	} else if r.pendingSent[sub] <= attempt {
		delete(r.pendingSent, sub)
	}
	return append(out, evs...)
}

// SentTeam records a team sent in the snapshot.
func (r *Reader) SentTeam(id int64) { r.teamsSent[id] = true }

// SentTeamKey records a team contest's team sent in the snapshot.
func (r *Reader) SentTeamKey(id string) { r.teamKeysSent[id] = true }

// SentSubmission records a submission sent in the snapshot.
func (r *Reader) SentSubmission(id int64) { r.subsSent[id] = true }

// submission is the team (once) and the submission (once) of a fact.
func (r *Reader) submission(c *store.Contest, f Fact) []Event {
	var out []Event
	team := ID(f.UserID)
	if f.Team != "" {
		team = f.Team
		if !r.teamKeysSent[team] {
			r.teamKeysSent[team] = true
			name := f.TeamName
			out = append(out, NewEvent(TypeTeams, team, Team{ID: team, Name: name, Label: team, DisplayName: &name,
				GroupIDs: []string{}, Hidden: f.TeamHidden}))
		}
	} else if !r.teamsSent[f.UserID] {
		r.teamsSent[f.UserID] = true
		out = append(out, NewEvent(TypeTeams, ID(f.UserID), TeamObject(f.UserID, f.Username, f.DisplayName)))
	}
	if !r.subsSent[f.SubmissionID] {
		r.subsSent[f.SubmissionID] = true
		out = append(out, NewEvent(TypeSubmissions, ID(f.SubmissionID),
			SubmissionOf(c, f.SubmissionID, team, f.ProblemID, f.Language, time.UnixMilli(f.At))))
	}
	return out
}

// Events maps a fact to the events it makes for this reader, with the
// contest as it is at now. A public reader gets no judgement nor run of a
// submission whose outcome the freeze holds back (Hidden); a thaw gives
// it the state (the caller replays the held judgements, Replay).
func (r *Reader) Events(c *store.Contest, f Fact, now time.Time) []Event {
	at := time.UnixMilli(f.At)
	hidden := r.Public && Hidden(c, at, now)
	if r.Public && f.TeamHidden {
		return nil // a hidden group's team: staff only
	}
	var out []Event
	switch f.Kind {
	case FactObjects:
		out = r.objectEvents(f)
	case FactSubmission:
		out = r.submission(c, f)
		if !hidden {
			j := PendingJudgement(c, f.SubmissionID, f.Attempt, startOf(f))
			out = append(out, r.judgement(j, []Event{NewEvent(TypeJudgements, j.ID, j)})...)
		}
	case FactJudgement:
		out = r.submission(c, f)
		if !hidden {
			j, evs := judgementEvents(c, f)
			out = append(out, r.judgement(j, evs)...)
		}
	case FactClarification:
		if f.Clar == nil || (r.Public && now.Before(c.StartAt)) {
			break
		}
		cls := ClarificationObjects(c, f.Clar, !r.Public)
		if f.Team != "" { // a team contest's member asked, or is answered
			cls = TeamClarifications(cls, func(string) (string, bool) { return f.Team, true })
		}
		for _, cl := range cls {
			out = append(out, NewEvent(TypeClarifications, cl.ID, cl))
		}
	case FactThaw, FactState:
		out = append(out, NewEvent(TypeState, "", StateObject(c, now)), NewEvent(TypeContests, ContestID(c), ContestObject(c)))
	}
	return out
}

// Replay is what a public reader missed of a fact during the freeze:
// the judgement (and runs) of a submission made at or after the freeze,
// once the contest is thawed.
func (r *Reader) Replay(c *store.Contest, f Fact, now time.Time) []Event {
	if !r.Public || f.TeamHidden || Hidden(c, time.UnixMilli(f.At), now) {
		return nil
	}
	fz := FreezeAt(c)
	if fz.IsZero() || time.UnixMilli(f.At).Before(fz) {
		return nil
	}
	switch f.Kind {
	case FactSubmission:
		j := PendingJudgement(c, f.SubmissionID, f.Attempt, startOf(f))
		return []Event{NewEvent(TypeJudgements, j.ID, j)}
	case FactJudgement:
		_, evs := judgementEvents(c, f)
		return evs
	}
	return nil
}

// startOf is when an attempt's judging started: the submission for the
// first, the rejudge for later ones.
func startOf(f Fact) time.Time {
	if f.Attempt > 1 && f.Event > 0 {
		return time.UnixMilli(f.Event)
	}
	return time.UnixMilli(f.At)
}

// judgementEvents are an outcome's runs and judgement (the last event).
func judgementEvents(c *store.Contest, f Fact) (Judgement, []Event) {
	start := startOf(f)
	end := time.UnixMilli(f.JudgedAt)
	if f.JudgedAt == 0 {
		end = time.UnixMilli(f.Event)
	}
	if end.Before(start) {
		start = end // a rejudge's start is not known once judged
	}
	j, runs := FinalJudgement(c, f.SubmissionID, f.Attempt, f.Verdict, start, end, f.Cases)
	out := make([]Event, 0, len(runs)+1)
	for _, run := range runs {
		out = append(out, NewEvent(TypeRuns, run.ID, run))
	}
	return j, append(out, NewEvent(TypeJudgements, j.ID, j))
}
