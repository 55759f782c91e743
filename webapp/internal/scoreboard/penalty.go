package scoreboard

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Penalty is a contest's ICPC penalty rule (contests.penalty_minutes and
// penalty_verdicts, migration 0008). The zero value is the default:
// PenaltyPerTry minutes for every rejected try but CE and SE.
type Penalty struct {
	// Minutes per counted rejected try before the accepted one; nil:
	// PenaltyPerTry.
	Minutes *int
	// Verdicts are the verdicts that count as a rejected try; empty:
	// DefaultPenaltyVerdicts.
	Verdicts []string
}

// DefaultPenaltyVerdicts are the rejected verdicts that cost a try unless a
// contest says otherwise: every final verdict but AC, CE (the program never
// ran: CLICS gives CE "penalty": false) and SE (the system's fault).
var DefaultPenaltyVerdicts = []string{"WA", "TLE", "MLE", "OLE", "RE", "PE"}

// RejectedVerdicts are the final verdicts a contest may count as tries.
var RejectedVerdicts = []string{"WA", "TLE", "MLE", "OLE", "RE", "PE", "CE", "SE"}

// MaxPenaltyMinutes bounds a contest's penalty per try.
const MaxPenaltyMinutes = 1000

// PerTry is the penalty of one counted rejected try, in minutes.
func (p Penalty) PerTry() int {
	if p.Minutes == nil {
		return PenaltyPerTry
	}
	return *p.Minutes
}

// Counts reports whether a final verdict is a rejected try that costs
// penalty (AC never is).
func (p Penalty) Counts(v string) bool {
	if v == "AC" {
		return false
	}
	if len(p.Verdicts) == 0 {
		return slices.Contains(DefaultPenaltyVerdicts, v)
	}
	return slices.Contains(p.Verdicts, v)
}

// ContestMinutes is the contest time of at in whole minutes, truncated
// (the ICPC rule, CLICS scoreboard "time": minutes into the contest; a
// submission 59.999 s into the contest is minute 0); never negative.
func ContestMinutes(start, at time.Time) int {
	return max(0, int(at.Sub(start)/time.Minute))
}

// ParsePenaltyVerdicts reads contests.penalty_verdicts: "" is the default
// (nil), else comma-separated codes of RejectedVerdicts.
func ParsePenaltyVerdicts(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	for _, v := range strings.Split(s, ",") {
		v = strings.TrimSpace(v)
		if !slices.Contains(RejectedVerdicts, v) {
			return nil, fmt.Errorf("scoreboard: %q is not a rejected verdict (one of %s)", v, strings.Join(RejectedVerdicts, ", "))
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// PenaltyOf is the rule of a contest's stored columns; an unreadable list
// falls back to the default verdicts.
func PenaltyOf(minutes int, verdicts string) Penalty {
	vs, err := ParsePenaltyVerdicts(verdicts)
	if err != nil {
		vs = nil
	}
	m := minutes
	return Penalty{Minutes: &m, Verdicts: vs}
}
