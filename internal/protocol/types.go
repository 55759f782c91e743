package protocol

import (
	"reflect"
	"slices"
)

// Type is the "type" of an envelope. Type names are unique across both links
// so a message is never ambiguous in logs or tests.
type Type string

// Judge link message types. The arrow gives the direction.
const (
	// TypeHello (judge → hub) is the first message of a judge connection:
	// who the judge is, its token and its capacity. Payload: Hello.
	TypeHello Type = "hello"
	// TypeWelcome (hub → judge) answers hello. Payload: Welcome.
	TypeWelcome Type = "welcome"
	// TypeHeartbeat (judge → hub) is sent every heartbeat interval (3 s by
	// default) and renews the judge's leases. Payload: Heartbeat.
	TypeHeartbeat Type = "heartbeat"
	// TypeTask (hub → judge) pushes one submission attempt. Payload: Task.
	TypeTask Type = "task"
	// TypeAccept (judge → hub) takes a task into the local queue.
	// Payload: Accept.
	TypeAccept Type = "accept"
	// TypeReject (judge → hub) refuses a task; the hub requeues it.
	// Payload: Reject.
	TypeReject Type = "reject"
	// TypeProgress (judge → hub) carries a batch of finished cases (batched
	// at most ProgressBatchInterval). Payload: Progress.
	TypeProgress Type = "progress"
	// TypeResult (judge → hub) is the final outcome of an attempt.
	// Payload: Result.
	TypeResult Type = "result"
	// TypeResultAck (hub → judge) confirms that a result was recorded, or
	// recognised as a duplicate or a stale attempt: the judge may forget it.
	// A judge keeps resending a result until it is acknowledged (when the
	// hub's welcome says it acknowledges results). Payload: ResultAck.
	TypeResultAck Type = "result_ack"
	// TypeCancel (hub → judge) withdraws an attempt the judge holds but no
	// longer owns (its lease expired and the task went elsewhere, or it was
	// judged or superseded meanwhile): the judge stops it and sends nothing
	// for it, freeing the slot. Payload: Cancel.
	TypeCancel Type = "cancel"
	// TypeEvict (hub → judge) drops cached test data. Payload: Evict.
	TypeEvict Type = "evict"
	// TypePrefetch (hub → judge) asks a judge to download test data before
	// any task needs it (hot problems). Payload: Prefetch.
	TypePrefetch Type = "prefetch"
	// TypeDrain (either way) announces a graceful stop: no new tasks, finish
	// the running ones. Payload: Drain.
	TypeDrain Type = "drain"
)

// Live link message types.
const (
	// TypeSubscribe (browser → hub) starts a channel. The hub answers with a
	// snapshot (or an error) carrying the same envelope id.
	// Payload: Subscribe.
	TypeSubscribe Type = "subscribe"
	// TypeUnsubscribe (browser → hub) stops a channel. Payload: Unsubscribe.
	TypeUnsubscribe Type = "unsubscribe"
	// TypeSnapshot (hub → browser) is the full state of a channel at a
	// sequence number. Payload: Snapshot.
	TypeSnapshot Type = "snapshot"
	// TypeEvent (hub → browser) is one change on a channel. Payload: Event.
	TypeEvent Type = "event"
	// TypeQueue (hub → browser) is the queue notice: length, position, ETA
	// and whether every judge is overloaded. Payload: QueueNotice.
	TypeQueue Type = "queue"
	// TypeError (hub → browser) reports a refused request, correlated by
	// envelope id. Payload: Error.
	TypeError Type = "error"
)

type typeInfo struct {
	link    Link
	payload reflect.Type
}

var registry = map[Type]typeInfo{
	TypeHello:     {LinkJudge, reflect.TypeFor[Hello]()},
	TypeWelcome:   {LinkJudge, reflect.TypeFor[Welcome]()},
	TypeHeartbeat: {LinkJudge, reflect.TypeFor[Heartbeat]()},
	TypeTask:      {LinkJudge, reflect.TypeFor[Task]()},
	TypeAccept:    {LinkJudge, reflect.TypeFor[Accept]()},
	TypeReject:    {LinkJudge, reflect.TypeFor[Reject]()},
	TypeProgress:  {LinkJudge, reflect.TypeFor[Progress]()},
	TypeResult:    {LinkJudge, reflect.TypeFor[Result]()},
	TypeResultAck: {LinkJudge, reflect.TypeFor[ResultAck]()},
	TypeCancel:    {LinkJudge, reflect.TypeFor[Cancel]()},
	TypeEvict:     {LinkJudge, reflect.TypeFor[Evict]()},
	TypePrefetch:  {LinkJudge, reflect.TypeFor[Prefetch]()},
	TypeDrain:     {LinkJudge, reflect.TypeFor[Drain]()},

	TypeSubscribe:   {LinkLive, reflect.TypeFor[Subscribe]()},
	TypeUnsubscribe: {LinkLive, reflect.TypeFor[Unsubscribe]()},
	TypeSnapshot:    {LinkLive, reflect.TypeFor[Snapshot]()},
	TypeEvent:       {LinkLive, reflect.TypeFor[Event]()},
	TypeQueue:       {LinkLive, reflect.TypeFor[QueueNotice]()},
	TypeError:       {LinkLive, reflect.TypeFor[Error]()},
}

// Types returns the message types of link, sorted.
func Types(link Link) []Type {
	var ts []Type
	for t, info := range registry {
		if info.link == link {
			ts = append(ts, t)
		}
	}
	slices.Sort(ts)
	return ts
}

// LinkOf returns the link a message type belongs to.
func LinkOf(t Type) (Link, bool) {
	info, ok := registry[t]
	return info.link, ok
}

// PayloadOf returns the Go payload struct type of a message type.
func PayloadOf(t Type) (reflect.Type, bool) {
	info, ok := registry[t]
	return info.payload, ok
}
