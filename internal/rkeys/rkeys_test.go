package rkeys

import "testing"

func TestNames(t *testing.T) {
	def := New("")
	custom := New("t42")
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"default registry web", def.Registry(RoleWeb), "verdict:registry:web"},
		{"default registry hub", def.Registry(RoleHub), "verdict:registry:hub"},
		{"custom registry", custom.Registry(RoleWeb), "t42:registry:web"},
		{"registry changed", def.RegistryChanged(), "verdict:registry:changed"},
		{"session", def.Session("abc"), "verdict:session:abc"},
		{"user epoch", def.UserEpoch(7), "verdict:user-epoch:7"},
		{"queue", custom.Queue(), "t42:queue"},
		{"task", def.Task(17), "verdict:task:17"},
		{"leases", def.Leases(), "verdict:leases"},
		{"results", def.Results(), "verdict:results"},
		{"scoreboard", def.Scoreboard(3), "verdict:contest:3:board"},
		{"scoreboard views", def.ScoreboardViews(3), "verdict:contest:3:board-views"},
		{"scoreboard changes", def.ScoreboardChanges(3), "verdict:contest:3:board-changes"},
		{"events", custom.Events("submission", 9), "t42:events:submission:9"},
		{"lock", def.Lock("migrate"), "verdict:lock:migrate"},
		{"ratelimit", def.RateLimit("login", "1.2.3.4"), "verdict:ratelimit:login:1.2.3.4"},
		{"login user", def.LoginUser("alice"), "verdict:login:user:alice"},
		{"login addr", custom.LoginAddr("2001:db8::1"), "t42:login:addr:2001:db8::1"},
		{"login devices", def.LoginDevices("alice"), "verdict:login:devices:alice"},
		{"login addrs", def.LoginAddrs("alice"), "verdict:login:addrs:alice"},
		{"idempotency", def.Idempotency(5, "k"), "verdict:idem:5:k"},
		{"judge tokens", def.JudgeTokens(), "verdict:judges:tokens"},
		{"judge", def.Judge("judge-1"), "verdict:judge:judge-1"},
		{"queue changed", def.QueueChanged(), "verdict:queue:changed"},
		{"queue notice", def.QueueNotice(), "verdict:queue:notice"},
		{"hub capacity", def.HubCapacity(), "verdict:queue:capacity"},
		{"completions", def.Completions(), "verdict:queue:completions"},
		{"live state", custom.LiveState("submission", 7), "t42:live:submission:7"},
		{"judge evict", def.JudgeEvict(), "verdict:judges:evict"},
		{"judge connected", def.JudgeConnected(), "verdict:judges:connected"},
		{"cache", def.Cache("problems", "public", "3"), "verdict:cache:problems:public:3"},
		{"warm plan", def.WarmPlan(), "verdict:warm:plan"},
		{"warm plan changed", def.WarmPlanChanged(), "verdict:warm:changed"},
		{"warm status", custom.WarmStatus(), "t42:warm:status"},
		{"rejudge job", def.RejudgeJob("9f3a"), "verdict:rejudge:job:9f3a"},
		{"rejudge request", def.RejudgeRequest(7, "k-1"), "verdict:rejudge:request:7:k-1"},
		{"zero value", Names{}.Queue(), "verdict:queue"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

func TestPrefixesDoNotCollide(t *testing.T) {
	a, b := New("a"), New("b")
	if a.Events("contest", 1) == b.Events("contest", 1) {
		t.Fatal("two prefixes produced the same channel name")
	}
}
