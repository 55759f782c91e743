package warm

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/warmplan"
)

var t0 = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

func prob(id int64, hash string) warmplan.Problem {
	return warmplan.Problem{ID: id, TestData: protocol.TestData{Hash: hash, URL: "https://oj.example/api/judge/testdata/" + hash}}
}

func contest(id int64, start, length time.Duration, ps ...warmplan.Problem) warmplan.Contest {
	return warmplan.Contest{ID: id, Slug: fmt.Sprint("c", id), Start: t0.Add(start), End: t0.Add(start + length), Problems: ps}
}

func judge(id string, has ...string) Judge {
	set := map[string]bool{}
	for _, h := range has {
		set[h] = true
	}
	return Judge{ID: id, Has: func(h string) bool { return set[h] }, Sent: map[string]time.Time{}, Failed: map[string]time.Time{}}
}

// sent is a compact view of the prefetches: "judge:hash".
func sent(js []Judge, r Result) []string {
	out := []string{}
	for _, p := range r.Prefetches {
		out = append(out, js[p.Judge].ID+":"+p.TestData.Hash)
	}
	return out
}

func TestPlanPrefetches(t *testing.T) {
	soon := contest(1, 5*time.Minute, 3*time.Hour, prob(11, "a"), prob(12, "b"))
	later := contest(2, 30*time.Minute, time.Hour, prob(21, "c"))
	running := contest(3, -time.Hour, 2*time.Hour, prob(31, "d"))
	ended := contest(4, -3*time.Hour, time.Hour, prob(41, "e"))
	big := contest(5, time.Minute, time.Hour, prob(51, "p"), prob(52, "q"), prob(53, "r"))
	// The same problem in two contests: one prefetch.
	shared := contest(6, 2*time.Minute, time.Hour, prob(11, "a"))
	// A changed hash of problem 11: the new one is wanted.
	changed := contest(1, 5*time.Minute, 3*time.Hour, prob(11, "a2"), prob(12, "b"))

	withSent := func(j Judge, h string, ago time.Duration) Judge { j.Sent[h] = t0.Add(-ago); return j }
	withFailed := func(j Judge, h string, ago time.Duration) Judge { j.Failed[h] = t0.Add(-ago); return j }

	tests := []struct {
		name     string
		cfg      Config
		contests []warmplan.Contest
		judges   []Judge
		want     []string
	}{
		{"no plan", Config{}, nil, []Judge{judge("j1")}, []string{}},
		{"within the window: every judge, every problem", Config{}, []warmplan.Contest{soon},
			[]Judge{judge("j1"), judge("j2")}, []string{"j1:a", "j1:b", "j2:a", "j2:b"}},
		{"starting after the window: nothing", Config{}, []warmplan.Contest{later}, []Judge{judge("j1")}, []string{}},
		{"a wider window takes it", Config{Before: 45 * time.Minute}, []warmplan.Contest{later}, []Judge{judge("j1")}, []string{"j1:c"}},
		{"running: warmed too", Config{}, []warmplan.Contest{running}, []Judge{judge("j1")}, []string{"j1:d"}},
		{"ended: nothing", Config{}, []warmplan.Contest{ended}, []Judge{judge("j1")}, []string{}},
		{"held data is not sent", Config{}, []warmplan.Contest{soon}, []Judge{judge("j1", "a"), judge("j2", "a", "b")}, []string{"j1:b"}},
		{"a changed hash is warmed again", Config{}, []warmplan.Contest{changed}, []Judge{judge("j1", "a", "b")}, []string{"j1:a2"}},
		{"at most two in flight, earliest contest first", Config{}, []warmplan.Contest{soon, big},
			[]Judge{judge("j1")}, []string{"j1:p", "j1:q"}},
		{"in flight counts against the limit", Config{}, []warmplan.Contest{big},
			[]Judge{withSent(judge("j1"), "p", time.Second)}, []string{"j1:q"}},
		{"a bigger limit", Config{MaxInFlight: 5}, []warmplan.Contest{big}, []Judge{judge("j1")}, []string{"j1:p", "j1:q", "j1:r"}},
		{"unreported for longer than Retry: sent again", Config{}, []warmplan.Contest{soon},
			[]Judge{withSent(withSent(judge("j1"), "a", 3*time.Minute), "b", time.Minute)}, []string{"j1:a"}},
		{"failed recently: waits", Config{}, []warmplan.Contest{soon},
			[]Judge{withFailed(judge("j1"), "a", 10*time.Second)}, []string{"j1:b"}},
		{"failed long ago: retried", Config{}, []warmplan.Contest{soon},
			[]Judge{withFailed(judge("j1"), "a", time.Minute)}, []string{"j1:a", "j1:b"}},
		{"one prefetch per hash across contests", Config{MaxInFlight: 10}, []warmplan.Contest{soon, shared},
			[]Judge{judge("j1")}, []string{"j1:a", "j1:b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Plan(tc.cfg, warmplan.Plan{GeneratedAt: t0, Contests: tc.contests}, t0, tc.judges)
			if got := sent(tc.judges, r); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("prefetches %v, want %v", got, tc.want)
			}
			for _, p := range r.Prefetches {
				if p.ProblemID == 0 || p.TestData.URL == "" {
					t.Errorf("prefetch %+v lacks the problem or the URL the plan carries", p)
				}
			}
		})
	}
}

func TestPlanStatus(t *testing.T) {
	soon := contest(1, 5*time.Minute, 3*time.Hour, prob(11, "a"), prob(12, "b"))
	later := contest(2, 2*time.Hour, time.Hour, prob(21, "c"))
	ended := contest(4, -3*time.Hour, time.Hour, prob(41, "e"))
	empty := contest(7, time.Minute, time.Hour)
	type st struct {
		id           int64
		warming      bool
		warm, judges int
	}
	tests := []struct {
		name     string
		contests []warmplan.Contest
		judges   []Judge
		want     []st
	}{
		{"no judges", []warmplan.Contest{soon}, nil, []st{{1, true, 0, 0}}},
		{"warm needs every problem", []warmplan.Contest{soon}, []Judge{judge("j1", "a"), judge("j2", "a", "b"), judge("j3")}, []st{{1, true, 1, 3}}},
		{"later contests are listed, not warming, in start order", []warmplan.Contest{later, soon},
			[]Judge{judge("j1", "c")}, []st{{1, true, 0, 1}, {2, false, 1, 1}}},
		{"ended contests are left out", []warmplan.Contest{ended, soon}, []Judge{judge("j1", "a", "b")}, []st{{1, true, 1, 1}}},
		{"a contest without data is warm", []warmplan.Contest{empty}, []Judge{judge("j1")}, []st{{7, true, 1, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Plan(Config{}, warmplan.Plan{Contests: tc.contests}, t0, tc.judges)
			got := []st{}
			for _, c := range r.Contests {
				got = append(got, st{c.ID, c.Warming, c.Warm, c.Judges})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("status %+v, want %+v", got, tc.want)
			}
		})
	}
}
