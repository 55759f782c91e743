package testpkg

import (
	"fmt"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// Grading is how a submission's verdict follows from its cases' verdicts
// when the ICPC problem package format's default grader says so
// (manifest "grading"): the package's test data groups as a tree, each
// with its testdata.yaml's on_reject and grader_flags. Without it (the
// manifest has none) Verdict's own rule holds: every case counts, and in
// ICPC mode the judge stops at the first rejected case, whose verdict is
// the submission's — which is also what the default grader does with its
// defaults (on_reject: break, worst_error).
//
// The web node writes it (an ICPC import), the judges read it; a task of
// a package with one needs protocol.CapabilityGrading. Judges that predate
// it refuse the manifest (unknown field), never judge it by the other
// rule.
type Grading struct {
	// Root is data/: its items are the sample group (when the package has
	// samples) and the secret group.
	Root GradingGroup `json:"root"`
}

// GradingGroup is one test data group.
type GradingGroup struct {
	// Name is the group's directory in the package (data/secret/g1), for
	// people.
	Name string `json:"name"`
	// Items are the group's cases and subgroups in judging order; a DFS
	// over the tree visits the cases 1, 2, …, N, each once.
	Items []GradingItem `json:"items"`
	// Continue: on_reject: continue — the group's items after a rejected
	// one are judged too. Without it (on_reject: break, the default) the
	// group stops at its first rejected item and the rest are skipped.
	Continue bool `json:"continue,omitempty"`
	// Verdict is the group's verdict mode: VerdictWorstError (the
	// default when empty), VerdictFirstError or VerdictAlwaysAccept.
	Verdict string `json:"verdict,omitempty"`
	// IgnoreSample, on the root only: its first item (the sample group)
	// is judged and shown, but neither decides the verdict nor stops the
	// judging of the secret group.
	IgnoreSample bool `json:"ignore_sample,omitempty"`
}

// GradingItem is a case (1-based) or a subgroup: exactly one is set.
type GradingItem struct {
	Case  int           `json:"case,omitempty"`
	Group *GradingGroup `json:"group,omitempty"`
}

// Verdict modes of the default grader (grader_flags).
const (
	// VerdictWorstError: accepted when every item is, else the most
	// severe verdict among its items (SeverityOrder).
	VerdictWorstError = "worst_error"
	// VerdictFirstError: accepted when every item is, else the verdict
	// of the first item that is not.
	VerdictFirstError = "first_error"
	// VerdictAlwaysAccept: the group is accepted whatever its items got
	// (in a scoring problem its cases still score on their own).
	VerdictAlwaysAccept = "always_accept"
)

// MaxGradingDepth bounds the nesting of groups.
const MaxGradingDepth = 32

// SeverityOrder is worst_error's order, most severe first: the format's
// JE, RTE, MLE, TLE, OLE, WA in Verdict's verdicts (a judge error is a
// system error; presentation error, which the format does not have,
// last).
var SeverityOrder = []protocol.Verdict{
	protocol.VerdictSE, protocol.VerdictRE, protocol.VerdictMLE, protocol.VerdictTLE,
	protocol.VerdictOLE, protocol.VerdictWA, protocol.VerdictPE,
}

// check verifies the tree against a package of n cases.
func (g *Grading) check(n int) error {
	next := 1
	var walk func(gr *GradingGroup, depth int) error
	walk = func(gr *GradingGroup, depth int) error {
		if depth > MaxGradingDepth {
			return fmt.Errorf("%w: %s: grading: groups nested deeper than %d", ErrInvalid, ManifestName, MaxGradingDepth)
		}
		if gr.Name == "" {
			return fmt.Errorf("%w: %s: grading: a group has no name", ErrInvalid, ManifestName)
		}
		switch gr.Verdict {
		case "", VerdictWorstError, VerdictFirstError, VerdictAlwaysAccept:
		default:
			return fmt.Errorf("%w: %s: grading: group %s: verdict mode %q, want %s, %s or %s", ErrInvalid, ManifestName,
				gr.Name, gr.Verdict, VerdictWorstError, VerdictFirstError, VerdictAlwaysAccept)
		}
		if gr.IgnoreSample && depth > 0 {
			return fmt.Errorf("%w: %s: grading: group %s: ignore_sample is for the root group only", ErrInvalid, ManifestName, gr.Name)
		}
		if len(gr.Items) == 0 {
			return fmt.Errorf("%w: %s: grading: group %s has no cases", ErrInvalid, ManifestName, gr.Name)
		}
		for _, it := range gr.Items {
			switch {
			case (it.Case != 0) == (it.Group != nil):
				return fmt.Errorf("%w: %s: grading: group %s: an item must be a case or a group", ErrInvalid, ManifestName, gr.Name)
			case it.Group != nil:
				if err := walk(it.Group, depth+1); err != nil {
					return err
				}
			case it.Case != next:
				return fmt.Errorf("%w: %s: grading: group %s: case %d where case %d comes (every case once, in order)",
					ErrInvalid, ManifestName, gr.Name, it.Case, next)
			default:
				next++
			}
		}
		return nil
	}
	if err := walk(&g.Root, 0); err != nil {
		return err
	}
	if next != n+1 {
		return fmt.Errorf("%w: %s: grading: covers cases 1..%d, the package has 1..%d", ErrInvalid, ManifestName, next-1, n)
	}
	return nil
}

// Judge grades cases' verdicts (verdicts[i] is case i+1's; a case beyond
// the slice counts as accepted) as the default grader does, and returns
// the submission's verdict and, for each case, whether the grader gets to
// it (reached[i]; a case it does not reach is skipped, and its verdict,
// if it was judged anyway, counts for nothing).
//
// scoring: the problem is scored (IOI mode). Verdict shows a scored
// submission accepted only when no counted case was rejected (its points
// say the rest), so there always_accept judges like worst_error — its
// cases still earn their points on their own (the subtasks) — and only
// ignore_sample, on_reject and first/worst error shape the verdict.
func (g *Grading) Judge(verdicts []protocol.Verdict, scoring bool) (protocol.Verdict, []bool) {
	reached := make([]bool, g.cases())
	verdictOf := func(c int) protocol.Verdict {
		reached[c-1] = true
		if c-1 < len(verdicts) {
			return verdicts[c-1]
		}
		return protocol.VerdictAC
	}
	var grade func(gr *GradingGroup) protocol.Verdict
	grade = func(gr *GradingGroup) protocol.Verdict {
		var counted []protocol.Verdict
		stopped := false
		for k, it := range gr.Items {
			if stopped {
				continue // its cases stay unreached
			}
			var v protocol.Verdict
			if it.Group != nil {
				v = grade(it.Group)
			} else {
				v = verdictOf(it.Case)
			}
			if k == 0 && gr.IgnoreSample {
				continue // judged, shown, neither counted nor stopping
			}
			counted = append(counted, v)
			if v != protocol.VerdictAC && !gr.Continue {
				stopped = true
			}
		}
		mode := gr.Verdict
		if mode == VerdictAlwaysAccept {
			if !scoring {
				return protocol.VerdictAC
			}
			mode = VerdictWorstError
		}
		return aggregate(counted, mode)
	}
	v := grade(&g.Root)
	return v, reached
}

// Reached reports whether the grader gets to case c (1-based) given the
// verdicts of the cases before it (which alone decide it: the tree visits
// the cases in order).
func (g *Grading) Reached(verdicts []protocol.Verdict, c int) bool {
	if c-1 < len(verdicts) {
		verdicts = verdicts[:c-1]
	}
	_, reached := g.Judge(verdicts, false)
	return c-1 < len(reached) && reached[c-1]
}

// cases counts the cases of the tree.
func (g *Grading) cases() int {
	var count func(gr *GradingGroup) int
	count = func(gr *GradingGroup) int {
		n := 0
		for _, it := range gr.Items {
			if it.Group != nil {
				n += count(it.Group)
			} else {
				n++
			}
		}
		return n
	}
	return count(&g.Root)
}

// aggregate is a group's verdict from its items' under a verdict mode.
func aggregate(vs []protocol.Verdict, mode string) protocol.Verdict {
	first := protocol.VerdictAC
	for _, v := range vs {
		if v != protocol.VerdictAC {
			first = v
			break
		}
	}
	if first == protocol.VerdictAC || mode == VerdictFirstError {
		return first
	}
	for _, s := range SeverityOrder {
		for _, v := range vs {
			if v == s {
				return s
			}
		}
	}
	return first // a verdict outside the order (a skipped case): the first
}
