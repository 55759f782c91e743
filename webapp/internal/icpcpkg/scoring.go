package icpcpkg

import (
	"cmp"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// Scoring problems (docs/problems.md, "Scoring problems"): each test data
// group under data/secret becomes Verdict subtasks by its settings,
// read from the group's test_group.yaml (2025-09) or testdata.yaml
// (legacy and 2023-07):
//
//   - points: max_score, score, the upper end of range, or accept_score
//     (times the group's cases when the group sums them); when some group
//     gives none, the groups share secret's max_score (100) equally.
//   - aggregation: pass-fail and min are one subtask (its points times
//     the lowest case's fraction); sum and avg are one subtask per case,
//     its share of the points, so each case counts on its own. A legacy
//     group's default grader (sum, with worst_error) zeroes the group on
//     a rejected case: without a scoring validator that is exactly one
//     all-or-nothing subtask; with one, one Sum subtask (the scores
//     summed, or averaged under avg, when every case is accepted).
//   - require_pass: the subtasks of the named groups (or sample) as
//     dependencies.
//
// A scoring validator (legacy `validation: custom score`, or a custom
// output validator of a 2023-07/2025-09 scoring problem) writes each
// accepted case's score in score.txt: the test data package's
// KattisScore, with each subtask's ScoreMax the case's maximum.

// aggregations, as Verdict scores them.
const (
	aggMin = "min" // one subtask: points × the lowest case's fraction
	aggSum = "sum" // a subtask per case: each case its share
	aggAvg = "avg" // as sum, but a case's score is out of the group's maximum
	// aggAllSum and aggAllAvg: legacy default grading (worst_error) of a
	// scoring validator's scores: one subtask (testpkg.Subtask.Sum) that
	// earns the sum (the mean) of its cases' scores when every case is
	// accepted, and nothing when one is rejected (the grader's verdict is
	// then the rejection, whose score the format ignores).
	aggAllSum = "all_sum"
	aggAllAvg = "all_avg"
)

// scoreGroup is one group of data/secret (or data/secret itself) and its
// cases (1-based).
type scoreGroup struct {
	name  string
	cases []int
}

// groupSettings are a group's scoring settings.
type groupSettings struct {
	file      string  // where they come from ("" for none)
	points    float64 // the group's maximum
	hasPoints bool
	// acceptScore: legacy accept_score, an accepted case's score.
	acceptScore float64
	hasAccept   bool
	agg         string
	// legacyAgg: the legacy grader's scoring mode (sum, avg, min), "" for
	// a 2023-07/2025-09 setting.
	legacyAgg    string
	alwaysAccept bool
	requires     []string
}

// modernFormat: problem_format_version names a 2023-07 or later format.
func modernFormat(meta map[string]any) bool {
	v, _ := meta["problem_format_version"].(string)
	v = strings.TrimSpace(v)
	return v != "" && !strings.HasPrefix(v, "legacy")
}

// problemMeta is problem.yaml, read again (Convert checked it).
func problemMeta(files map[string][]byte) map[string]any {
	meta := map[string]any{}
	if b, ok := files["problem.yaml"]; ok {
		_ = yaml.Unmarshal(b, &meta)
	}
	if meta == nil {
		meta = map[string]any{}
	}
	return meta
}

// validatorScores: the package's output validator gives scores
// (score.txt): legacy `validation: custom ... score`, or a 2023-07 or
// later scoring problem with a custom output validator.
func validatorScores(meta map[string]any, files map[string][]byte) bool {
	if validation, ok := meta["validation"].(string); ok {
		f := strings.Fields(validation)
		return slices.Contains(f, "custom") && slices.Contains(f, "score")
	}
	typ, _ := meta["type"].(string)
	scoring := typ == "scoring" || hasType(meta, "scoring")
	return scoring && (isCustom(meta, files) || isInteractive(meta))
}

// readSettings reads a group's settings file (dir is "data/secret/g1"
// or "data/secret"): test_group.yaml, else testdata.yaml, else (legacy
// inheritance) the closest ancestor's testdata.yaml, whose points do not
// carry over (they are its own group's).
func readSettings(files map[string][]byte, dir string) (groupSettings, error) {
	var s groupSettings
	for _, cand := range []string{dir + "/test_group.yaml", dir + "/testdata.yaml"} {
		if b, ok := files[cand]; ok {
			return parseSettings(cand, b, true)
		}
	}
	for d := path.Dir(dir); d == "data" || strings.HasPrefix(d, "data/"); d = path.Dir(d) {
		if b, ok := files[d+"/testdata.yaml"]; ok {
			return parseSettings(d+"/testdata.yaml", b, false)
		}
	}
	return s, nil
}

// parseSettings reads one settings file; own: it is the group's own
// (else inherited: its points are not the group's).
func parseSettings(name string, b []byte, own bool) (groupSettings, error) {
	s := groupSettings{file: name}
	m := map[string]any{}
	if err := yaml.Unmarshal(b, &m); err != nil {
		return s, fmt.Errorf("%w: %s: %w", ErrInvalid, name, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: "+format, append([]any{ErrInvalid, name}, args...)...)
	}
	setPoints := func(key string, v any) error {
		if str, ok := v.(string); ok && strings.TrimSpace(str) == "unbounded" {
			return fmt.Errorf("%w: %s: %s unbounded: Verdict scores a problem out of fixed points; give the group its max_score",
				ErrUnsupported, name, key)
		}
		f, ok := number(v)
		if !ok || f < 0 || math.IsInf(f, 0) {
			return bad("%s %v is not a non-negative number", key, v)
		}
		if own {
			s.points, s.hasPoints = f, true
		}
		return nil
	}
	if g, ok := m["grading"].(map[string]any); ok { // the 2023-07 draft
		for _, k := range []string{"max_score", "score"} {
			if v, ok := g[k]; ok && !s.hasPoints {
				if err := setPoints("grading."+k, v); err != nil {
					return s, err
				}
			}
		}
		if a, ok := g["aggregation"].(string); ok {
			m["score_aggregation"] = a
		}
	} else if g, ok := m["grading"].(string); ok && strings.TrimSpace(g) == "custom" {
		return s, fmt.Errorf("%w: %s: grading: custom (a grader program) is not supported; use the default grader's flags", ErrUnsupported, name)
	}
	for _, k := range []string{"max_score", "score"} {
		if v, ok := m[k]; ok && !s.hasPoints {
			if err := setPoints(k, v); err != nil {
				return s, err
			}
		}
	}
	if r, ok := m["range"].(string); ok && !s.hasPoints {
		if f := strings.Fields(r); len(f) == 2 {
			if v, err := strconv.ParseFloat(f[1], 64); err == nil && !math.IsInf(v, 0) {
				if err := setPoints("range", v); err != nil {
					return s, err
				}
			}
		}
	}
	if v, ok := m["accept_score"]; ok {
		f, ok := number(v)
		if !ok || f < 0 || math.IsInf(f, 0) {
			return s, bad("accept_score %v is not a non-negative number", v)
		}
		s.acceptScore, s.hasAccept = f, true
	}
	if v, ok := m["score_aggregation"]; ok {
		a, _ := v.(string)
		switch strings.TrimSpace(a) {
		case "pass-fail", "min":
			s.agg = aggMin
		case "sum":
			s.agg = aggSum
		default:
			return s, bad("score_aggregation %v: want pass-fail, sum or min", v)
		}
	}
	if flags, ok := m["grader_flags"].(string); ok {
		for _, f := range strings.Fields(flags) {
			switch f {
			case "sum", "avg", "min":
				s.legacyAgg = f
			case "max":
				return s, fmt.Errorf("%w: %s: grader_flags max (a group scored by its best case) is not supported", ErrUnsupported, name)
			case "always_accept":
				s.alwaysAccept = true
			case "worst_error", "first_error", "ignore_sample", "accept_if_any_accepted":
				// The verdict's (grading.go); the last refused by checkGraderFlags.
			default:
				return s, bad("grader_flags: unknown flag %q", f)
			}
		}
	}
	switch r := m["require_pass"].(type) {
	case nil:
	case string:
		s.requires = []string{r}
	case []any:
		for _, x := range r {
			str, ok := x.(string)
			if !ok {
				return s, bad("require_pass: %v is not a group name", x)
			}
			s.requires = append(s.requires, str)
		}
	default:
		return s, bad("require_pass: %v is not a group name or a list of them", r)
	}
	return s, nil
}

// scoringSubtasks fills pkg's subtasks (and KattisScore) for a scoring
// problem from its groups (data/secret's; "secret" when its cases are
// not in groups) and the sample cases.
func (p *Problem) scoringSubtasks(files map[string][]byte, pkg *testpkg.Package, groups []scoreGroup, samples []int) error {
	meta := problemMeta(files)
	modern := modernFormat(meta)
	scores := validatorScores(meta, files)
	pkg.KattisScore = scores
	secret, err := readSettings(files, "data/secret")
	if err != nil {
		return err
	}
	flat := len(groups) == 1 && groups[0].name == "secret"
	if !flat && secret.agg == aggMin {
		return fmt.Errorf("%w: %s: data/secret with min or pass-fail aggregation over its groups is not supported "+
			"(Verdict adds up the groups' points)", ErrUnsupported, secret.file)
	}
	total := 100.0
	if secret.hasPoints && !flat {
		total = secret.points
	}
	type planned struct {
		scoreGroup
		s   groupSettings
		agg string
	}
	var plan []planned
	given := 0
	for _, g := range groups {
		dir := "data/secret/" + g.name
		if flat {
			dir = "data/secret"
		}
		s, err := readSettings(files, dir)
		if err != nil {
			return err
		}
		if flat && s.file == "" {
			s = secret
		}
		// How the group adds up its cases.
		agg := s.agg
		switch {
		case agg != "":
		case s.legacyAgg == aggMin:
			agg = aggMin
		case s.legacyAgg != "" || (!modern && s.file != ""):
			// Legacy, sum or avg: per case only when each case counts on
			// its own (always_accept) or its score is the validator's;
			// else (worst_error: a rejected case zeroes the group) all or
			// nothing.
			agg = aggMin
			switch {
			case s.alwaysAccept:
				agg = cmp.Or(s.legacyAgg, aggSum)
			case scores:
				// The scores summed (or averaged) when every case is
				// accepted, nothing otherwise: one Sum subtask.
				agg = aggAllSum
				if s.legacyAgg == aggAvg {
					agg = aggAllAvg
				}
			}
		case flat && modern:
			agg = aggSum // secret's default
		default:
			agg = aggMin // a group's default: pass-fail
		}
		if len(g.cases) == 1 {
			agg = aggMin // the same score, under the group's name
		}
		if !s.hasPoints && s.hasAccept {
			// A legacy group scores the sum of its accepted cases'
			// accept_score unless its grader takes their min or average.
			s.points, s.hasPoints = s.acceptScore, true
			if cmp.Or(s.legacyAgg, aggSum) == aggSum {
				s.points *= float64(len(g.cases))
			}
		}
		if s.hasPoints {
			given++
		} else if scores && !modern {
			return fmt.Errorf("%w: %s: the output validator writes score.txt (validation: custom score), so the group needs "+
				"its maximum score in testdata.yaml (range, accept_score or max_score)", ErrInvalid, dir)
		}
		plan = append(plan, planned{g, s, agg})
	}
	if given != 0 && given != len(plan) {
		p.Notes = append(p.Notes, fmt.Sprintf("some groups have no score in testdata.yaml: the groups share %g points equally", total))
	}
	byGroup := map[string][]string{} // a group's subtask names, for require_pass
	var out []testpkg.Subtask
	whole := int(math.Round(total))
	for i, g := range plan {
		pts := g.s.points
		if given != len(plan) {
			share := whole / len(plan)
			if i < whole%len(plan) {
				share++
			}
			pts = float64(share)
		}
		if pts != math.Round(pts) {
			p.Notes = append(p.Notes, fmt.Sprintf("group %s: %g points rounded to %d (Verdict's points are whole)", g.name, pts, int(math.Round(pts))))
		}
		n := int(math.Round(pts))
		if g.agg == aggAllSum || g.agg == aggAllAvg {
			// A case scores at most its share of the points (sum), or the
			// points (avg: the subtask earns its cases' mean).
			caseMax := pts / float64(len(g.cases))
			if g.agg == aggAllAvg {
				caseMax = pts
			}
			out = append(out, testpkg.Subtask{Name: g.name, Points: n, Cases: g.cases, Sum: true, ScoreMax: caseMax})
			byGroup[g.name] = []string{g.name}
			continue
		}
		if g.agg == aggMin {
			st := testpkg.Subtask{Name: g.name, Points: n, Cases: g.cases}
			if scores && float64(n) != pts {
				st.ScoreMax = pts
			}
			out = append(out, st)
			byGroup[g.name] = []string{g.name}
			continue
		}
		// One subtask per case, the points split as evenly as whole
		// points allow (the first cases get the remainder).
		caseMax := pts / float64(len(g.cases))
		if g.agg == aggAvg {
			caseMax = pts
		}
		for k, c := range g.cases {
			share := n / len(g.cases)
			if k < n%len(g.cases) {
				share++
			}
			st := testpkg.Subtask{Name: fmt.Sprintf("%s #%d", g.name, k+1), Points: share, Cases: []int{c}}
			if scores && caseMax != float64(share) {
				st.ScoreMax = caseMax
			}
			out = append(out, st)
			byGroup[g.name] = append(byGroup[g.name], st.Name)
		}
		if n%len(g.cases) != 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("group %s: %d points over %d cases: the cases' points differ by one", g.name, n, len(g.cases)))
		}
	}
	if len(samples) > 0 {
		out = append([]testpkg.Subtask{{Name: "sample", Points: 0, Cases: samples}}, out...)
		byGroup["sample"] = []string{"sample"}
	}
	// Dependencies: a group's own require_pass, and secret's for all.
	k := 0
	if len(samples) > 0 {
		k = 1
	}
	for _, g := range plan {
		n := len(byGroup[g.name])
		reqs := append(slices.Clone(secret.requires), g.s.requires...)
		if flat {
			reqs = g.s.requires
		}
		var deps []string
		for _, r := range reqs {
			name := strings.TrimPrefix(strings.TrimPrefix(r, "data/"), "secret/")
			names, ok := byGroup[name]
			switch {
			case name == g.name:
				return fmt.Errorf("%w: %s: require_pass names the group itself", ErrInvalid, g.s.file)
			case !ok && name == "sample":
				p.Notes = append(p.Notes, "require_pass sample: the package has no samples")
			case !ok:
				file := g.s.file
				if !slices.Contains(g.s.requires, r) {
					file = secret.file
				}
				return fmt.Errorf("%w: %s: require_pass %q is not a group of the package", ErrInvalid, file, r)
			}
			deps = append(deps, names...)
		}
		slices.Sort(deps)
		deps = slices.Compact(deps)
		for j := k; j < k+n; j++ {
			out[j].Depends = deps
		}
		k += n
	}
	pkg.Subtasks = out
	if scores {
		p.Notes = append(p.Notes, "scoring validator: each accepted case's score.txt (or score_multiplier.txt) sets its score")
	}
	return nil
}
