package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/internal/truncate"
	"github.com/verdict-oj/verdict/judge/internal/checker"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// The files a scoring Kattis validator writes in its feedback directory
// (the ICPC problem package format, "Scoring test cases"): the case's
// score, or its fraction of the case's maximum. At most one of them.
const (
	scoreFile           = "score.txt"
	scoreMultiplierFile = "score_multiplier.txt"
	// maxScoreFile bounds what is read of either.
	maxScoreFile = 256
)

// caseScoreMax is what case i (0-based) scores at most in a scoring
// validator's score.txt: its subtask's ScoreMax, else the subtask's
// points; 0 when no subtask with points holds it (a sample, whose score
// the format ignores).
func caseScoreMax(m testpkg.Manifest, i int) float64 {
	for _, st := range m.Subtasks {
		for _, c := range st.Cases {
			if c != i+1 {
				continue
			}
			if st.ScoreMax > 0 {
				return st.ScoreMax
			}
			return float64(st.Points)
		}
	}
	return 0
}

// withKattisScore is o, an accepting scoring validator's outcome, with
// the fraction its feedback directory fb gives (score.txt over max, or
// score_multiplier.txt); with neither file the case earns its maximum. A
// rejection keeps its verdict (its score files are ignored), and so does
// a case worth nothing (max 0). A file that is not one non-negative
// number, a score above max, a multiplier outside [0, 1] or both files
// are the validator's failure (SE), never the contestant's.
func withKattisScore(o checker.Outcome, fb string, max float64) checker.Outcome {
	if o.Verdict != protocol.VerdictAC || max <= 0 {
		return o
	}
	read := func(name string) (float64, bool, error) {
		b, _, err := sandbox.ReadFileBeneath(fb, name, maxScoreFile)
		if errors.Is(err, fs.ErrNotExist) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, fmt.Errorf("%s: %w", name, err)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return 0, false, fmt.Errorf("%s: %q is not a non-negative number", name, truncate.Marked(strings.TrimSpace(string(b)), 64))
		}
		return v, true, nil
	}
	fail := func(format string, args ...any) checker.Outcome {
		return checker.Outcome{Verdict: protocol.VerdictSE, Message: "output validator: " + fmt.Sprintf(format, args...)}
	}
	score, hasScore, err := read(scoreFile)
	if err != nil {
		return fail("%v", err)
	}
	mult, hasMult, err := read(scoreMultiplierFile)
	if err != nil {
		return fail("%v", err)
	}
	switch {
	case hasScore && hasMult:
		return fail("wrote both %s and %s", scoreFile, scoreMultiplierFile)
	case hasScore:
		// A score a millionth above the maximum (a validator that prints
		// rounded scores) is the maximum.
		if score > max*(1+1e-6) {
			return fail("%s: %v is above the case's maximum %v", scoreFile, score, max)
		}
		o.Fraction = math.Min(score/max, 1)
	case hasMult:
		if mult > 1 {
			return fail("%s: %v is not in [0, 1]", scoreMultiplierFile, mult)
		}
		o.Fraction = mult
	default:
		o.Fraction = 1
		return o
	}
	if o.Message == "" {
		o.Message = fmt.Sprintf("score %s of %s", strconv.FormatFloat(o.Fraction*max, 'g', 6, 64), strconv.FormatFloat(max, 'g', 6, 64))
	}
	return o
}
