package protocol

import "testing"

func TestCloseCodes(t *testing.T) {
	tests := []struct {
		code  CloseCode
		name  string
		retry bool
	}{
		{CloseNormal, "normal", false},
		{CloseGoingAway, "going_away", true},
		{CloseAbnormal, "abnormal", true},
		{ClosePolicyViolation, "policy_violation", true},
		{CloseMessageTooBig, "message_too_big", false},
		{CloseInternalError, "internal_error", true},
		{CloseBadEnvelope, "bad_envelope", false},
		{CloseUnsupportedVersion, "unsupported_version", false},
		{CloseBadToken, "bad_token", false},
		{CloseForbidden, "forbidden", false},
		{CloseSuperseded, "superseded", false},
		{CloseHubShutdown, "hub_shutdown", true},
		{CloseSlowConsumer, "slow_consumer", true},
		{CloseHeartbeatTimeout, "heartbeat_timeout", true},
		{CloseOverloaded, "overloaded", true},
		{CloseDrained, "drained", false},
		{CloseSessionExpired, "session_expired", false},
		{CloseCode(4999), "close(4999)", true},
		{CloseCode(1234), "close(1234)", true},
	}
	for _, tc := range tests {
		if got := tc.code.String(); got != tc.name {
			t.Errorf("%d.String() = %q, want %q", int(tc.code), got, tc.name)
		}
		if got := Retry(tc.code); got != tc.retry {
			t.Errorf("Retry(%s) = %v, want %v", tc.code, got, tc.retry)
		}
	}
}

func TestCloseCodeTable(t *testing.T) {
	table := CloseCodes()
	names := map[string]bool{}
	for i, c := range table {
		if i > 0 && table[i-1].Code >= c.Code {
			t.Errorf("table not in ascending order at %d", c.Code)
		}
		if names[c.Name] {
			t.Errorf("duplicate name %q", c.Name)
		}
		names[c.Name] = true
		if !c.Code.Known() {
			t.Errorf("%d not Known", c.Code)
		}
		standard := c.Code >= 1000 && c.Code <= 1015
		private := c.Code >= 4000 && c.Code <= 4999
		if !standard && !private {
			t.Errorf("code %d is neither standard (1000-1015) nor private (4000-4999)", c.Code)
		}
	}
	table[0].Retry = !table[0].Retry
	if CloseCodes()[0].Retry == table[0].Retry {
		t.Error("CloseCodes returns the internal table, callers can mutate it")
	}
}
