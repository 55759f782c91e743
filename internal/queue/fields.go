package queue

import (
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/redisscript"
)

// Fields of a task record (rkeys.Names.Task), the hash every move of a
// task between queue, lease and result reads and writes.
const (
	taskAttempt  = "attempt" // the current attempt
	taskBase     = "base"    // the attempt enqueued: MaxAttempts counts from it
	taskState    = "state"   // stateQueued, stateLeased or stateDone
	taskScore    = "score"   // the queue score (see score)
	taskEnqueued = "enq_ms"  // Redis's time of the enqueue, ms
	taskPayload  = "payload" // the protocol.Task JSON; emptied when done
	taskUser     = "user"
	taskContest  = "contest"
	taskProblem  = "problem"
	taskJudge    = "judge" // the lease's holder; "" while queued
	// The results stream entry id of the judge's result that completed
	// the attempt: a judge that sends the same result again (the answer to
	// its first completion was lost) is answered as the first time. A
	// system error (every lease expired) does not set it; only Enqueue
	// moves a done task, and it writes the record anew.
	taskDoneID = "done_id"
)

// Values of taskState.
const (
	stateQueued = "queued"
	stateLeased = "leased"
	stateDone   = "done"
)

// Fields of a channel's live state (rkeys.Names.LiveState) and of a custom
// run's record (rkeys.Names.CustomRun).
const (
	liveSeq      = "seq"     // the channel's last event number
	liveAttempt  = "attempt" // a submission's: the attempt its cases are of
	liveHead     = "head"    // a submission's protocol.SubmissionState without cases
	liveOwner    = "owner"   // a submission's or custom run's owner
	liveContest  = "contest" // a submission's contest
	liveFeedback = "fb"      // a submission's protocol.Feedback JSON
	livePrior    = "prior"   // a submission's cases in short, comma-joined JSON
	liveCase     = "c:"      // + case index: a submission's protocol.CaseResult JSON
	liveItem     = "s:"      // + submission id: a user channel's latest head of it
	liveDoc      = "state"   // a web-node-owned channel's document; a custom run's state
	liveDocTag   = "tag"     // a web-node-owned channel's last publish's random tag (DocVersion)
	// A web-node-owned channel's document's DocOrder: Gen, Seq, At (ms).
	liveOrderGen = "ogen"
	liveOrderSeq = "oseq"
	liveOrderAt  = "oat"
)

// luaNames are the names the package's scripts take from Go ($name, see
// redisscript.Expand): every hash and stream field, every state, and the
// numbers the scripts share with Go.
var luaNames = map[string]any{
	"taskAttempt": taskAttempt, "taskBase": taskBase, "taskState": taskState, "taskScore": taskScore,
	"taskEnqueued": taskEnqueued, "taskPayload": taskPayload, "taskUser": taskUser,
	"taskContest": taskContest, "taskProblem": taskProblem, "taskJudge": taskJudge,
	"taskDoneID": taskDoneID,

	"stateQueued": stateQueued, "stateLeased": stateLeased, "stateDone": stateDone,

	"liveSeq": liveSeq, "liveAttempt": liveAttempt, "liveHead": liveHead, "liveOwner": liveOwner,
	"liveContest": liveContest, "liveFeedback": liveFeedback, "livePrior": livePrior,
	"liveCase": liveCase, "liveItem": liveItem, "liveDoc": liveDoc,
	"liveDocTag": liveDocTag, "liveOrderGen": liveOrderGen, "liveOrderSeq": liveOrderSeq, "liveOrderAt": liveOrderAt,

	"FieldSubmissionID": FieldSubmissionID, "FieldAttempt": FieldAttempt, "FieldVerdict": FieldVerdict,
	"FieldSource": FieldSource, "FieldJudgeID": FieldJudgeID, "FieldResult": FieldResult,
	"FieldReason": FieldReason, "SourceJudge": SourceJudge, "SourceHub": SourceHub,
	"VerdictSE": string(protocol.VerdictSE), "VerdictPending": string(protocol.VerdictPending),
	"VerdictQueued": string(protocol.VerdictQueued), "VerdictCompiling": string(protocol.VerdictCompiling),
	"VerdictJudging": string(protocol.VerdictJudging),

	"UserStateItems": protocol.UserStateItems, "reapArgs": reapArgs,

	"GuardNone": int(GuardNone), "GuardLeased": int(GuardLeased), "GuardAttempt": int(GuardAttempt),
	"GuardQueued": int(GuardQueued), "GuardUnfinished": int(GuardUnfinished),
}

// lua expands a script's $names from luaNames.
func lua(src string) string { return redisscript.Expand(src, luaNames) }
