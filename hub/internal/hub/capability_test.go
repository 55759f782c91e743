package hub_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/judgestate"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// TestValidationOnlyToCapableJudges: an input validation is never sent to
// a judge whose hello does not announce the capability (an older agent):
// it waits in the queue while such a judge takes the submissions behind
// it, and goes to the first judge that announces it. The judge's
// capabilities are in its recorded state, for the web nodes.
func TestValidationOnlyToCapableJudges(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	ctx := context.Background()

	old := newFakeJudge(t, env, "old", 2, func() string { return th.url("/judge") }, 5*time.Millisecond).start()
	eventually(t, 5*time.Second, "old judge ready", func() bool { return old.current() != nil })
	old.waitDispatchable(env)

	id, err := q.NewCustomRunID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v := newTask(id, 1, 7)
	v.Feedback = nil
	v.Priority = protocol.PriorityCustom
	v.Validation = &protocol.InputValidation{Convention: protocol.ValidationKattis, Name: protocol.ValidatorCPP, Source: "int main(){return 42;}"}
	enqueue(t, q, v, newTask(1, 2, 7), newTask(2, 3, 7))
	waitResults(t, env, 2, 10*time.Second)
	// A few dispatch passes more: still not sent.
	time.Sleep(300 * time.Millisecond)
	old.mu.Lock()
	got := slices.Clone(old.tasks)
	old.mu.Unlock()
	if slices.Contains(got, id) {
		t.Fatalf("the old judge got the validation (tasks %v)", got)
	}
	if !slices.Contains(got, 1) || !slices.Contains(got, 2) {
		t.Fatalf("the old judge got %v, want the submissions behind the validation", got)
	}
	rec, err := q.CustomRun(ctx, id)
	if err != nil || rec.State.Status.Final() {
		t.Fatalf("validation before a capable judge: %+v, %v", rec.State, err)
	}

	capable := newFakeJudge(t, env, "new", 1, func() string { return th.url("/judge") }, 5*time.Millisecond)
	capable.capabilities = []string{protocol.CapabilityInputValidation}
	capable.start()
	eventually(t, 10*time.Second, "the validation judged by the capable judge", func() bool {
		rec, err := q.CustomRun(ctx, id)
		return err == nil && rec.State.Status.Final()
	})
	capable.mu.Lock()
	gotNew := slices.Clone(capable.tasks)
	capable.mu.Unlock()
	if !slices.Contains(gotNew, id) {
		t.Fatalf("the capable judge got %v, want the validation %d", gotNew, id)
	}
	eventually(t, 5*time.Second, "capabilities recorded", func() bool {
		st, err := judgestate.Decode(env.Client.HGetAll(ctx, env.Names.Judge("new")).Val())
		return err == nil && slices.Equal(st.Capabilities, []string{protocol.CapabilityInputValidation})
	})
	st, err := judgestate.Decode(env.Client.HGetAll(ctx, env.Names.Judge("old")).Val())
	if err != nil || st.Capabilities != nil {
		t.Fatalf("old judge's state %+v, %v: want no capabilities", st, err)
	}
}

// TestCheckerLanguageOnlyToCapableJudges: a submission to a problem whose
// output validator is in Python (Task.Checker.Language) is never sent to
// a judge without the checker_languages capability (it knows C and C++
// checkers only): the submissions behind it go to that judge, and it to
// the first judge that announces the capability.
func TestCheckerLanguageOnlyToCapableJudges(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()

	old := newFakeJudge(t, env, "old", 2, func() string { return th.url("/judge") }, 5*time.Millisecond)
	old.capabilities = []string{protocol.CapabilityInputValidation} // a judge of the release before
	old.start()
	eventually(t, 5*time.Second, "old judge ready", func() bool { return old.current() != nil })
	old.waitDispatchable(env)

	py := newTask(1, 8, 7)
	py.Checker = protocol.Checker{Kind: protocol.CheckerSpecial, Language: "py3"}
	enqueue(t, q, py, newTask(2, 2, 7), newTask(3, 3, 7))
	waitResults(t, env, 2, 10*time.Second)
	time.Sleep(300 * time.Millisecond) // a few dispatch passes more: still not sent
	old.mu.Lock()
	got := slices.Clone(old.tasks)
	old.mu.Unlock()
	if slices.Contains(got, 1) || !slices.Contains(got, 2) || !slices.Contains(got, 3) {
		t.Fatalf("the old judge got %v, want the C++-checker submissions 2 and 3 only", got)
	}

	capable := newFakeJudge(t, env, "new", 1, func() string { return th.url("/judge") }, 5*time.Millisecond)
	capable.capabilities = []string{protocol.CapabilityInputValidation, protocol.CapabilityProgramLanguages}
	capable.start()
	waitResults(t, env, 3, 10*time.Second)
	capable.mu.Lock()
	gotNew := slices.Clone(capable.tasks)
	capable.mu.Unlock()
	if !slices.Equal(gotNew, []int64{1}) {
		t.Fatalf("the capable judge got %v, want the Python-checker submission 1", gotNew)
	}
}
