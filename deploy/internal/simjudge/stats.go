package simjudge

import (
	"maps"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// EventKind names a change of a task on a simulated judge.
type EventKind string

// Event kinds, in the order a task normally goes through them.
const (
	// EventReceived: the hub pushed the attempt (also a repeated push).
	EventReceived EventKind = "received"
	// EventAccepted: accept sent.
	EventAccepted EventKind = "accepted"
	// EventRejected: reject sent (Event.Reason says why); also a task given
	// back after it was accepted (RejectData: the download failed).
	EventRejected EventKind = "rejected"
	// EventStarted: a slot took the task (the test data download starts).
	EventStarted EventKind = "started"
	// EventFinished: the simulated work is done; the result is produced.
	EventFinished EventKind = "finished"
	// EventResultSent: the result was written to the hub (again, when
	// TaskRecord.Sends > 1).
	EventResultSent EventKind = "result_sent"
	// EventAcked: the hub acknowledged the result.
	EventAcked EventKind = "acked"
	// EventCancelled: the hub cancelled the attempt; it was dropped and
	// nothing is reported for it.
	EventCancelled EventKind = "cancelled"
	// EventDataReady: a test data package (Task.ProblemID, Task.DataHash;
	// no submission) is downloaded and verified, for a task or a prefetch
	// (the hub's warming). The rehearsal records what each judge held at
	// the contest's start from these.
	EventDataReady EventKind = "data_ready"
)

// Event is one change of one task, with the task's record as it is after
// the change.
type Event struct {
	Kind    EventKind
	JudgeID string
	At      time.Time
	// Reason is set for EventRejected.
	Reason protocol.RejectReason
	Task   TaskRecord
}

// TaskRecord is what a simulated judge knows about one attempt it was
// pushed. Times are zero until the step happened.
type TaskRecord struct {
	SubmissionID int64
	Attempt      int
	ProblemID    int64
	DataHash     string // the task's test data
	Language     string
	// Pushes counts the task messages received for this attempt.
	Pushes int
	// Received is the first push; Accepted the first accept sent.
	Received, Accepted time.Time
	// Enqueued and Placed are the first push's times from the hub
	// (protocol.Task.Times: the queue's enqueue, the start of the pass
	// that placed it); zero from a hub that does not send them.
	Enqueued, Placed time.Time
	// Noticed is when the hub read the notice of the enqueue
	// (protocol.Task.Noticed); zero when it had not, or did not say.
	Noticed time.Time
	// Held is how often the hub's passes held it before placing it, and
	// why (protocol.Task.Held; nil: never, or the hub did not say).
	Held *protocol.Held
	// Started: a slot took it; Finished: its simulated work ended.
	Started, Finished time.Time
	// Work is the simulated work slept: compile plus every case run;
	// Compile the part of it spent compiling (the result's case times,
	// which the hub learns run times from, leave it out).
	Work, Compile time.Duration
	// Verdict and Score of the result sent; Cases its case count.
	Verdict protocol.Verdict
	Score   float64
	Cases   int
	// Sends counts the times the result was written (more than 1: resent);
	// Sent is the first send's protocol.Result.SentMs, the time the hub
	// counts the result's way to it from.
	Sends int
	Sent  time.Time
	// Acked reports a result_ack for it, at AckedAt. SlotMs is the first
	// ack's protocol.ResultAck.SlotMs: how long the hub took from the
	// result's sending to its slot free (0: the hub freed no slot for it,
	// or does not say).
	Acked   bool
	AckedAt time.Time
	SlotMs  float64
	// Rejected is the reason of the last reject sent, if any.
	Rejected protocol.RejectReason
	// Cancelled: the hub cancelled it while held.
	Cancelled bool
}

// Stats are a simulated judge's counters and the record of every attempt
// it was pushed (in order of first arrival), since New.
type Stats struct {
	JudgeID string
	// Connected: welcomed by a hub now.
	Connected bool
	// Received counts task messages (repeated pushes too); Accepted the
	// accepts sent.
	Received, Accepted int64
	// Rejected counts rejects sent, RejectedBy per reason.
	Rejected   int64
	RejectedBy map[protocol.RejectReason]int64
	// Cancelled counts cancels that dropped a held attempt.
	Cancelled int64
	// Judged counts results produced; ResultsSent the result messages
	// written (first sends and resends); Resends the writes after the
	// first; Acked the result_acks that matched a pending result.
	Judged, ResultsSent, Resends, Acked int64
	// Connections counts welcomed connections; Reconnects the dials after
	// the first one (failed or not).
	Connections, Reconnects int64
	// Downloads counts package downloads (whatever their outcome),
	// BytesDownloaded their bytes, DataHashMismatches the downloads whose
	// SHA-256 was not the task's hash, Prefetches the prefetches that ran.
	Downloads, BytesDownloaded, DataHashMismatches, Prefetches int64
	// Evicted counts packages dropped on evict.
	Evicted int64
	// Cached lists the package hashes held now.
	Cached []string
	Tasks  []TaskRecord
}

// counters is the mutable part of Stats (under Judge.mu).
type counters struct {
	received, accepted, rejected, cancelled           int64
	rejectedBy                                        map[protocol.RejectReason]int64
	judged, resultsSent, resends, acked               int64
	connections, reconnects                           int64
	downloads, bytes, mismatches, prefetches, evicted int64
}

// Stats returns a copy of the judge's counters and task records.
func (j *Judge) Stats() Stats {
	cached := j.data.hashes()
	j.mu.Lock()
	defer j.mu.Unlock()
	c := &j.c
	s := Stats{
		JudgeID: j.cfg.ID, Connected: j.link.Load() != nil,
		Received: c.received, Accepted: c.accepted, Rejected: c.rejected, RejectedBy: maps.Clone(c.rejectedBy),
		Cancelled: c.cancelled, Judged: c.judged, ResultsSent: c.resultsSent, Resends: c.resends, Acked: c.acked,
		Connections: c.connections, Reconnects: c.reconnects,
		Downloads: c.downloads, BytesDownloaded: c.bytes, DataHashMismatches: c.mismatches, Prefetches: c.prefetches,
		Evicted: c.evicted, Cached: cached,
		Tasks: make([]TaskRecord, 0, len(j.order)),
	}
	for _, ref := range j.order {
		s.Tasks = append(s.Tasks, *j.records[ref])
	}
	return s
}

// record returns the record of ref, creating it (under j.mu).
func (j *Judge) recordLocked(ref protocol.TaskRef) *TaskRecord {
	r, ok := j.records[ref]
	if !ok {
		r = &TaskRecord{SubmissionID: ref.SubmissionID, Attempt: ref.Attempt}
		j.records[ref] = r
		j.order = append(j.order, ref)
	}
	return r
}

// note applies change to ref's record and counters under j.mu, then
// reports the event (outside the lock).
func (j *Judge) note(kind EventKind, ref protocol.TaskRef, reason protocol.RejectReason, change func(r *TaskRecord, c *counters)) {
	now := time.Now()
	j.mu.Lock()
	r := j.recordLocked(ref)
	if change != nil {
		change(r, &j.c)
	}
	ev := Event{Kind: kind, JudgeID: j.cfg.ID, At: now, Reason: reason, Task: *r}
	j.mu.Unlock()
	if j.cfg.OnEvent != nil {
		j.cfg.OnEvent(ev)
	}
}

// count changes counters only.
func (j *Judge) count(change func(c *counters)) {
	j.mu.Lock()
	change(&j.c)
	j.mu.Unlock()
}
