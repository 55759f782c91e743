package rehearsal

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

func TestPlanShape(t *testing.T) {
	s := DefaultShape()
	p, err := NewPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	tot := p.Totals()
	if tot.NAT != s.NATLab {
		t.Errorf("nat lab %d, want %d", tot.NAT, s.NATLab)
	}
	per := float64(tot.Submissions) / float64(s.Contestants)
	// Solved problems take no more submissions, so a little under the mean.
	if per < 0.8*s.PerContestant || per > 1.05*s.PerContestant {
		t.Errorf("%.2f submissions per contestant, want about %v", per, s.PerContestant)
	}
	share := func(n int) float64 { return float64(n) / float64(tot.Submissions) }
	if f := share(tot.Flash); math.Abs(f-s.Flash) > 0.05 {
		t.Errorf("flash share %.3f, want about %v", f, s.Flash)
	}
	// Contestants who solved everything stop submitting, so the rush is a
	// little below its share; its rate per minute is still well above the
	// middle's.
	if r := share(tot.Rush); r < s.Rush-0.08 || r > s.Rush+0.02 {
		t.Errorf("rush share %.3f, want a little under %v", r, s.Rush)
	}
	middle := share(tot.Middle) / (s.Length - 50*time.Minute).Minutes()
	if rush := share(tot.Rush) / 30; rush < 2*middle {
		t.Errorf("rush %.4f/min, middle %.4f/min: no rush", rush, middle)
	}
	for _, v := range []protocol.Verdict{protocol.VerdictAC, protocol.VerdictWA, protocol.VerdictTLE, protocol.VerdictRE, protocol.VerdictCE} {
		if tot.ByVerdict[v] == 0 {
			t.Errorf("no %s planned", v)
		}
	}
	for _, l := range Languages {
		if tot.ByLanguage[l.ID] == 0 {
			t.Errorf("no %s planned", l.ID)
		}
	}
	addrs := map[string]int{}
	before, flashEasy, flashN := 0, 0, 0
	for _, c := range p.Contestants {
		addrs[c.Addr.String()]++
		if c.Login < 0 {
			before++
		}
		if c.Login < -s.Arrival || c.Login > 10*time.Minute {
			t.Fatalf("%s logs in at %v, outside the arrival window", c.Username, c.Login)
		}
		solved := map[int]bool{}
		last := time.Duration(-1)
		for _, sub := range c.Subs {
			if sub.At < last {
				t.Fatalf("%s: submissions out of order", c.Username)
			}
			last = sub.At
			if sub.At <= c.Login {
				t.Fatalf("%s submits at %v before logging in at %v", c.Username, sub.At, c.Login)
			}
			if solved[sub.Problem] {
				t.Fatalf("%s submits problem %d again after solving it", c.Username, sub.Problem)
			}
			if sub.Verdict == protocol.VerdictAC {
				solved[sub.Problem] = true
			}
			if (sub.FailCase > 0) != (sub.Verdict != protocol.VerdictAC && sub.Verdict != protocol.VerdictCE) ||
				sub.FailCase > Problems[sub.Problem].Cases {
				t.Fatalf("%s: verdict %s with failing case %d", c.Username, sub.Verdict, sub.FailCase)
			}
			if sub.At < 20*time.Minute {
				flashN++
				if sub.Problem == 0 {
					flashEasy++
				}
			}
		}
	}
	if addrs[NATAddr.String()] != s.NATLab {
		t.Errorf("%d contestants from the NAT address, want %d", addrs[NATAddr.String()], s.NATLab)
	}
	if len(addrs) != s.Contestants-s.NATLab+1 {
		t.Errorf("%d distinct addresses, want %d", len(addrs), s.Contestants-s.NATLab+1)
	}
	if f := float64(before) / float64(s.Contestants); f < 1-s.Late-0.02 {
		t.Errorf("only %.3f log in before the start", f)
	}
	if float64(flashEasy) < 0.6*float64(flashN) {
		t.Errorf("flash: %d of %d on the easy problem", flashEasy, flashN)
	}
	if len(p.Faults) != 0 {
		t.Errorf("faults planned without Faults: %v", p.Faults)
	}
}

func TestPlanDeterministic(t *testing.T) {
	s := DefaultShape()
	s.Contestants, s.NATLab = 200, 20
	a, _ := NewPlan(s)
	b, _ := NewPlan(s)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same shape gave two plans")
	}
	s.Seed++
	c, _ := NewPlan(s)
	if reflect.DeepEqual(a.Contestants, c.Contestants) {
		t.Fatal("another seed gave the same plan")
	}
	s.Faults = true
	f, _ := NewPlan(s)
	if len(f.Faults) != 3 {
		t.Fatalf("faults %v, want 3", f.Faults)
	}
	for _, x := range f.Faults {
		if x.At < s.Length-30*time.Minute || x.At >= s.Length {
			t.Errorf("fault %s at %v: not in the rush", x.Kind, x.At)
		}
	}
}

func TestShapeValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Shape)
		want string
	}{
		{"no contestants", func(s *Shape) { s.Contestants = 0 }, "contestants"},
		{"lab larger than contest", func(s *Shape) { s.NATLab = s.Contestants + 1 }, "nat lab"},
		{"short contest", func(s *Shape) { s.Length = 30 * time.Minute }, "length"},
		{"freeze whole contest", func(s *Shape) { s.FreezeLast = s.Length }, "freeze"},
		{"no arrival window", func(s *Shape) { s.Arrival = 0 }, "arrival"},
		{"no submissions", func(s *Shape) { s.PerContestant = 0 }, "submissions"},
		{"flash and rush over 1", func(s *Shape) { s.Flash, s.Rush = 0.6, 0.6 }, "flash"},
		{"late over 1", func(s *Shape) { s.Late = 2 }, "late"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := DefaultShape()
			tc.edit(&s)
			_, err := NewPlan(s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}

func TestPeakWork(t *testing.T) {
	p := Plan{Contestants: []Contestant{{Subs: []Sub{
		{At: 0, Problem: 0, Verdict: protocol.VerdictAC},                            // 300 + 10×5 = 350 ms
		{At: 30 * time.Second, Problem: 0, Verdict: protocol.VerdictCE},             // 300 ms
		{At: 5 * time.Minute, Problem: 1, Verdict: protocol.VerdictWA, FailCase: 2}, // 300 + 2×20 = 340 ms
	}}}}
	got := p.PeakWork(time.Minute, 300*time.Millisecond)
	if want := 0.65 / 60; math.Abs(got-want) > 1e-9 {
		t.Fatalf("peak work %v, want %v", got, want)
	}
}

func TestContestantAddrDistinct(t *testing.T) {
	seen := map[string]bool{}
	for i := range 100_000 {
		a := ContestantAddr(i)
		if !a.IsLoopback() || a == NATAddr || a == AdminAddr || seen[a.String()] {
			t.Fatalf("contestant %d: address %v reused or not loopback", i, a)
		}
		seen[a.String()] = true
	}
}

func TestPathPattern(t *testing.T) {
	for in, want := range map[string]string{
		"/api/submissions/123":                    "/api/submissions/{id}",
		"/api/problems/r-sum?contest=x":           "/api/problems/r-sum",
		"/api/contests/r/clarifications/7/answer": "/api/contests/r/clarifications/{id}/answer",
	} {
		if got := pathPattern(in); got != want {
			t.Errorf("pathPattern(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestShortFoldsNumbers(t *testing.T) {
	a := short(errors.New("harness: subscribe user:1027: failed to read from 127.0.0.1:39283"))
	b := short(errors.New("harness: subscribe user:99: failed to read from 127.0.0.1:4"))
	if a != b || strings.ContainsAny(a, "0123456789") {
		t.Fatalf("%q and %q: one cause, two rows", a, b)
	}
}

// TestBoardFrame: the frames the hub pushes for a contest board are told
// from their head, and nothing else is taken for one.
func TestBoardFrame(t *testing.T) {
	ev, _ := protocol.Encode(protocol.LinkLive, protocol.Envelope{V: protocol.Version, Type: protocol.TypeEvent,
		Data: []byte(`{"channel":{"kind":"contest","id":2},"seq":7,"kind":"scoreboard","body":{"frozen":false,"rows":[]}}`)})
	snap, _ := protocol.Marshal(protocol.TypeSnapshot, "", protocol.Snapshot{Channel: protocol.Channel{Kind: protocol.ChannelContest, ID: 2}, Seq: 3, State: []byte(`{"rows":[]}`)})
	user, _ := protocol.Encode(protocol.LinkLive, protocol.Envelope{V: protocol.Version, Type: protocol.TypeEvent,
		Data: []byte(`{"channel":{"kind":"user","id":5},"seq":1,"kind":"status","body":{"submission_id":1,"status":"AC"}}`)})
	errf, _ := protocol.Marshal(protocol.TypeError, "s1", protocol.Error{Code: protocol.ErrorInternal, Channel: &protocol.Channel{Kind: protocol.ChannelContest, ID: 2}})
	for _, tc := range []struct {
		name string
		raw  []byte
		want bool
	}{{"delta event", ev, true}, {"pushed snapshot", snap, true}, {"own verdict", user, false}, {"error about the contest", errf, false}} {
		if got := boardFrame(tc.raw); got != tc.want {
			t.Errorf("%s: boardFrame = %v, want %v (%s)", tc.name, got, tc.want, tc.raw)
		}
	}
}
