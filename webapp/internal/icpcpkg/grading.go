package icpcpkg

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// Grading (docs/problems.md, "Grading: grader_flags and on_reject"): the
// default grader of the legacy format computes a test data group's
// verdict from its items (cases and subgroups) by the group's
// testdata.yaml — on_reject (break: stop at the first rejected item, the
// default; continue: judge them all) and grader_flags (worst_error, the
// default, first_error or always_accept; ignore_sample on data/ only) —
// up to data/, whose verdict is the submission's. A group without a key
// has its parent's (groupSetting).
//
// Verdict's own rule (every case counts; ICPC mode stops at the first
// rejection) is the grader with its defaults. A package that sets
// something else gets the group tree in its test data package
// (testpkg.Grading), which the judges grade by (its tasks need judges
// with protocol.CapabilityGrading); one that does not gets none and runs
// on every judge as before.

// readGrading builds the test data groups' grading rules into pkg when
// they differ from the defaults. Call it after readData (p.InputNames,
// pkg.Samples).
func (p *Problem) readGrading(files map[string][]byte, pkg *testpkg.Package) error {
	root := &testpkg.GradingGroup{Name: "data"}
	groups := map[string]*testpkg.GradingGroup{"data": root}
	var dirs []string // every group, parents first
	for i, in := range p.InputNames {
		dir := path.Dir(in)
		// The chain of groups from data/ down to the case's directory,
		// each appended to its parent when first met (the cases are in
		// path order, so a group's cases are contiguous).
		parts := strings.Split(dir, "/")
		parent := root
		for k := 2; k <= len(parts); k++ {
			d := strings.Join(parts[:k], "/")
			g := groups[d]
			if g == nil {
				g = &testpkg.GradingGroup{Name: d}
				groups[d] = g
				dirs = append(dirs, d)
				parent.Items = append(parent.Items, testpkg.GradingItem{Group: g})
			}
			parent = g
		}
		parent.Items = append(parent.Items, testpkg.GradingItem{Case: i + 1})
	}
	differs := false
	for _, dir := range append([]string{"data"}, dirs...) {
		g := groups[dir]
		if v, file := groupSetting(files, dir, "on_reject"); v != nil {
			switch s, _ := v.(string); strings.TrimSpace(s) {
			case "break":
			case "continue":
				g.Continue, differs = true, true
			default:
				return fmt.Errorf("%w: %s: on_reject %v: want break or continue", ErrInvalid, file, v)
			}
		}
		v, file := groupSetting(files, dir, "grader_flags")
		for _, f := range settingArgs(v) {
			switch f {
			case testpkg.VerdictWorstError, testpkg.VerdictFirstError, testpkg.VerdictAlwaysAccept:
				g.Verdict = f // the last of several modes wins, as the format says
			case "ignore_sample":
				switch {
				case dir == "data":
					g.IgnoreSample = len(pkg.Samples) > 0
				case file == dir+"/testdata.yaml" || file == dir+"/test_group.yaml":
					p.Notes = append(p.Notes, fmt.Sprintf("%s: grader_flags ignore_sample is for data/testdata.yaml only (the format "+
						"allows it at the top level): ignored here", file))
				}
			case "sum", "avg", "min", "max", "accept_if_any_accepted":
				// Scores (scoring.go); accept_if_any_accepted is refused
				// by checkGraderFlags.
			default:
				return fmt.Errorf("%w: %s: grader_flags: unknown flag %q (the default grader's are first_error, worst_error, "+
					"always_accept, ignore_sample, sum, avg, min, max)", ErrInvalid, file, f)
			}
		}
		if g.Verdict == testpkg.VerdictWorstError {
			g.Verdict = "" // the default
		}
		if g.IgnoreSample || (g.Verdict == testpkg.VerdictAlwaysAccept && p.Mode != ModeIOI) {
			differs = true
		}
	}
	if !differs {
		return nil
	}
	pkg.Grading = &testpkg.Grading{Root: *root}
	var what []string
	if root.IgnoreSample {
		what = append(what, "the samples are judged but do not decide the verdict (ignore_sample)")
	}
	var always, cont []string
	for _, d := range dirs {
		if groups[d].Verdict == testpkg.VerdictAlwaysAccept && p.Mode != ModeIOI {
			always = append(always, d)
		}
		if groups[d].Continue {
			cont = append(cont, d)
		}
	}
	if root.Continue {
		cont = append([]string{"data"}, cont...)
	}
	if len(always) > 0 {
		what = append(what, "never rejected (always_accept): "+strings.Join(always, ", "))
	}
	if len(cont) > 0 {
		what = append(what, "judged to the end after a rejection (on_reject: continue): "+strings.Join(cont, ", "))
	}
	slices.Sort(what)
	p.Notes = append(p.Notes, "grading by the test data groups' testdata.yaml: "+strings.Join(what, "; ")+
		" (only judges that grade by these rules get its submissions)")
	return nil
}
