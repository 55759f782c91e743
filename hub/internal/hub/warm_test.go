package hub_test

import (
	"context"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
	"github.com/verdict-oj/verdict/internal/warmplan"
)

// prefetched lists the hashes of the prefetches a fake judge received, in
// order, and checks each carries the URL of the plan.
func (j *fakeJudge) prefetched() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []string{}
	for _, p := range j.prefetches {
		if p.TestData.URL != "http://blobs/"+p.TestData.Hash {
			j.t.Errorf("judge %s: prefetch %+v: URL is not the plan's", j.id, p)
		}
		out = append(out, p.TestData.Hash)
	}
	return out
}

func writePlan(t *testing.T, env *testenv.RedisEnv, p warmplan.Plan) {
	t.Helper()
	b, err := warmplan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := env.Client.Set(ctx, env.Names.WarmPlan(), b, warmplan.TTL).Err(); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Publish(ctx, env.Names.WarmPlanChanged(), "").Err(); err != nil {
		t.Fatal(err)
	}
}

func planProblem(id int64, hash string) warmplan.Problem {
	return warmplan.Problem{ID: id, TestData: protocol.TestData{Hash: hash, URL: "http://blobs/" + hash}}
}

// warmStatus reads the hub's warm status: contest slug → warm/judges.
func warmStatus(t *testing.T, env *testenv.RedisEnv, hubID string) map[string]warmplan.ContestStatus {
	t.Helper()
	raw, err := env.Client.HGet(context.Background(), env.Names.WarmStatus(), hubID).Bytes()
	if err != nil {
		return nil
	}
	st, err := warmplan.DecodeStatus(raw)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]warmplan.ContestStatus{}
	for _, c := range st.Contests {
		out[c.Slug] = c
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// TestWarmBeforeContest: a connected judge prefetches the data of a
// contest that starts within --warm-before and not of one that starts
// later; a judge that connects later is warmed on connect (only what it
// lacks); a problem whose test data changes is warmed again; the hub
// reports per contest how many judges are warm.
func TestWarmBeforeContest(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, func(c *hub.Config) {
		c.HubID = "hub-warm"
		c.WarmBefore = 10 * time.Minute
		c.WarmInterval = 100 * time.Millisecond
	})
	now := time.Now()
	soon := warmplan.Contest{ID: 1, Slug: "soon", Start: now.Add(5 * time.Minute), End: now.Add(3 * time.Hour),
		Problems: []warmplan.Problem{planProblem(11, "soon-a"), planProblem(12, "soon-b"), planProblem(13, "soon-c")}}
	later := warmplan.Contest{ID: 2, Slug: "later", Start: now.Add(time.Hour), End: now.Add(2 * time.Hour),
		Problems: []warmplan.Problem{planProblem(21, "later-a")}}
	writePlan(t, env, warmplan.Plan{GeneratedAt: now, Contests: []warmplan.Contest{soon, later}})

	url := func() string { return th.url("/judge") }
	j1 := newFakeJudge(t, env, "warm-1", 1, url, 0).start()
	want := []string{"soon-a", "soon-b", "soon-c"}
	eventually(t, 5*time.Second, "judge 1 prefetches the soon contest", func() bool {
		return slices.Equal(sorted(j1.prefetched()), want)
	})
	eventually(t, 5*time.Second, "judge 1 counted warm", func() bool {
		s := warmStatus(t, env, "hub-warm")
		return s["soon"].Warm == 1 && s["soon"].Judges == 1 && s["soon"].Warming
	})
	if s := warmStatus(t, env, "hub-warm")["later"]; s.Warming || s.Warm != 0 || s.Judges != 1 {
		t.Errorf("later contest status %+v, want not warming, 0 of 1 warm", s)
	}

	// A judge connecting later, already holding one problem's data.
	j2 := newFakeJudge(t, env, "warm-2", 1, url, 0)
	j2.cachedData = []string{"soon-b"}
	j2.start()
	eventually(t, 5*time.Second, "judge 2 warmed on connect", func() bool {
		return slices.Equal(sorted(j2.prefetched()), []string{"soon-a", "soon-c"})
	})
	eventually(t, 5*time.Second, "both judges warm", func() bool { return warmStatus(t, env, "hub-warm")["soon"].Warm == 2 })

	// New test data for problem 12: warmed again, on both judges.
	soon.Problems[1] = planProblem(12, "soon-b2")
	writePlan(t, env, warmplan.Plan{GeneratedAt: time.Now(), Contests: []warmplan.Contest{soon, later}})
	eventually(t, 5*time.Second, "the new hash prefetched by both", func() bool {
		return slices.Contains(j1.prefetched(), "soon-b2") && slices.Contains(j2.prefetched(), "soon-b2")
	})
	eventually(t, 5*time.Second, "warm again with the new data", func() bool { return warmStatus(t, env, "hub-warm")["soon"].Warm == 2 })

	// Several more passes: nothing is sent twice, the later contest never.
	time.Sleep(5 * 100 * time.Millisecond)
	for _, j := range []*fakeJudge{j1, j2} {
		got := j.prefetched()
		if slices.Contains(got, "later-a") {
			t.Errorf("judge %s prefetched the later contest: %v", j.id, got)
		}
		seen := map[string]bool{}
		for _, h := range got {
			if seen[h] {
				t.Errorf("judge %s got %s twice: %v", j.id, h, got)
			}
			seen[h] = true
		}
	}
	// 3 to judge 1, 2 to judge 2, then the new hash to each.
	if n := metric(t, th.reg, "verdict_hub_warm_prefetches_total", nil); n != 7 {
		t.Errorf("warm prefetches %v, want 7", n)
	}
}
