package lab

import (
	"errors"
	"slices"
	"testing"

	"github.com/verdict-oj/verdict/hub/internal/sched"
)

// TestNew: every name the lab lists builds a policy of that name, the
// hub's among them; the baselines are exactly the names the hub refuses.
func TestNew(t *testing.T) {
	for _, name := range Names() {
		p, err := New(name)
		if err != nil || p.Name() != name {
			t.Fatalf("New(%q) = %v, %v", name, p, err)
		}
		_, hubErr := sched.New(name)
		if lab := slices.Contains(Baselines(), name); lab != (hubErr != nil) {
			t.Errorf("%q: a lab baseline %v, but sched.New's error = %v", name, lab, hubErr)
		}
	}
	if got, want := len(Names()), len(sched.Names())+len(Baselines()); got != want {
		t.Fatalf("Names() has %d entries, want %d (duplicates?)", got, want)
	}
	if _, err := New("round_robin"); !errors.Is(err, sched.ErrUnknownPolicy) {
		t.Fatalf("New(round_robin) = %v", err)
	}
}
