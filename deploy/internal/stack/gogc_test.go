package stack

import (
	"slices"
	"testing"
)

func TestServiceEnv(t *testing.T) {
	base := []string{"VERDICT_LOG_FORMAT=text"}
	for _, tc := range []struct {
		name      string
		env       []string
		inherited string
		want      []string
	}{
		{"nothing set: the stack's", base, "", []string{"VERDICT_LOG_FORMAT=text", "GOGC=" + ServiceGOGC}},
		{"Config.Env sets it", []string{"VERDICT_LOG_FORMAT=text", "GOGC=50"}, "", []string{"VERDICT_LOG_FORMAT=text", "GOGC=50"}},
		{"the stack's environment sets it", base, "off", base},
	} {
		got := serviceEnv(tc.env, tc.inherited)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// The caller's slice is not written through.
	env := make([]string, 1, 4)
	env[0] = "A=1"
	_ = serviceEnv(env, "")
	if got := env[:2]; got[1] != "" {
		t.Errorf("serviceEnv wrote into its argument's spare capacity: %q", got)
	}
}
