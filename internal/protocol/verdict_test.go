package protocol

import "testing"

func TestVerdict(t *testing.T) {
	tests := []struct {
		v     Verdict
		valid bool
		final bool
		name  string
	}{
		{VerdictAC, true, true, "Accepted"},
		{VerdictWA, true, true, "Wrong Answer"},
		{VerdictTLE, true, true, "Time Limit Exceeded"},
		{VerdictMLE, true, true, "Memory Limit Exceeded"},
		{VerdictOLE, true, true, "Output Limit Exceeded"},
		{VerdictRE, true, true, "Runtime Error"},
		{VerdictCE, true, true, "Compile Error"},
		{VerdictPE, true, true, "Presentation Error"},
		{VerdictSE, true, true, "System Error"},
		{VerdictSkipped, true, true, "Skipped"},
		{VerdictPending, true, false, "Pending"},
		{VerdictQueued, true, false, "Queued"},
		{VerdictCompiling, true, false, "Compiling"},
		{VerdictJudging, true, false, "Judging"},
		{"ac", false, false, "ac"},
		{"", false, false, ""},
	}
	for _, tc := range tests {
		if got := tc.v.Valid(); got != tc.valid {
			t.Errorf("%q.Valid() = %v, want %v", tc.v, got, tc.valid)
		}
		if got := tc.v.Final(); got != tc.final {
			t.Errorf("%q.Final() = %v, want %v", tc.v, got, tc.final)
		}
		if got := tc.v.Name(); got != tc.name {
			t.Errorf("%q.Name() = %q, want %q", tc.v, got, tc.name)
		}
		if tc.v.String() != string(tc.v) {
			t.Errorf("%q.String() = %q", tc.v, tc.v.String())
		}
	}
	if len(verdictNames) != len(tests)-2 {
		t.Errorf("verdict table has %d entries, test covers %d", len(verdictNames), len(tests)-2)
	}
}

func TestEnums(t *testing.T) {
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"icpc", ModeICPC.Valid(), true},
		{"ioi", ModeIOI.Valid(), true},
		{"acm", Mode("acm").Valid(), false},
		{"exact", CheckerExact.Valid(), true},
		{"default", CheckerDefault.Valid(), true},
		{"float", CheckerFloat.Valid(), true},
		{"special", CheckerSpecial.Valid(), true},
		{"checker empty", CheckerKind("").Valid(), false},
		{"rejudge", PriorityRejudge.Valid(), true},
		{"contest", PriorityContest.Valid(), true},
		{"priority -1", Priority(-1).Valid(), false},
		{"custom", PriorityCustom.Valid(), true},
		{"priority 4", Priority(4).Valid(), false},
		{"channel submission", ChannelSubmission.Valid(), true},
		{"channel user", ChannelUser.Valid(), true},
		{"channel contest", ChannelContest.Valid(), true},
		{"channel clarifications", ChannelClarifications.Valid(), true},
		{"channel queue", ChannelQueue.Valid(), true},
		{"channel balloons", ChannelBalloons.Valid(), true},
		{"channel other", ChannelKind("x").Valid(), false},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: Valid() = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if !(PriorityContest > PriorityPractice && PriorityPractice > PriorityRejudge) {
		t.Error("the wire values of the first priorities must stay contest > practice > rejudge")
	}
	if !(PriorityContest.Rank() > PriorityCustom.Rank() && PriorityCustom.Rank() > PriorityPractice.Rank() &&
		PriorityPractice.Rank() > PriorityRejudge.Rank() && PriorityContest.Rank() == MaxRank) {
		t.Error("ranks must order contest > custom run > practice > rejudge")
	}
}
