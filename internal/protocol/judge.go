package protocol

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// DefaultHeartbeatInterval is the heartbeat period a hub announces in Welcome
// unless configured otherwise.
const DefaultHeartbeatInterval = 3 * time.Second

// ProgressBatchInterval is the longest a judge holds a finished case before
// sending it in a progress message.
const ProgressBatchInterval = 250 * time.Millisecond

// Sizes judges truncate text to before sending it, so results stay far below
// MaxJudgeMessage.
const (
	MaxCompileMessage = 64 << 10 // Result.CompileMessage, bytes
	MaxCaseMessage    = 1 << 10  // CaseResult.Message, bytes
)

// Language is a language a judge can compile and run.
type Language struct {
	ID      string `json:"id"`      // e.g. "cpp17", matches the webapp's language ids
	Version string `json:"version"` // compiler/runtime version, e.g. "g++ 12.2.0"
}

// Hello is the first message of a judge. The hub checks the token against
// the judge's stored hash; on failure it closes with CloseBadToken.
type Hello struct {
	JudgeID      string     `json:"judge_id"`
	Token        string     `json:"token"`
	AgentVersion string     `json:"agent_version"`
	Cores        int        `json:"cores"`
	MemoryBytes  int64      `json:"memory_bytes"`
	Languages    []Language `json:"languages"`
	// CachedData lists the content hashes of test data the judge holds, so
	// the hub can prefer it for those problems.
	CachedData []string `json:"cached_data"`
	// MaxParallel is how many tasks the judge runs at once.
	MaxParallel int `json:"max_parallel"`
	// Capabilities lists the task kinds beyond the original ones the
	// judge understands (Capability*). Absent from judges that predate
	// it: the hub then sends them none of those kinds (Task.Needs).
	Capabilities []string `json:"capabilities,omitempty"`
}

// Judge capabilities, announced in Hello.Capabilities.
const (
	// CapabilityInputValidation: the judge runs input validations
	// (Task.Validation, validation.go), in every language of its table
	// and with several sources.
	CapabilityInputValidation = "input_validation"
	// CapabilityProgramLanguages: the judge compiles and runs a
	// package's checker or interactor written in a language of its table
	// other than C and C++ (Checker.Language: Python 3, Java), with that
	// language's commands. An older judge knows C and C++ checkers only.
	CapabilityProgramLanguages = "checker_languages"
	// CapabilityICPCValidator: the judge has the checker kind CheckerICPC
	// (the ICPC default output validator with the test data's flags). An
	// older judge refuses the kind.
	CapabilityICPCValidator = "icpc_validator"
	// CapabilityBuildCheck: the judge compiles a program without running
	// it (InputValidation.BuildOnly: a package's output validator checked
	// at import).
	CapabilityBuildCheck = "build_check"
	// CapabilityGrading: the judge grades by the test data's ICPC grading
	// rules (testpkg.Manifest's grading: test data groups with on_reject
	// and the default grader's flags — ignore_sample, always_accept,
	// first_error, worst_error), which decide the cases it judges and
	// the verdict. An older judge refuses such a package.
	CapabilityGrading = "icpc_grading"
)

// Needs lists the capabilities a judge must announce to be sent t: a
// judge without one would misread the task (an input validation is, to
// an older judge, a submission with no source).
// A C or C++ checker or interactor needs nothing: such tasks go to every
// judge, as before capabilities existed.
func (t Task) Needs() []string {
	var out []string
	if t.Validation != nil {
		out = append(out, CapabilityInputValidation)
		if t.Validation.BuildOnly {
			out = append(out, CapabilityBuildCheck)
		}
	}
	if t.Checker.Language != "" {
		out = append(out, CapabilityProgramLanguages)
	}
	if t.Checker.Kind == CheckerICPC {
		out = append(out, CapabilityICPCValidator)
	}
	if t.Grading {
		out = append(out, CapabilityGrading)
	}
	return out
}

// Validate checks the fields the hub relies on.
func (h Hello) Validate() error {
	var errs []error
	if h.JudgeID == "" {
		errs = append(errs, errors.New("judge_id is empty"))
	}
	if h.Token == "" {
		errs = append(errs, errors.New("token is empty"))
	}
	if h.Cores < 1 {
		errs = append(errs, fmt.Errorf("cores %d < 1", h.Cores))
	}
	if h.MaxParallel < 1 {
		errs = append(errs, fmt.Errorf("max_parallel %d < 1", h.MaxParallel))
	}
	if h.MemoryBytes < 0 {
		errs = append(errs, fmt.Errorf("memory_bytes %d < 0", h.MemoryBytes))
	}
	for i, l := range h.Languages {
		if l.ID == "" {
			errs = append(errs, fmt.Errorf("languages[%d].id is empty", i))
		}
	}
	for i, c := range h.Capabilities {
		if c == "" {
			errs = append(errs, fmt.Errorf("capabilities[%d] is empty", i))
		}
	}
	return errors.Join(errs...)
}

// LogValue implements slog.LogValuer and leaves the token out of logs.
func (h Hello) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("judge_id", h.JudgeID),
		slog.String("agent_version", h.AgentVersion),
		slog.Int("cores", h.Cores),
		slog.Int64("memory_bytes", h.MemoryBytes),
		slog.Int("languages", len(h.Languages)),
		slog.Int("cached_data", len(h.CachedData)),
		slog.Int("max_parallel", h.MaxParallel),
		slog.Any("capabilities", h.Capabilities),
	)
}

// Welcome is the hub's answer to Hello. A refused judge also gets a close
// code saying whether to retry.
type Welcome struct {
	Accepted bool `json:"accepted"`
	// Reason explains a refusal; empty when accepted.
	Reason string `json:"reason,omitempty"`
	// HubID names the hub instance, for logs.
	HubID string `json:"hub_id,omitempty"`
	// HeartbeatIntervalMs is the heartbeat period the judge must keep.
	HeartbeatIntervalMs int64 `json:"heartbeat_interval_ms"`
	// ResultAcks says the hub answers every result with a result_ack; the
	// judge then keeps each result (and resends it) until acknowledged.
	// Without it a judge forgets a result once written to the socket.
	ResultAcks bool `json:"result_acks,omitempty"`
}

// Validate checks the heartbeat interval of an accepted judge.
func (w Welcome) Validate() error {
	if w.Accepted && w.HeartbeatIntervalMs <= 0 {
		return fmt.Errorf("heartbeat_interval_ms %d <= 0", w.HeartbeatIntervalMs)
	}
	return nil
}

// HeartbeatInterval returns HeartbeatIntervalMs as a duration.
func (w Welcome) HeartbeatInterval() time.Duration {
	return time.Duration(w.HeartbeatIntervalMs) * time.Millisecond
}

// TaskRef names one attempt of a submission. Everything about a task is
// keyed by it: a message for another attempt is stale.
type TaskRef struct {
	SubmissionID int64 `json:"submission_id"`
	Attempt      int   `json:"attempt"`
}

// Validate checks that the ref names a real attempt (ids and attempts start
// at 1).
func (r TaskRef) Validate() error {
	var errs []error
	if r.SubmissionID < 1 {
		errs = append(errs, fmt.Errorf("submission_id %d < 1", r.SubmissionID))
	}
	if r.Attempt < 1 {
		errs = append(errs, fmt.Errorf("attempt %d < 1", r.Attempt))
	}
	return errors.Join(errs...)
}

// Heartbeat reports a judge's load. The hub renews the leases of the tasks
// listed and treats the numbers as a snapshot up to one interval old.
type Heartbeat struct {
	Running      int     `json:"running"`        // tasks compiling or running now
	Queued       int     `json:"queued"`         // accepted tasks waiting locally
	Load1        float64 `json:"load1"`          // 1-minute load average
	MemUsedRatio float64 `json:"mem_used_ratio"` // used / total memory, 0..1
	Cores        int     `json:"cores"`
	// Tasks lists every attempt the judge holds (running or queued).
	Tasks []TaskRef `json:"tasks"`
	// Prefetched reports the prefetches that ended since the previous
	// heartbeat, so the hub knows which judges hold which data (it learns
	// the rest from hello's CachedData). Absent from judges that predate
	// it: the hub then never counts them warm.
	Prefetched []PrefetchOutcome `json:"prefetched,omitempty"`
	// Evicted lists the test data hashes the judge dropped from its cache
	// (least recently used beyond its size, or on an evict) since the
	// previous heartbeat or hello, so the hub's view of its cache follows
	// it instead of only growing. Absent from judges that predate it.
	Evicted []string `json:"evicted,omitempty"`
}

// PrefetchOutcome is the end of one prefetch.
type PrefetchOutcome struct {
	Hash string `json:"hash"`
	// Error is empty when the data is cached (and the package's special
	// judge compiled); else why not (the hub retries later).
	Error string `json:"error,omitempty"`
}

// Validate checks ranges.
func (h Heartbeat) Validate() error {
	var errs []error
	if h.Running < 0 || h.Queued < 0 {
		errs = append(errs, fmt.Errorf("negative running %d or queued %d", h.Running, h.Queued))
	}
	if h.Load1 < 0 || h.Load1 != h.Load1 {
		errs = append(errs, fmt.Errorf("load1 %v is not a non-negative number", h.Load1))
	}
	if !(h.MemUsedRatio >= 0 && h.MemUsedRatio <= 1) {
		errs = append(errs, fmt.Errorf("mem_used_ratio %v outside [0,1]", h.MemUsedRatio))
	}
	if h.Cores < 1 {
		errs = append(errs, fmt.Errorf("cores %d < 1", h.Cores))
	}
	for i, r := range h.Tasks {
		if err := r.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("tasks[%d]: %w", i, err))
		}
	}
	for i, p := range h.Prefetched {
		if p.Hash == "" {
			errs = append(errs, fmt.Errorf("prefetched[%d]: hash is empty", i))
		}
	}
	for i, d := range h.Evicted {
		if d == "" {
			errs = append(errs, fmt.Errorf("evicted[%d]: hash is empty", i))
		}
	}
	return errors.Join(errs...)
}

// TestData identifies a problem's test data by content hash; URL is where a
// judge downloads it if it is not cached.
type TestData struct {
	Hash string `json:"hash"` // hex SHA-256 of the package
	URL  string `json:"url"`
}

// Limits of one run of one case.
type Limits struct {
	TimeMs int64 `json:"time_ms"` // CPU time, from the cgroup
	// WallTimeMs is the wall-clock limit; 0 means the judge's default
	// (a multiple of TimeMs).
	WallTimeMs  int64 `json:"wall_time_ms,omitempty"`
	MemoryKiB   int64 `json:"memory_kib"`   // cgroup peak memory
	OutputBytes int64 `json:"output_bytes"` // stdout size
}

// Checker says how outputs are judged.
type Checker struct {
	Kind CheckerKind `json:"kind"`
	// Tolerance is the absolute or relative error allowed by CheckerFloat.
	Tolerance float64 `json:"tolerance,omitempty"`
	// Language, when set, is the judge language (a language table id:
	// "py3", "java17") of the test data's own output validator, the
	// checker or the interactor, when it is not C or C++: the task then
	// needs CapabilityProgramLanguages. Empty for C and C++ programs and
	// for problems without one.
	Language string `json:"language,omitempty"`
}

// Task is one attempt of a submission pushed to a judge.
type Task struct {
	TaskRef
	ProblemID int64    `json:"problem_id"`
	TestData  TestData `json:"test_data"`
	Language  string   `json:"language"` // Language.ID
	Source    string   `json:"source"`
	Limits    Limits   `json:"limits"`
	Mode      Mode     `json:"mode"`
	Checker   Checker  `json:"checker"`
	Priority  Priority `json:"priority"`
	// Custom, when set, makes the task a custom run (customrun.go): no
	// test data, SubmissionID a custom run id, PriorityCustom.
	Custom *CustomRun `json:"custom,omitempty"`
	// IO, when set, makes the program read its input from a named file
	// and/or write its output to one (problemio.go).
	IO *FileIO `json:"io,omitempty"`
	// Validation, when set, makes the task an input validation
	// (validation.go): a custom run id, the test data, no program.
	Validation *InputValidation `json:"validation,omitempty"`
	// Grading: the test data's manifest has grading rules (the ICPC
	// default grader's, testpkg.Manifest.Grading), which the judge reads
	// from the package; set by the web node so that the task needs
	// CapabilityGrading.
	Grading bool `json:"grading,omitempty"`
	// EnqueuedMs and DispatchedMs are set by the hub on each push (Unix
	// ms; absent from an older hub): when the attempt entered the queue
	// (Redis's clock) and when the dispatch pass that placed it began
	// (the hub's; the enqueue, if that came after the pass took its
	// clock). The judge logs the wait; the contest rehearsal takes
	// its trace's enqueue from here and splits the wait into the hub's
	// queue and the push's way to the judge. Not set in the queue: a task
	// stored in Redis carries neither.
	EnqueuedMs   int64 `json:"enqueued_ms,omitempty"`
	DispatchedMs int64 `json:"dispatched_ms,omitempty"`
	// NoticedMs is when the hub that placed this attempt read the notice
	// of its enqueue (Redis pub/sub; Unix ms, the hub's clock); absent when
	// it had read none before placing it (a pass woken by something else
	// found it first, or the notice went to another hub). The contest
	// rehearsal records it in its trace: the scheduling simulator's replay
	// wakes its dispatcher for this arrival that late, as the hub was.
	NoticedMs int64 `json:"noticed_ms,omitempty"`
	// Held counts the dispatch passes of the hub that placed this attempt
	// which looked at it and held it, by why; absent when none did (or
	// from an older hub). The contest rehearsal records it in its trace,
	// and the scheduling simulator's replay sets it beside its own holds
	// of the same task: where the two waited for different reasons.
	Held *Held `json:"held,omitempty"`
}

// Held is how often, and why, the hub's dispatch passes held an attempt
// before one placed it (sched.Hold's reasons).
type Held struct {
	// Busy: every judge that could run it was full or overloaded.
	Busy int `json:"busy,omitempty"`
	// NoJudge: no connected judge ran its language with what it needs.
	NoJudge int `json:"no_judge,omitempty"`
	// Affinity: a judge was free, but the policy waited for a busy one
	// holding the task's test data (delay scheduling).
	Affinity int `json:"affinity,omitempty"`
	// Reserve: background work (a rejudge) held to keep the reserve of
	// slots free.
	Reserve int `json:"reserve,omitempty"`
	// AffinityMs is when the first pass that held it for affinity began
	// (Unix ms, the hub's clock; 0: none did).
	AffinityMs int64 `json:"affinity_ms,omitempty"`
}

// Validate reports a negative count or time.
func (h Held) Validate() error {
	if h.Busy < 0 || h.NoJudge < 0 || h.Affinity < 0 || h.Reserve < 0 || h.AffinityMs < 0 {
		return fmt.Errorf("held %+v: counts and times must be ≥ 0", h)
	}
	if (h.Affinity > 0) != (h.AffinityMs > 0) {
		return fmt.Errorf("held %+v: affinity_ms is set exactly when affinity > 0", h)
	}
	return nil
}

// Noticed is the push's NoticedMs as a time: zero when the hub did not
// set it.
func (t Task) Noticed() time.Time {
	if t.NoticedMs > 0 {
		return time.UnixMilli(t.NoticedMs)
	}
	return time.Time{}
}

// Times are the push's times (EnqueuedMs, DispatchedMs) as times: zero
// when the hub did not set them.
func (t Task) Times() (enqueued, dispatched time.Time) {
	if t.EnqueuedMs > 0 {
		enqueued = time.UnixMilli(t.EnqueuedMs)
	}
	if t.DispatchedMs > 0 {
		dispatched = time.UnixMilli(t.DispatchedMs)
	}
	return enqueued, dispatched
}

// Validate checks every field a judge needs.
func (t Task) Validate() error {
	errs := []error{t.TaskRef.Validate()}
	if t.ProblemID < 1 {
		errs = append(errs, fmt.Errorf("problem_id %d < 1", t.ProblemID))
	}
	if t.Validation != nil {
		errs = append(errs, t.validateValidation())
	} else if t.Custom != nil {
		errs = append(errs, t.validateCustom())
	} else if t.TestData.Hash == "" {
		errs = append(errs, errors.New("test_data.hash is empty"))
	}
	if t.Language == "" {
		errs = append(errs, errors.New("language is empty"))
	}
	if t.IO != nil {
		errs = append(errs, t.IO.Validate())
	}
	if t.Language == LanguageOutputs {
		if _, err := DecodeOutputs(t.Source); err != nil {
			errs = append(errs, fmt.Errorf("source: %w", err))
		}
		if t.Custom != nil || t.IO != nil {
			errs = append(errs, errors.New("an output-only task has no custom run or file I/O"))
		}
	}
	if t.Limits.TimeMs <= 0 || t.Limits.MemoryKiB <= 0 || t.Limits.OutputBytes <= 0 || t.Limits.WallTimeMs < 0 {
		errs = append(errs, fmt.Errorf("limits %+v: time, memory and output must be > 0", t.Limits))
	}
	if t.EnqueuedMs < 0 || t.DispatchedMs < 0 || t.NoticedMs < 0 {
		errs = append(errs, fmt.Errorf("enqueued_ms %d, dispatched_ms %d, noticed_ms %d: times must be ≥ 0", t.EnqueuedMs, t.DispatchedMs, t.NoticedMs))
	}
	if t.Held != nil {
		errs = append(errs, t.Held.Validate())
	}
	if !t.Mode.Valid() {
		errs = append(errs, fmt.Errorf("mode %q unknown", t.Mode))
	}
	if !t.Checker.Kind.Valid() {
		errs = append(errs, fmt.Errorf("checker kind %q unknown", t.Checker.Kind))
	}
	if t.Checker.Kind == CheckerFloat && !(t.Checker.Tolerance > 0) {
		errs = append(errs, fmt.Errorf("float checker tolerance %v <= 0", t.Checker.Tolerance))
	}
	if !t.Priority.Valid() {
		errs = append(errs, fmt.Errorf("priority %d unknown", t.Priority))
	}
	return errors.Join(errs...)
}

// Accept takes a task.
type Accept struct {
	TaskRef
}

// ResultAck acknowledges the result of one attempt.
type ResultAck struct {
	TaskRef
	// SlotMs is how long the result took from its judge's sending
	// (Result.SentMs; from its read when the judge did not stamp it or
	// stamped a later time) to freeing its slot in the hub's accounting,
	// in ms: the hub's own verdict_hub_result_slot_seconds for this
	// result. 0 when the result freed no slot (a repeat of one already
	// handled, or no longer the judge's attempt), or from a hub that does
	// not send it. The contest
	// rehearsal records it per task, and the scheduling simulator holds
	// that task's slot as long.
	SlotMs float64 `json:"slot_ms,omitempty"`
}

// CancelReason is the machine-readable cause of a Cancel.
type CancelReason string

// Cancel reasons.
const (
	// CancelLeaseLost: the attempt is not leased to this judge any more (the
	// lease expired while the judge was silent, the task was requeued or
	// judged elsewhere, or a rejudge made a newer attempt).
	CancelLeaseLost CancelReason = "lease_lost"
)

// Cancel withdraws one attempt from the judge holding it.
type Cancel struct {
	TaskRef
	Reason CancelReason `json:"reason"`
}

// Validate checks the ref and that a reason is given.
func (c Cancel) Validate() error {
	var errs []error
	errs = append(errs, c.TaskRef.Validate())
	if c.Reason == "" {
		errs = append(errs, errors.New("reason is empty"))
	}
	return errors.Join(errs...)
}

// RejectReason is the machine-readable cause of a Reject.
type RejectReason string

// Reject reasons.
const (
	RejectBusy     RejectReason = "busy"     // no free slot in the local queue
	RejectLanguage RejectReason = "language" // language not installed
	RejectDraining RejectReason = "draining" // the judge is shutting down
	RejectData     RejectReason = "data"     // test data cannot be fetched
	RejectInvalid  RejectReason = "invalid"  // the task is malformed
)

// Reject refuses a task; the hub requeues it without counting an attempt.
type Reject struct {
	TaskRef
	Reason  RejectReason `json:"reason"`
	Message string       `json:"message,omitempty"`
}

// Validate requires a ref and a reason.
func (r Reject) Validate() error {
	errs := []error{r.TaskRef.Validate()}
	if r.Reason == "" {
		errs = append(errs, errors.New("reason is empty"))
	}
	return errors.Join(errs...)
}

// CaseResult is the outcome of one test case.
type CaseResult struct {
	Case      int     `json:"case"` // 1-based index
	Verdict   Verdict `json:"verdict"`
	CPUMs     int64   `json:"cpu_ms"`
	WallMs    int64   `json:"wall_ms"`
	MemoryKiB int64   `json:"memory_kib"`
	Score     float64 `json:"score"`
	// Message is the checker's comment or the signal name, truncated to
	// MaxCaseMessage.
	Message string `json:"message,omitempty"`
}

// Validate checks the index and verdict.
func (c CaseResult) Validate() error {
	var errs []error
	if c.Case < 1 {
		errs = append(errs, fmt.Errorf("case %d < 1", c.Case))
	}
	if !c.Verdict.Final() || c.Verdict == VerdictCE {
		errs = append(errs, fmt.Errorf("case verdict %q is not a case outcome", c.Verdict))
	}
	if c.CPUMs < 0 || c.WallMs < 0 || c.MemoryKiB < 0 {
		errs = append(errs, errors.New("negative cpu_ms, wall_ms or memory_kib"))
	}
	return errors.Join(errs...)
}

func validateCases(cs []CaseResult) error {
	var errs []error
	for i, c := range cs {
		if err := c.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("cases[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// Progress reports cases finished since the last progress of this attempt,
// and the phase the attempt is in.
type Progress struct {
	TaskRef
	// Status is VerdictCompiling or VerdictJudging.
	Status Verdict      `json:"status"`
	Cases  []CaseResult `json:"cases"`
}

// Validate checks the ref, status and cases.
func (p Progress) Validate() error {
	errs := []error{p.TaskRef.Validate(), validateCases(p.Cases)}
	if p.Status != VerdictCompiling && p.Status != VerdictJudging {
		errs = append(errs, fmt.Errorf("status %q is not compiling or judging", p.Status))
	}
	return errors.Join(errs...)
}

// Result is the final outcome of an attempt.
type Result struct {
	TaskRef
	Verdict        Verdict      `json:"verdict"`
	Score          float64      `json:"score"`
	CompileMessage string       `json:"compile_message,omitempty"`
	Cases          []CaseResult `json:"cases"`
	JudgeID        string       `json:"judge_id"`
	// Custom is the outcome of a custom run's runs (the user's input
	// first, then the samples asked for); empty for a submission.
	Custom []CustomOutput `json:"custom,omitempty"`
	// SentMs is when the judge wrote the result (Unix ms on the judge's
	// clock; set again on each send; absent from an older judge). The
	// hub times the result from here to its slot free in its accounting
	// (verdict_hub_result_slot_seconds), which the contest rehearsal
	// replays: meaningful where the judge and the hub share a clock (the
	// rehearsal's one machine); a time after the hub read it counts from
	// the read.
	SentMs int64 `json:"sent_ms,omitempty"`
}

// Sent is SentMs as a time: zero when the judge did not set it.
func (r Result) Sent() time.Time {
	if r.SentMs > 0 {
		return time.UnixMilli(r.SentMs)
	}
	return time.Time{}
}

// Validate checks the ref, the verdict and every case.
func (r Result) Validate() error {
	errs := []error{r.TaskRef.Validate(), validateCases(r.Cases)}
	if !r.Verdict.Final() || r.Verdict == VerdictSkipped {
		errs = append(errs, fmt.Errorf("verdict %q is not a submission outcome", r.Verdict))
	}
	if r.JudgeID == "" {
		errs = append(errs, errors.New("judge_id is empty"))
	}
	if r.SentMs < 0 {
		errs = append(errs, fmt.Errorf("sent_ms %d: must be ≥ 0", r.SentMs))
	}
	for i, o := range r.Custom {
		if err := o.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("custom[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// Evict tells a judge to drop cached test data: the one with DataHash, or
// every version of ProblemID when DataHash is empty.
type Evict struct {
	ProblemID int64  `json:"problem_id,omitempty"`
	DataHash  string `json:"data_hash,omitempty"`
}

// Validate requires one of the two.
func (e Evict) Validate() error {
	if e.ProblemID < 1 && e.DataHash == "" {
		return errors.New("neither problem_id nor data_hash is set")
	}
	return nil
}

// Prefetch asks a judge to download a problem's test data now (and to
// compile its special judge, if the package has one). TestData is as the
// problem's tasks carry it: an empty URL means the judge's default, as for
// a task. The judge reports the outcome in a later heartbeat's Prefetched.
type Prefetch struct {
	ProblemID int64    `json:"problem_id"`
	TestData  TestData `json:"test_data"`
}

// Validate requires the problem and hash.
func (p Prefetch) Validate() error {
	if p.ProblemID < 1 || p.TestData.Hash == "" {
		return errors.New("problem_id and test_data.hash are required")
	}
	return nil
}

// Drain announces a graceful stop. From the hub: stop taking tasks, finish
// and report the running ones, then expect a close with CloseHubShutdown and
// reconnect after RetryAfterMs. From a judge: send no more tasks; it closes
// when its tasks are done.
type Drain struct {
	Reason       string `json:"reason,omitempty"`
	RetryAfterMs int64  `json:"retry_after_ms,omitempty"`
}
