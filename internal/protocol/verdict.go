package protocol

// Verdict is the outcome of a submission or of one test case, or the status
// of a submission that has no outcome yet. On the wire and in the database it
// is the short code: upper case for outcomes ("AC"), lower case for statuses
// ("queued").
//
// Adding a Verdict value is not an additive change: older peers reject it.
// Do it only together with the peers that must understand it.
type Verdict string

// Final outcomes.
const (
	// Accepted: every case passed (ICPC), or the case passed.
	VerdictAC Verdict = "AC"
	// Wrong Answer: the checker rejected the output.
	VerdictWA Verdict = "WA"
	// Time Limit Exceeded: CPU time (from the cgroup) or the wall-clock
	// limit was exceeded.
	VerdictTLE Verdict = "TLE"
	// Memory Limit Exceeded: the cgroup's peak memory exceeded the limit.
	VerdictMLE Verdict = "MLE"
	// Output Limit Exceeded: the program wrote more than the output limit.
	VerdictOLE Verdict = "OLE"
	// Runtime Error: killed by a signal, non-zero exit, or a forbidden
	// system call.
	VerdictRE Verdict = "RE"
	// Compile Error: the compiler failed; the result has a compile message
	// and no cases.
	VerdictCE Verdict = "CE"
	// Presentation Error: the output is right except for white space (only
	// checkers that distinguish it report PE; "default" treats it as AC).
	VerdictPE Verdict = "PE"
	// System Error: the judge could not judge (sandbox failure, missing test
	// data, checker crash, or the task failed three attempts). Never the
	// contestant's fault; an admin looks at it.
	VerdictSE Verdict = "SE"
	// Skipped: a case not run because an earlier case failed (ICPC mode).
	// Only a case verdict, never a submission verdict.
	VerdictSkipped Verdict = "SK"
)

// Statuses of a submission that has no outcome yet.
const (
	// Pending: stored but not yet in the judge queue.
	VerdictPending Verdict = "pending"
	// Queued: in the judge queue, waiting for a judge.
	VerdictQueued Verdict = "queued"
	// Compiling: a judge is compiling it.
	VerdictCompiling Verdict = "compiling"
	// Judging: a judge is running its cases.
	VerdictJudging Verdict = "judging"
)

var verdictNames = map[Verdict]string{
	VerdictAC:        "Accepted",
	VerdictWA:        "Wrong Answer",
	VerdictTLE:       "Time Limit Exceeded",
	VerdictMLE:       "Memory Limit Exceeded",
	VerdictOLE:       "Output Limit Exceeded",
	VerdictRE:        "Runtime Error",
	VerdictCE:        "Compile Error",
	VerdictPE:        "Presentation Error",
	VerdictSE:        "System Error",
	VerdictSkipped:   "Skipped",
	VerdictPending:   "Pending",
	VerdictQueued:    "Queued",
	VerdictCompiling: "Compiling",
	VerdictJudging:   "Judging",
}

// Valid reports whether v is one of the constants above.
func (v Verdict) Valid() bool {
	_, ok := verdictNames[v]
	return ok
}

// Final reports whether v is an outcome (not a status).
func (v Verdict) Final() bool {
	switch v {
	case VerdictPending, VerdictQueued, VerdictCompiling, VerdictJudging:
		return false
	}
	return v.Valid()
}

// Name returns the long English name ("Time Limit Exceeded"), or the code
// itself if v is unknown.
func (v Verdict) Name() string {
	if n, ok := verdictNames[v]; ok {
		return n
	}
	return string(v)
}

// String returns the short code.
func (v Verdict) String() string { return string(v) }

// Mode is the scoring mode of a problem.
type Mode string

// Modes.
const (
	// ModeICPC: all or nothing; the judge stops at the first failing case
	// and marks the rest VerdictSkipped.
	ModeICPC Mode = "icpc"
	// ModeIOI: every case runs and scores; the score is the sum.
	ModeIOI Mode = "ioi"
)

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool { return m == ModeICPC || m == ModeIOI }

// CheckerKind says how output is compared with the expected answer.
type CheckerKind string

// Checker kinds.
const (
	// CheckerExact: byte for byte.
	CheckerExact CheckerKind = "exact"
	// CheckerDefault: token by token, ignoring trailing white space at the
	// ends of lines and the end of file.
	CheckerDefault CheckerKind = "default"
	// CheckerFloat: token by token, numbers equal within Checker.Tolerance
	// (absolute or relative).
	CheckerFloat CheckerKind = "float"
	// CheckerSpecial: a problem-provided checker program shipped in the test
	// data, run in the sandbox.
	CheckerSpecial CheckerKind = "special"
	// CheckerICPC: the ICPC problem package format's default output
	// validator, built in: tokens compared case-insensitively, white
	// space ignored, unless the test data's flags say otherwise
	// (testpkg.DefaultValidatorFlags: the manifest's
	// default_validator_flags, a case's validator_args). Needs
	// CapabilityICPCValidator.
	CheckerICPC CheckerKind = "icpc"
)

// Valid reports whether k is a known checker kind.
func (k CheckerKind) Valid() bool {
	switch k {
	case CheckerExact, CheckerDefault, CheckerFloat, CheckerSpecial, CheckerICPC:
		return true
	}
	return false
}

// Priority orders the judge queue: higher Rank first.
type Priority int

// Priorities: contest > custom run > practice > rejudge. The wire values
// stay those of the first three (0, 1, 2); PriorityCustom came later and is
// 3 on the wire, so the queue orders by Rank, not by the value.
const (
	PriorityRejudge  Priority = 0
	PriorityPractice Priority = 1
	PriorityContest  Priority = 2
	// PriorityCustom: custom runs ("run on my input"): below contest
	// submissions, above practice submissions and rejudges (one short
	// run someone is waiting for).
	PriorityCustom Priority = 3
)

// Valid reports whether p is a known priority.
func (p Priority) Valid() bool { return p >= PriorityRejudge && p <= PriorityCustom }

// MaxRank is the Rank of PriorityContest, the highest.
const MaxRank = 3

// Rank orders priorities, higher first: rejudge 0, practice 1, custom
// run 2, contest 3 (MaxRank). An unknown priority ranks as a rejudge.
func (p Priority) Rank() int {
	switch p {
	case PriorityPractice:
		return 1
	case PriorityCustom:
		return 2
	case PriorityContest:
		return MaxRank
	}
	return 0
}
