package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/icpcpkg"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Input validation at import (docs/problems.md): a package's input
// validators (ICPC input_validators/, Polygon's testlib validators) run
// on a judge over every input of the imported test data, since the web
// node has no sandbox. The import waits for them:
//
//   - the problem is created private with its test data (the judges
//     download test data only of a recorded version), and one validation
//     task per validator is queued at custom-run priority
//     (protocol/validation.go);
//   - every input valid: the problem takes the visibility asked for, its
//     reference solutions are stored and run, and the answer says
//     "valid";
//   - an input refused, or a validator that does not compile: the
//     package is refused (400, naming the input and the validator's
//     message) and the problem deleted, so nothing was imported and the
//     same slug can be imported again once the package is fixed;
//   - no answer within importValidationWait (no judge free, a busy
//     queue): the problem is deleted too and the answer is a 503 to
//     retry (the judges keep the test data cached);
//   - a build check of the checker or interactor (programBuilds) not
//     done within importValidationWait while the inputs were checked:
//     the import is kept, and a note says the program was not compiled
//     at import, as when no judge checks builds.
//
// So a package whose inputs were refused never judges anything, and a
// setter learns why at once, in the import's answer.

// importValidationWait bounds how long an import waits for its input
// validation (below nginx's 60 s for /api).
var importValidationWait = 45 * time.Second

// checktestdataWait bounds the web node's own run of a package's
// checktestdata scripts (besides icpcpkg.MaxChecktestdataSteps).
var checktestdataWait = 30 * time.Second

// Validator run limits (per input): CPU time and memory.
const (
	validatorTimeMs    = 10000
	validatorMemoryKiB = 1 << 20
)

// Validation states in ValidationJSON.Status.
const (
	ValidationNone  = "none"  // the package has no input validator Verdict runs
	ValidationValid = "valid" // every input passed every validator
)

// ValidationJSON is the outcome of an import's input validation.
type ValidationJSON struct {
	Status string `json:"status"`
	// Validators are the validators run (their paths in the package).
	Validators []string `json:"validators,omitempty"`
	// Inputs is how many inputs each validator checked.
	Inputs int `json:"inputs,omitempty"`
}

// validatorsRunnable refuses (503, or 400 for testlib.h) a package whose
// input validators cannot run now: no connected judge runs input
// validations (judges older than the capability, protocol
// CapabilityInputValidation) in the language one needs, or one includes
// testlib.h that neither the package nor any judge has.
func (s *Server) validatorsRunnable(r *http.Request, ip icpcpkg.Problem) error {
	if len(ip.InputValidators) == 0 {
		return nil
	}
	langs, live, err := s.judging.Languages(r.Context())
	if err != nil {
		return unavailableErr(err)
	}
	for _, v := range ip.InputValidators {
		l := v.Lang()
		if live == 0 || !slices.ContainsFunc(langs, func(x judging.Language) bool { return x.ID == l }) {
			e := apiErr(http.StatusServiceUnavailable, CodeUnavailable, fmt.Sprintf(
				"the package's input validator %s runs on a judge at import, and no connected judge offers %s right now: import it when one is",
				v.Path, l))
			e.RetryAfter = 5 * time.Second
			return e
		}
		capable, err := s.judging.CapableJudges(r.Context(), l, protocol.CapabilityInputValidation)
		if err != nil {
			return unavailableErr(err)
		}
		if capable == 0 {
			e := apiErr(http.StatusServiceUnavailable, CodeUnavailable, fmt.Sprintf(
				"the package's input validator %s runs on a judge at import, and no connected judge offering %s runs input validations "+
					"(the judges are older than this web node: upgrade a judge agent, then import again)", v.Path, l))
			e.RetryAfter = 5 * time.Second
			return e
		}
		if _, own := v.Files[testpkg.TestlibHeader]; !own {
			if err := s.judgesHaveTestlib(r, "input validator "+v.Path, testpkg.IncludesTestlib(v.Source)); err != nil {
				return err
			}
		}
	}
	return nil
}

// checktestdataInputs runs the package's checktestdata scripts over its
// inputs here, on the web node, before anything is stored: they are
// scripts of a language Verdict interprets itself (internal
// checktestdata, bounded in steps, input size and integer size, regular
// expressions in RE2), not programs to compile and sandbox, so no judge
// is needed, and a refusal names the input, its line and position at
// once. It returns the scripts' paths; a refusal is a 400 naming the
// input, too much work a 400 naming the script, no result within
// checktestdataWait a 503.
func (s *Server) checktestdataInputs(ctx context.Context, ip icpcpkg.Problem, pkg testpkg.Package) ([]string, error) {
	if len(ip.Checktestdata) == 0 {
		return nil, nil
	}
	cctx, cancel := context.WithTimeout(ctx, checktestdataWait)
	defer cancel()
	err := ip.CheckInputs(cctx, pkg, icpcpkg.MaxChecktestdataSteps)
	var refusal *icpcpkg.InputRefusal
	switch {
	case err == nil:
		var paths []string
		for _, c := range ip.Checktestdata {
			paths = append(paths, c.Path)
		}
		return paths, nil
	case errors.As(err, &refusal):
		return nil, fileErr("input validation refused the package: " + refusal.Error())
	case errors.Is(err, icpcpkg.ErrUnsupported):
		return nil, fileErr("cannot import this ICPC package: " + strings.TrimPrefix(err.Error(), icpcpkg.ErrUnsupported.Error()+": "))
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		e := apiErr(http.StatusServiceUnavailable, CodeUnavailable, fmt.Sprintf(
			"the package's checktestdata scripts did not check every input within %s (a busy web node, or too much work): nothing was imported", checktestdataWait))
		e.RetryAfter = 10 * time.Second
		return nil, e
	}
	return nil, unavailableErr(err)
}

// buildCheck is a package's checker or interactor compiled on a judge at
// import (protocol.InputValidation.BuildOnly): a program that does not
// compile refuses the package then, not at its first judging.
type buildCheck struct {
	what, path string // "checker" or "interactor"; its path in the package
	lang       string
	iv         *protocol.InputValidation
	// late: no judge finished it within importValidationWait
	// (validateImport); the import goes on without it.
	late bool
}

// programBuilds are the build checks of the test data's checker and
// interactor, each in its language (C and C++ by their file names);
// when no connected judge offering the language checks builds (judges
// older than protocol.CapabilityBuildCheck) the program is not checked
// and a note says so.
func (s *Server) programBuilds(ctx context.Context, ip icpcpkg.Problem, pkg testpkg.Package) ([]buildCheck, []string, error) {
	type program struct {
		what, name, lang string
		src              []byte
		files            map[string][]byte
	}
	var progs []program
	if pkg.Checker != nil {
		o := pkg.CheckerOptions
		progs = append(progs, program{"checker", cmp.Or(o.Name, testpkg.CheckerName), o.Language, pkg.Checker, o.Files})
	}
	if it := pkg.Interactor; it != nil {
		progs = append(progs, program{"interactor", cmp.Or(it.Name, testpkg.InteractorCPP), it.Language, it.Source, it.Files})
	}
	var out []buildCheck
	var notes []string
	for _, pr := range progs {
		lang := pr.lang
		if lang == "" {
			lang = "cpp17"
			if strings.HasSuffix(pr.name, ".c") {
				lang = "c17"
			}
		}
		path := cmp.Or(ip.Programs[pr.what], pr.name)
		capable, err := s.judging.CapableJudges(ctx, lang, protocol.CapabilityBuildCheck)
		if err != nil {
			return nil, nil, unavailableErr(err)
		}
		if capable == 0 {
			notes = append(notes, fmt.Sprintf("the %s %s was not compiled at import (no connected judge offering %s checks builds): "+
				"an error in it shows when it first judges", pr.what, path, lang))
			continue
		}
		iv := &protocol.InputValidation{Convention: protocol.ValidationKattis, Name: pr.name, Source: string(pr.src), BuildOnly: true}
		if len(pr.files) > 0 {
			iv.Files = map[string]string{}
			for n, b := range pr.files {
				iv.Files[n] = string(b)
			}
		}
		if err := iv.Validate(); err != nil {
			return nil, nil, fileErr(fmt.Sprintf("the %s %s cannot be sent to the judges: %v", pr.what, path, err))
		}
		out = append(out, buildCheck{what: pr.what, path: path, lang: lang, iv: iv})
	}
	return out, notes, nil
}

// validateImport runs the package's input validators over every input of
// the new problem's test data (hash, cases inputs) and waits for them. A
// refusal is a 400 naming the input; no outcome in time or a judge's
// failure a 503 (each an *APIError); the node's own failure is an
// unavailableErr.
//
// builds (programBuilds) are queued with them: a checker or interactor
// that does not compile refuses the package too, naming it.
func (s *Server) validateImport(ctx context.Context, u *store.User, p *store.Problem, hash string, ip icpcpkg.Problem, cases int,
	builds []buildCheck) (ValidationJSON, error) {
	out := ValidationJSON{Status: ValidationNone}
	if len(ip.InputValidators) == 0 && len(builds) == 0 {
		return out, nil
	}
	q := s.judging.Queue()
	var ids []int64
	enqueue := func(what, lang string, iv *protocol.InputValidation) error {
		id, err := q.NewCustomRunID(ctx)
		if err != nil {
			return unavailableErr(err)
		}
		ids = append(ids, id)
		t := queue.Task{Task: protocol.Task{
			TaskRef: protocol.TaskRef{SubmissionID: id, Attempt: 1}, ProblemID: p.ID, TestData: s.judging.TestData(hash),
			Language: lang,
			Limits:   protocol.Limits{TimeMs: validatorTimeMs, MemoryKiB: validatorMemoryKiB, OutputBytes: 64 << 10},
			Mode:     protocol.ModeICPC, Checker: protocol.Checker{Kind: protocol.CheckerDefault}, Priority: protocol.PriorityCustom,
			Validation: iv,
		}, UserID: u.ID, SubmittedAt: s.cfg.Now()}
		if err := q.Enqueue(ctx, t); err != nil {
			return unavailableErr(fmt.Errorf("enqueue the check of %s: %w", what, err))
		}
		return nil
	}
	for _, v := range ip.InputValidators {
		iv := &protocol.InputValidation{Convention: v.Convention, Name: v.MainName(), Source: string(v.Source), Args: v.Args, CaseArgs: v.CaseArgs}
		if len(v.Files) > 0 {
			iv.Files = map[string]string{}
			for n, b := range v.Files {
				iv.Files[n] = string(b)
			}
		}
		if err := iv.Validate(); err != nil {
			return out, fileErr("the input validator " + v.Path + " cannot be sent to the judges: " + err.Error())
		}
		if err := enqueue(v.Path, v.Lang(), iv); err != nil {
			return out, err
		}
		out.Validators = append(out.Validators, v.Path)
	}
	for _, b := range builds {
		if err := enqueue(b.path, b.lang, b.iv); err != nil {
			return out, err
		}
	}
	s.log.Info("input validation queued", "problem_id", p.ID, "hash", hash, "validators", len(ip.InputValidators), "builds", len(builds), "inputs", cases)
	states, err := s.awaitValidation(ctx, ids)
	if err != nil {
		return out, unavailableErr(err)
	}
	for i, st := range states {
		what := ""
		if i < len(ip.InputValidators) {
			what = "input validator " + ip.InputValidators[i].Path
		} else {
			b := builds[i-len(ip.InputValidators)]
			what = b.what + " " + b.path
		}
		if st == nil && i >= len(ip.InputValidators) {
			// A build check is advisory (judges older than it skip it):
			// one the judges did not get to in time does not fail an
			// import whose inputs were checked; a note says so.
			builds[i-len(ip.InputValidators)].late = true
			continue
		}
		if st == nil {
			e := apiErr(http.StatusServiceUnavailable, CodeUnavailable, fmt.Sprintf(
				"the judges did not check the package within %s (%s; no judge free, or a busy queue): nothing was imported, import again",
				importValidationWait, what))
			e.RetryAfter = 10 * time.Second
			return out, e
		}
		if i >= len(ip.InputValidators) {
			if e := buildRefusal(what, *st); e != nil {
				return out, e
			}
			continue
		}
		if e := validationRefusal(ip.InputValidators[i], *st, ip.InputNames, cases); e != nil {
			return out, e
		}
	}
	if len(ip.InputValidators) > 0 {
		out.Status, out.Inputs = ValidationValid, cases
	}
	return out, nil
}

// buildRefusal reads a build check's outcome: nil when the program
// compiles; a 400 naming it with the compiler's message when not; a
// judge's failure is a 503.
func buildRefusal(what string, st protocol.CustomRunState) *APIError {
	switch st.Status {
	case protocol.VerdictAC:
		return nil
	case protocol.VerdictCE:
		return fileErr(fmt.Sprintf("the package's %s does not compile: %s", what, st.CompileMessage))
	}
	e := apiErr(http.StatusServiceUnavailable, CodeUnavailable, fmt.Sprintf(
		"the judges could not compile the package's %s (%s: %s); nothing was imported, import again", what, st.Status, st.CompileMessage))
	e.RetryAfter = 10 * time.Second
	return e
}

// awaitValidation polls the validations' states (kept by the queue like
// custom runs') until each is final or the wait is over: nil for one
// that is not.
func (s *Server) awaitValidation(ctx context.Context, ids []int64) ([]*protocol.CustomRunState, error) {
	wait := importValidationWait
	if d, ok := ctx.Deadline(); ok && time.Until(d)-2*time.Second < wait {
		wait = time.Until(d) - 2*time.Second
	}
	deadline := time.Now().Add(wait)
	out := make([]*protocol.CustomRunState, len(ids))
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		done := 0
		for i, id := range ids {
			if out[i] != nil {
				done++
				continue
			}
			rec, err := s.judging.Queue().CustomRun(ctx, id)
			if errors.Is(err, queue.ErrNoCustomRun) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if rec.State.Status.Final() {
				out[i] = &rec.State
				done++
			}
		}
		if done == len(ids) || time.Now().After(deadline) {
			return out, nil
		}
		select {
		case <-ctx.Done():
			return out, nil
		case <-tick.C:
		}
	}
}

// validationRefusal reads one validator's outcome: nil when every input
// passed; else the refusal (400) naming the first input it refused, or
// its compile error; a judge's failure is a 503.
func validationRefusal(v icpcpkg.InputValidator, st protocol.CustomRunState, names []string, cases int) *APIError {
	name := func(c int) string {
		if c >= 1 && c <= len(names) {
			return names[c-1]
		}
		return fmt.Sprintf("test %d", c)
	}
	switch st.Status {
	case protocol.VerdictCE:
		return fileErr(fmt.Sprintf("input validation refused the package: the input validator %s does not compile: %s", v.Path, st.CompileMessage))
	case protocol.VerdictSE:
		e := apiErr(http.StatusServiceUnavailable, CodeUnavailable, fmt.Sprintf(
			"the judges could not run the input validator %s: %s; nothing was imported, import again", v.Path, st.CompileMessage))
		e.RetryAfter = 10 * time.Second
		return e
	}
	var bad []protocol.CustomOutput
	for _, o := range st.Runs {
		if o.Verdict != protocol.VerdictAC {
			bad = append(bad, o)
		}
	}
	if len(bad) == 0 && st.Status == protocol.VerdictAC && len(st.Runs) == cases {
		return nil
	}
	if len(bad) == 0 {
		e := apiErr(http.StatusServiceUnavailable, CodeUnavailable, fmt.Sprintf(
			"the input validator %s ended %s after %d of %d inputs; nothing was imported, import again", v.Path, st.Status, len(st.Runs), cases))
		e.RetryAfter = 10 * time.Second
		return e
	}
	msg := strings.TrimSpace(bad[0].Message)
	if msg == "" {
		msg = fmt.Sprintf("refused (exit code %d)", bad[0].ExitCode)
	}
	more := ""
	if len(bad) > 1 {
		var others []string
		for _, o := range bad[1:min(len(bad), 6)] {
			others = append(others, name(o.Case))
		}
		if len(bad) > 6 {
			others = append(others, "…")
		}
		more = fmt.Sprintf(" (%d inputs refused in all: also %s)", len(bad), strings.Join(others, ", "))
	}
	return fileErr(fmt.Sprintf("input validation refused the package: input %s: %s (input validator %s)%s",
		name(bad[0].Case), msg, v.Path, more))
}

// dropRefusedImport deletes a problem whose import was refused after it
// was created (its input validation), with a context of its own: the
// request's may be over. False when it could not be (something was
// submitted to it meanwhile; it stays private).
func (s *Server) dropRefusedImport(ctx context.Context, id int64) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	ok, err := s.cfg.Store.DeleteUnusedProblem(ctx, id)
	if err != nil {
		s.log.Error("deleting a refused import failed", "problem_id", id, "err", err)
	}
	s.invalidateProblems(ctx)
	return ok && err == nil
}
