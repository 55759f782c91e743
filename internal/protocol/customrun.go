package protocol

import (
	"errors"
	"fmt"
)

// Custom runs ("run on my input"): one run of a user's source on an input
// the user typed (and, when asked, on the problem's sample cases), judged
// by the same judges and sandbox as submissions but never a submission.
//
// A custom run travels as a Task whose Custom field is set and whose
// TaskRef.SubmissionID is a custom run id (CustomRunIDBase and above, so it
// never collides with a submission's key in the queue); its Result carries
// the run's output in Custom. The judge is given no test data at all: the
// task has no TestData, and the sample inputs and answers it may compare
// with travel inline in CustomRun.Samples (never a hidden case).

// CustomRunIDBase is the first custom run id. Submission ids (MySQL auto
// increments) stay far below it; it is below 2^53, so browsers read it
// exactly.
const CustomRunIDBase int64 = 1 << 50

// IsCustomRun reports whether id (a TaskRef.SubmissionID) names a custom
// run rather than a submission.
func IsCustomRun(id int64) bool { return id >= CustomRunIDBase }

// Bounds of a custom run, so a task and its result stay far below
// MaxJudgeMessage.
const (
	// MaxCustomInput bounds CustomRun.Input, bytes.
	MaxCustomInput = 64 << 10
	// MaxCustomSamples bounds CustomRun.Samples.
	MaxCustomSamples = 10
	// MaxCustomSampleBytes bounds the inputs and answers of all the
	// samples of one task together, bytes.
	MaxCustomSampleBytes = 256 << 10
	// MaxCustomOutput bounds CustomOutput.Stdout, bytes (the run itself
	// may write up to its output limit; the rest is cut).
	MaxCustomOutput = 32 << 10
	// MaxCustomStderr bounds CustomOutput.Stderr, bytes.
	MaxCustomStderr = 8 << 10
)

// CustomRun is what makes a Task a custom run.
type CustomRun struct {
	// Input is the program's stdin for the run on the user's input.
	Input string `json:"input"`
	// Samples are the problem's sample cases to run too (only when the
	// user asked), each compared with its answer.
	Samples []SampleCase `json:"samples,omitempty"`
}

// SampleCase is one sample case given inline to a custom run.
type SampleCase struct {
	Case   int    `json:"case"` // 1-based index in the test data
	Input  string `json:"input"`
	Answer string `json:"answer"`
	// Flags are the ICPC default output validator's flags of the case
	// (with CheckerICPC; testpkg.DefaultValidatorFlags).
	Flags []string `json:"flags,omitempty"`
}

// MaxSampleFlags bounds a sample's Flags (as the test data package bounds
// a case's validator arguments).
const MaxSampleFlags = 32

// Validate checks the bounds.
func (c CustomRun) Validate() error {
	var errs []error
	if len(c.Input) > MaxCustomInput {
		errs = append(errs, fmt.Errorf("custom.input is %d bytes, limit %d", len(c.Input), MaxCustomInput))
	}
	if len(c.Samples) > MaxCustomSamples {
		errs = append(errs, fmt.Errorf("custom.samples: %d, limit %d", len(c.Samples), MaxCustomSamples))
	}
	n := 0
	for i, s := range c.Samples {
		if s.Case < 1 {
			errs = append(errs, fmt.Errorf("custom.samples[%d].case %d < 1", i, s.Case))
		}
		n += len(s.Input) + len(s.Answer)
		if len(s.Flags) > MaxSampleFlags {
			errs = append(errs, fmt.Errorf("custom.samples[%d].flags: %d, limit %d", i, len(s.Flags), MaxSampleFlags))
		}
		for _, f := range s.Flags {
			n += len(f)
		}
	}
	if n > MaxCustomSampleBytes {
		errs = append(errs, fmt.Errorf("custom.samples: %d bytes, limit %d", n, MaxCustomSampleBytes))
	}
	return errors.Join(errs...)
}

// validateCustom checks what a custom run's task must (and must not)
// carry.
func (t Task) validateCustom() error {
	var errs []error
	if !IsCustomRun(t.SubmissionID) {
		errs = append(errs, fmt.Errorf("custom run id %d < %d", t.SubmissionID, CustomRunIDBase))
	}
	if t.TestData != (TestData{}) {
		errs = append(errs, errors.New("a custom run carries no test data"))
	}
	if t.Checker.Kind == CheckerSpecial {
		errs = append(errs, errors.New("a custom run compares samples with a built-in checker"))
	}
	if t.Priority != PriorityCustom {
		errs = append(errs, fmt.Errorf("custom run priority %d, want %d", t.Priority, PriorityCustom))
	}
	errs = append(errs, t.Custom.Validate())
	return errors.Join(errs...)
}

// CustomOutput is the outcome of one run of a custom run: on the user's
// input (Case 0) or on a sample (its case number).
type CustomOutput struct {
	Case int `json:"case"`
	// Verdict: AC when the program ran within the limits (and, on a
	// sample, the checker accepted its output); TLE, MLE, OLE, RE
	// otherwise, or WA/PE on a sample.
	Verdict   Verdict `json:"verdict"`
	CPUMs     int64   `json:"cpu_ms"`
	WallMs    int64   `json:"wall_ms"`
	MemoryKiB int64   `json:"memory_kib"`
	ExitCode  int     `json:"exit_code"`
	// Stdout and Stderr are the first MaxCustomOutput and MaxCustomStderr
	// bytes the program wrote; the Truncated flags say more was cut.
	Stdout          string `json:"stdout"`
	Stderr          string `json:"stderr,omitempty"`
	StdoutTruncated bool   `json:"stdout_truncated,omitempty"`
	StderrTruncated bool   `json:"stderr_truncated,omitempty"`
	// Message explains the verdict (the signal, the checker's comment),
	// truncated to MaxCaseMessage.
	Message string `json:"message,omitempty"`
}

// Validate checks the verdict, ranges and bounds.
func (o CustomOutput) Validate() error {
	var errs []error
	if o.Case < 0 {
		errs = append(errs, fmt.Errorf("case %d < 0", o.Case))
	}
	if !o.Verdict.Final() || o.Verdict == VerdictCE || o.Verdict == VerdictSkipped {
		errs = append(errs, fmt.Errorf("verdict %q is not a run outcome", o.Verdict))
	}
	if o.CPUMs < 0 || o.WallMs < 0 || o.MemoryKiB < 0 {
		errs = append(errs, errors.New("negative cpu_ms, wall_ms or memory_kib"))
	}
	if len(o.Stdout) > MaxCustomOutput || len(o.Stderr) > MaxCustomStderr {
		errs = append(errs, fmt.Errorf("stdout %d or stderr %d bytes beyond %d/%d", len(o.Stdout), len(o.Stderr), MaxCustomOutput, MaxCustomStderr))
	}
	return errors.Join(errs...)
}

// CustomRunState is the live view of a custom run: the body of an
// EventCustomRun on its owner's user channel, and what the REST API
// answers for it.
type CustomRunState struct {
	RunID     int64 `json:"run_id"`
	ProblemID int64 `json:"problem_id"`
	// Status is queued, compiling or judging, then the outcome: CE, SE,
	// or the verdict of the first run that was not AC (AC when every run
	// was).
	Status         Verdict        `json:"status"`
	CompileMessage string         `json:"compile_message,omitempty"`
	Runs           []CustomOutput `json:"runs,omitempty"`
}
