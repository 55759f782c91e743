package hub

import (
	"context"
	"encoding/json"
	"time"

	"github.com/verdict-oj/verdict/internal/feedback"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
)

// What browsers see of a submission, live.
//
// The live state in Redis (internal/queue) keeps a submission's results
// whole, checker messages of hidden cases included, with the feedback rule
// the web node chose when it enqueued the submission (protocol.Feedback:
// the contest's policy or the problem's practice default, the contest's
// end, the sample cases). Every event the queue publishes on a submission
// or user channel carries that rule. The hub censors per subscriber, when
// it forwards, with feedback.State (a whole state) and feedback.Event (a
// cases event, as part of the whole result: the queue sends the cases held
// before it), the very View the web nodes apply to their REST answers:
//
//   - Censoring at publish time would need a second, staff-only channel
//     per submission (staff must see everything live) and would freeze the
//     decision at the moment of the judge's progress, while closed depends
//     on the clock: a result published during the contest must be hidden
//     from its owner, the same state read after the end must not be. Per
//     subscriber, the snapshot and every event are decided when they are
//     sent.
//   - It stays cheap: only the owner and staff may subscribe to these
//     channels (see authorize), so an event is encoded at most twice, once
//     for staff (whole) and once for the owner (censored), however many
//     browsers watch it.
//   - The rule is in the event itself, so the pub/sub goroutine makes no
//     Redis call, and a rejudge under a changed policy takes effect on
//     its first event.
//
// A state without a rule (enqueued before rules existed) is censored as
// first_failure: no message, no case data.

// staffRole reports whether a session's role sees everything.
func staffRole(role string) bool { return role == RoleAdmin || role == RoleSetter }

// viewer is who the browser is to a submission's results. Only the owner
// and admins pass authorize for submission and user channels.
func (c *browserConn) viewer() feedback.Viewer {
	if staffRole(c.sess.Role) {
		return feedback.Staff
	}
	return feedback.Owner
}

// liveSnapshot is a submission channel's snapshot state as the browser may
// see it.
func (c *browserConn) liveSnapshot(s queue.SubmissionSnapshot) (json.RawMessage, error) {
	var fb protocol.Feedback
	if s.Feedback != nil {
		fb = *s.Feedback
	}
	now := time.Now()
	st := feedback.State(fb, c.viewer(), feedback.PhaseAt(fb, now), s.State)
	return json.Marshal(st)
}

// queueEvent is an event as internal/queue publishes it on submission and
// user channels: a protocol.Event with the submission's feedback rule and,
// for a cases event, the cases the live state held before it (Prior).
type queueEvent struct {
	protocol.Event
	Feedback *protocol.Feedback    `json:"feedback"`
	Prior    []protocol.CaseResult `json:"prior"`
}

// onSubmissionEvent forwards one event of a submission or user channel:
// whole to staff, censored to the owner. Events that are not a
// submission's state (a clarification on a user channel) go to everyone
// as they are, without the rule. A cases event is censored as part of the
// whole result (feedback.Event, with the event's prior cases): the cases a
// browser appends from the snapshot on are exactly what the REST answer
// shows, and each cases event carries the whole first failure and subtask
// scores, for staff as for the owner.
func (t *topic) onSubmissionEvent(payload string) {
	var ev queueEvent
	if err := json.Unmarshal([]byte(payload), &ev); err != nil || ev.Seq == 0 {
		t.h.log.Warn("bad event on channel", "channel", t.key, "err", err)
		return
	}
	staff, err := protocol.Marshal(protocol.TypeEvent, "", ev.Event)
	if err != nil {
		t.h.log.Warn("bad event on channel", "channel", t.key, "err", err)
		return
	}
	owner := staff
	if ev.Kind == protocol.EventCases || ev.Kind == protocol.EventStatus {
		var st protocol.SubmissionState
		if err := json.Unmarshal(ev.Body, &st); err != nil {
			t.h.log.Warn("bad submission event on channel", "channel", t.key, "err", err)
			return
		}
		var fb protocol.Feedback
		if ev.Feedback != nil {
			fb = *ev.Feedback
		}
		if ev.Kind == protocol.EventCases {
			staff, err = censorCases(ev.Event, fb, feedback.Staff, ev.Prior, st)
			if err == nil {
				owner, err = censorCases(ev.Event, fb, feedback.Owner, ev.Prior, st)
			}
		} else {
			owner, err = censorEvent(ev.Event, fb, feedback.Owner, st)
		}
		if err != nil {
			t.h.log.Warn("censoring an event failed", "channel", t.key, "err", err)
			return
		}
	}
	t.h.m.broadcasts.WithLabelValues(string(t.kind)).Inc()
	for _, s := range t.snapshotSubs() {
		if s.c.viewer() == feedback.Staff {
			s.deliver(ev.Seq, staff)
		} else {
			s.deliver(ev.Seq, owner)
		}
	}
}

// userSnapshot is a user channel's snapshot state as the browser may see
// it: each submission's status censored by its own rule. An item whose
// rule is gone (its live state expired before the user channel's) is
// dropped rather than guessed: the browser reads the list from the REST
// API, which applies the rule from MySQL.
func (c *browserConn) userSnapshot(ctx context.Context, st protocol.UserState) (protocol.UserState, error) {
	if c.viewer() == feedback.Staff {
		return st, nil
	}
	ids := make([]int64, len(st.Items))
	for i, it := range st.Items {
		ids[i] = it.SubmissionID
	}
	rules, err := c.h.q.Feedbacks(ctx, ids)
	if err != nil {
		return st, err
	}
	now := time.Now()
	out := protocol.UserState{Items: make([]protocol.SubmissionState, 0, len(st.Items))}
	for _, it := range st.Items {
		fb, ok := rules[it.SubmissionID]
		if !ok {
			continue
		}
		out.Items = append(out.Items, feedback.State(fb, feedback.Owner, feedback.PhaseAt(fb, now), it))
	}
	return out, nil
}

// onStatusEvent forwards one event of a status channel (the status page):
// whole to staff; to other browsers only when the submission's rule lists
// it to everyone (StatusPublic: practice on a public problem, or a contest
// whose status page lists everyone's verdicts), censored as another
// contestant sees it, exactly the rows the REST list shows them.
//
// On a contest's channel all submissions share the setting, so a browser
// that is not staff receives all of a channel's events or none of them (a
// gap appears only when an admin changes the setting, and the resubscribe
// that follows gives a fresh snapshot). The site's channel mixes
// submissions others may list with submissions they may not: the events
// they receive are numbered by the topic's own sequence (publicSeq, the
// snapshot's seq for them too), so their stream has no gaps.
func (t *topic) onStatusEvent(payload string) {
	var ev queueEvent
	if err := json.Unmarshal([]byte(payload), &ev); err != nil || ev.Seq == 0 {
		t.h.log.Warn("bad event on channel", "channel", t.key, "err", err)
		return
	}
	staff, err := protocol.Marshal(protocol.TypeEvent, "", ev.Event)
	if err != nil {
		t.h.log.Warn("bad event on channel", "channel", t.key, "err", err)
		return
	}
	var public []byte
	publicSeq := ev.Seq
	if ev.Feedback != nil && ev.Feedback.StatusPublic && ev.Kind == protocol.EventStatus {
		var st protocol.SubmissionState
		if err := json.Unmarshal(ev.Body, &st); err != nil {
			t.h.log.Warn("bad status event on channel", "channel", t.key, "err", err)
			return
		}
		pub := ev.Event
		if t.ch.ID == 0 {
			t.mu.Lock()
			t.publicSeq++
			publicSeq = t.publicSeq
			t.mu.Unlock()
			pub.Seq = publicSeq
		}
		if public, err = censorEvent(pub, *ev.Feedback, feedback.Other, st); err != nil {
			t.h.log.Warn("censoring an event failed", "channel", t.key, "err", err)
			return
		}
	}
	t.h.m.broadcasts.WithLabelValues(string(t.kind)).Inc()
	for _, s := range t.snapshotSubs() {
		switch {
		case s.c.viewer() == feedback.Staff:
			s.deliver(ev.Seq, staff)
		case public != nil:
			s.deliver(publicSeq, public)
		}
	}
}

// publicStatusSeq is the site's status channel's sequence as a browser
// that is not staff sees it (onStatusEvent): its snapshot's seq. The
// subscription is already in the topic, so every event numbered after
// this reaches it.
func (h *Hub) publicStatusSeq() uint64 {
	key := h.n.Events(string(protocol.ChannelStatus), 0)
	h.mu.Lock()
	t := h.topics[key]
	h.mu.Unlock()
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.publicSeq
}

// censorEvent is ev as viewer may see it under fb now: its body replaced
// by st censored (feedback.State), encoded as a live frame.
func censorEvent(ev protocol.Event, fb protocol.Feedback, viewer feedback.Viewer, st protocol.SubmissionState) ([]byte, error) {
	body, err := json.Marshal(feedback.State(fb, viewer, feedback.PhaseAt(fb, time.Now()), st))
	if err != nil {
		return nil, err
	}
	ev.Body = body
	return protocol.Marshal(protocol.TypeEvent, "", ev)
}

// censorCases is the cases event ev as viewer may see it under fb now, its
// new cases st censored as part of the whole result with prior
// (feedback.Event), encoded as a live frame.
func censorCases(ev protocol.Event, fb protocol.Feedback, viewer feedback.Viewer, prior []protocol.CaseResult, st protocol.SubmissionState) ([]byte, error) {
	body, err := json.Marshal(feedback.Event(fb, viewer, feedback.PhaseAt(fb, time.Now()), prior, st))
	if err != nil {
		return nil, err
	}
	ev.Body = body
	return protocol.Marshal(protocol.TypeEvent, "", ev)
}
