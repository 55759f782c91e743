package feedback

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

const (
	sampleMsg = "SAMPLE-MESSAGE"
	hiddenMsg = "HIDDEN-MESSAGE expected 42"
	compile   = "warning: COMPILER-OUTPUT"
)

func judged(status protocol.Verdict) Result {
	return Result{Status: status, Score: 50, TimeMs: 120, MemoryKiB: 2048, CompileMessage: compile,
		Cases: []protocol.CaseResult{
			{Case: 3, Verdict: protocol.VerdictSkipped},
			{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 10, MemoryKiB: 100, Score: 50, Message: sampleMsg},
			{Case: 2, Verdict: protocol.VerdictWA, CPUMs: 120, MemoryKiB: 2048, Message: hiddenMsg},
		}}
}

func rule(p protocol.FeedbackPolicy) protocol.Feedback {
	return protocol.Feedback{Policy: p, After: protocol.FeedbackScoreOnly, Samples: []int{1}}
}

func text(t *testing.T, s Shown) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHiddenNeverShown: under every policy, phase and non-staff viewer,
// the hidden case's message never comes out; staff see it.
func TestHiddenNeverShown(t *testing.T) {
	for _, p := range append(protocol.FeedbackPolicies, "", "bogus") {
		for _, ph := range []Phase{Running, Ended} {
			for _, v := range []Viewer{Anonymous, Other, Owner, Staff} {
				for _, st := range []protocol.Verdict{protocol.VerdictWA, protocol.VerdictSE, protocol.VerdictJudging} {
					got := text(t, View(rule(p), v, ph, judged(st)))
					if v == Staff {
						if !strings.Contains(got, hiddenMsg) || !strings.Contains(got, compile) {
							t.Errorf("%s %v staff %s: %s", p, ph, st, got)
						}
						continue
					}
					if strings.Contains(got, hiddenMsg) {
						t.Errorf("%s %v %s %s: hidden message shown: %s", p, ph, v, st, got)
					}
					if v != Owner && (strings.Contains(got, compile) || strings.Contains(got, sampleMsg)) {
						t.Errorf("%s %v %s %s: owner-only text shown: %s", p, ph, v, st, got)
					}
					if st == protocol.VerdictSE && strings.Contains(got, compile) {
						t.Errorf("%s %v %s: system error detail shown: %s", p, ph, v, got)
					}
				}
			}
		}
	}
}

func TestPolicies(t *testing.T) {
	r := judged(protocol.VerdictWA)
	full := View(rule(protocol.FeedbackFull), Owner, Ended, r)
	if len(full.Cases) != 3 || full.Cases[0].Message != sampleMsg || full.Cases[1].Message != "" || full.Cases[1].CPUMs != 120 {
		t.Errorf("full: %+v", full.Cases)
	}
	ff := View(rule(protocol.FeedbackFirstFailure), Owner, Ended, r)
	if ff.FirstFailure != 2 || len(ff.Cases) != 2 || ff.Cases[1] != (protocol.CaseResult{Case: 2, Verdict: protocol.VerdictWA}) {
		t.Errorf("first failure: %+v", ff)
	}
	so := View(rule(protocol.FeedbackScoreOnly), Owner, Ended, r)
	if len(so.Cases) != 3 || so.Cases[0].Message != "" || so.Cases[0].Score != 50 || so.Score != 50 {
		t.Errorf("score only: %+v", so)
	}
	cl := View(rule(protocol.FeedbackClosed), Owner, Running, r)
	if !cl.Hidden || cl.Status != protocol.VerdictPending || cl.Score != 0 || cl.Cases != nil || cl.TimeMs != 0 || cl.CompileMessage != "" {
		t.Errorf("closed running: %+v", cl)
	}
	after := View(rule(protocol.FeedbackClosed), Owner, Ended, r)
	if after.Hidden || after.Policy != protocol.FeedbackScoreOnly || after.Status != protocol.VerdictWA {
		t.Errorf("closed ended: %+v", after)
	}
	ce := judged(protocol.VerdictCE)
	ce.Cases = nil
	if got := View(rule(protocol.FeedbackClosed), Owner, Running, ce); got.Status != protocol.VerdictCE || got.CompileMessage != compile {
		t.Errorf("closed CE: %+v", got)
	}
	se := View(rule(protocol.FeedbackFull), Owner, Ended, judged(protocol.VerdictSE))
	if se.CompileMessage != GenericSystemError {
		t.Errorf("SE: %q", se.CompileMessage)
	}
	if r.Cases[0].Case != 3 || r.Cases[1].Message != sampleMsg {
		t.Error("View changed its input")
	}
}

func TestPhaseAt(t *testing.T) {
	end := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	fb := protocol.Feedback{Policy: protocol.FeedbackClosed, EndsAtMs: end.UnixMilli()}
	if PhaseAt(fb, end.Add(-time.Millisecond)) != Running || PhaseAt(fb, end) != Ended || PhaseAt(protocol.Feedback{}, end) != Ended {
		t.Error("PhaseAt")
	}
}
