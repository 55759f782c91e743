package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ChannelKind is a kind of live channel a browser subscribes to. The kinds
// match the topics of rkeys.Names.Events, so a channel maps to one Redis
// pub/sub channel.
type ChannelKind string

// Channel kinds.
const (
	// ChannelSubmission: one submission's status and cases. ID: submission.
	ChannelSubmission ChannelKind = "submission"
	// ChannelUser: status changes of a user's submissions. ID: user.
	ChannelUser ChannelKind = "user"
	// ChannelContest: a contest's scoreboard. ID: contest.
	ChannelContest ChannelKind = "contest"
	// ChannelQueue: the queue notice. ID: 0.
	ChannelQueue ChannelKind = "queue"
	// ChannelClarifications: a contest's clarifications and announcements
	// changed. ID: contest. Events carry a ClarificationChange, never the
	// text: a browser re-reads the list through the REST API, which applies
	// who may see what. Private answers go to the asker's user channel
	// instead.
	ChannelClarifications ChannelKind = "clarifications"
	// ChannelStatus: the status page. ID 0: every submission of the site;
	// ID a contest: that contest's submissions. Events are EventStatus
	// with a SubmissionState without cases, one per status change (a new
	// submission arrives as queued); the snapshot state is {} (a browser
	// re-reads its page through the REST API, which applies who may see
	// what). Staff get every event; other logged-in browsers only those of
	// submissions everyone may list (Feedback.StatusPublic: contests whose
	// status page shows everyone's verdicts, practice on public problems),
	// censored by the feedback policy, on ID 0 numbered by the hub without
	// gaps.
	ChannelStatus ChannelKind = "status"
)

// Valid reports whether k is a known channel kind.
func (k ChannelKind) Valid() bool {
	switch k {
	case ChannelSubmission, ChannelUser, ChannelContest, ChannelQueue, ChannelClarifications, ChannelStatus:
		return true
	case ChannelBalloons: // balloons.go
		return true
	}
	return false
}

// Channel names one live channel.
type Channel struct {
	Kind ChannelKind `json:"kind"`
	ID   int64       `json:"id"`
}

// Validate checks the kind and id.
func (c Channel) Validate() error {
	if !c.Kind.Valid() {
		return fmt.Errorf("channel kind %q unknown", c.Kind)
	}
	if c.Kind == ChannelQueue {
		if c.ID != 0 {
			return fmt.Errorf("queue channel id %d, want 0", c.ID)
		}
		return nil
	}
	if c.Kind == ChannelStatus {
		if c.ID < 0 {
			return fmt.Errorf("status channel id %d < 0", c.ID)
		}
		return nil
	}
	if c.ID < 1 {
		return fmt.Errorf("channel %s id %d < 1", c.Kind, c.ID)
	}
	return nil
}

// String returns "kind:id".
func (c Channel) String() string { return fmt.Sprintf("%s:%d", c.Kind, c.ID) }

// Subscribe starts a channel. SinceSeq > 0 says what the browser already
// applied; the hub answers with a fresh snapshot either way (it keeps no
// event history), so a hub that replays missed events instead stays
// compatible with browsers.
type Subscribe struct {
	Channel  Channel `json:"channel"`
	SinceSeq uint64  `json:"since_seq,omitempty"`
}

// Validate checks the channel.
func (s Subscribe) Validate() error { return s.Channel.Validate() }

// Unsubscribe stops a channel.
type Unsubscribe struct {
	Channel Channel `json:"channel"`
}

// Validate checks the channel.
func (u Unsubscribe) Validate() error { return u.Channel.Validate() }

// Snapshot is the whole state of a channel as of sequence Seq; the next
// event of the channel has Seq+1. State's shape depends on the channel kind:
// SubmissionState for submissions, QueueNotice for the queue, and the
// webapp's scoreboard and submission-list documents for contests and users.
type Snapshot struct {
	Channel Channel         `json:"channel"`
	Seq     uint64          `json:"seq"`
	State   json.RawMessage `json:"state"`
}

// Validate checks the channel and that State is present.
func (s Snapshot) Validate() error {
	return errors.Join(s.Channel.Validate(), requireJSON("state", s.State))
}

// EventKind is what an Event says happened.
type EventKind string

// Event kinds.
const (
	// EventCases: cases finished. Body: SubmissionState with the new cases
	// only (append them).
	EventCases EventKind = "cases"
	// EventStatus: the submission changed status or got its final verdict.
	// Body: SubmissionState without cases.
	EventStatus EventKind = "status"
	// EventScoreboard: scoreboard rows changed, came or left. Body:
	// internal/boarddoc (DeltaBody, or the whole board).
	EventScoreboard EventKind = "scoreboard"
	// EventClarification: a clarification was asked, answered or announced.
	// Body: ClarificationChange. On a clarifications channel and, for a
	// private answer, on the asker's user channel.
	EventClarification EventKind = "clarification"
	// EventCustomRun: a custom run of the channel's user changed status or
	// finished. Body: CustomRunState (whole, with the runs once final).
	// On user channels only (nobody else may watch them).
	EventCustomRun EventKind = "custom_run"
)

// ClarificationChange says which clarification of which contest changed
// and how. What: "question" (asked), "answer" (answered or re-answered),
// "announcement". Public: everyone may see it (announcements, public
// answers); a browser of a participant ignores changes that are not
// public on the contest's channel, staff re-read on every change.
type ClarificationChange struct {
	ContestID int64  `json:"contest_id"`
	ID        int64  `json:"id"`
	What      string `json:"what"`
	Public    bool   `json:"public"`
}

// Validate checks the ids and the kind of change.
func (c ClarificationChange) Validate() error {
	var errs []error
	if c.ContestID < 1 || c.ID < 1 {
		errs = append(errs, fmt.Errorf("contest_id %d and id %d must be >= 1", c.ContestID, c.ID))
	}
	switch c.What {
	case "question", "answer", "announcement":
	default:
		errs = append(errs, fmt.Errorf("what %q: want question, answer or announcement", c.What))
	}
	return errors.Join(errs...)
}

// Event is one change on a channel. Seq increases by exactly one per event
// within a channel (per hub-side channel history), so a gap tells the
// browser it missed something and must resubscribe with SinceSeq.
type Event struct {
	Channel Channel         `json:"channel"`
	Seq     uint64          `json:"seq"`
	Kind    EventKind       `json:"kind"`
	Body    json.RawMessage `json:"body"`
}

// Validate checks the channel, the sequence, the kind and the body.
func (e Event) Validate() error {
	var errs []error
	errs = append(errs, e.Channel.Validate())
	if e.Seq < 1 {
		errs = append(errs, errors.New("seq must be >= 1"))
	}
	if e.Kind == "" {
		errs = append(errs, errors.New("kind is empty"))
	}
	errs = append(errs, requireJSON("body", e.Body))
	return errors.Join(errs...)
}

func requireJSON(field string, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("%s is missing", field)
	}
	return nil
}

// SubmissionState is the live view of a submission: the snapshot state of a
// submission channel and the body of its events.
type SubmissionState struct {
	SubmissionID   int64        `json:"submission_id"`
	Status         Verdict      `json:"status"`
	Score          float64      `json:"score"`
	CompileMessage string       `json:"compile_message,omitempty"`
	Cases          []CaseResult `json:"cases,omitempty"`
	// Feedback is the policy the hub applied to this state for a browser
	// that is not staff (empty for staff: nothing was held back). With
	// FeedbackClosed and Status pending the results are hidden until the
	// contest ends.
	Feedback FeedbackPolicy `json:"feedback,omitempty"`
	// Subtasks are the subtasks' scores as of this state (IOI-mode
	// problems with subtasks, under the policies that show scores). In an
	// event they are whole, not new ones: they replace the earlier.
	Subtasks []SubtaskScore `json:"subtasks,omitempty"`
	// FirstFailure is the first failing case under the first_failure
	// policy as of this state (0: none failed yet, or another policy),
	// exactly as the REST answer's first_failure.
	FirstFailure int `json:"first_failure,omitempty"`
}

// UserState is the snapshot state of a user channel: the latest status
// of the user's most recent submissions (at most UserStateItems, newest
// first), so a browser that reconnects learns the verdicts it missed
// while its socket was down.
type UserState struct {
	Items []SubmissionState `json:"items"`
}

// UserStateItems bounds UserState.Items.
const UserStateItems = 100

// QueueNotice tells browsers (and web nodes) how loaded the judges are.
type QueueNotice struct {
	QueueLength int `json:"queue_length"`
	// Position of the browser's own submission in the queue (1-based), 0
	// when not applicable.
	Position   int  `json:"position"`
	ETASeconds int  `json:"eta_seconds"`
	Overloaded bool `json:"overloaded"` // every judge is skipped as overloaded
}

// Validate checks ranges.
func (q QueueNotice) Validate() error {
	if q.QueueLength < 0 || q.Position < 0 || q.ETASeconds < 0 {
		return fmt.Errorf("negative field in %+v", q)
	}
	return nil
}

// ErrorCode is the machine-readable cause of an Error.
type ErrorCode string

// Error codes.
const (
	ErrorBadRequest  ErrorCode = "bad_request"  // malformed or invalid request
	ErrorForbidden   ErrorCode = "forbidden"    // not allowed to see the channel
	ErrorNotFound    ErrorCode = "not_found"    // no such submission/contest/user
	ErrorRateLimited ErrorCode = "rate_limited" // too many subscriptions
	ErrorInternal    ErrorCode = "internal"     // the hub failed; retry later
)

// Error reports a refused request. The envelope id is that of the request.
type Error struct {
	Code    ErrorCode `json:"code"`
	Message string    `json:"message,omitempty"`
	// Channel is the channel concerned, if any.
	Channel *Channel `json:"channel,omitempty"`
}

// Validate requires a code.
func (e Error) Validate() error {
	if e.Code == "" {
		return errors.New("code is empty")
	}
	return nil
}
