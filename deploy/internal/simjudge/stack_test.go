package simjudge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/harness"
	"github.com/verdict-oj/verdict/internal/protocol"
)

// syncBuffer collects the stack's and the judges' output.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) tail(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := strings.Split(s.b.String(), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// events keeps every Event of the judges.
type events struct {
	mu  sync.Mutex
	all []Event
}

func (e *events) add(ev Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

// kinds lists the event kinds of submission id, in order.
func (e *events) kinds(id int64) []EventKind {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []EventKind
	for _, ev := range e.all {
		if ev.Task.SubmissionID == id {
			out = append(out, ev.Kind)
		}
	}
	return out
}

type detail struct {
	Submission struct {
		ID      int64   `json:"id"`
		Status  string  `json:"status"`
		Final   bool    `json:"final"`
		Score   float64 `json:"score"`
		Attempt int     `json:"attempt"`
		Cases   []struct {
			Index   int    `json:"index"`
			Verdict string `json:"verdict"`
			TimeMs  int64  `json:"time_ms"`
		} `json:"cases"`
		CompileMessage *string `json:"compile_message"`
	} `json:"submission"`
}

// waitFinal polls the submission until the web side has its final result.
func waitFinal(ctx context.Context, c *harness.Client, id int64, within time.Duration) (detail, error) {
	deadline := time.Now().Add(within)
	var d detail
	for time.Now().Before(deadline) {
		d = detail{}
		if err := c.GetJSON(ctx, "/api/submissions/"+strconv.FormatInt(id, 10), &d); err == nil && d.Submission.Final {
			return d, nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return d, fmt.Errorf("submission %d not final after %v: status %q", id, within, d.Submission.Status)
}

// TestAgainstStack connects two simulated judges (different speeds and
// slots) with the spare tokens of a real local stack — MariaDB, Redis,
// two web nodes, the hub, nginx; no real judge — through nginx, submits
// as the demo student, and checks that the verdicts the markers ask for
// come back through the whole system, that test data was downloaded
// (through nginx, with the judge token) and hash-checked, that results
// survive a hub restart in the middle of a task, and that a bad token
// stops a judge for good.
func TestAgainstStack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last lines of the output:\n%s", out.tail(400))
		}
	})
	env, stop, err := harness.Start(ctx, harness.Options{
		Root: root, Judges: -1, SpareJudges: 2, Out: out,
		Env: []string{"VERDICT_WEBAPP_SUBMIT_PER_MINUTE=1000"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	var evs events
	judges := map[string]*Judge{}
	runCtx, stopJudges := context.WithCancel(ctx)
	var running sync.WaitGroup
	defer running.Wait()
	defer stopJudges()
	errs := make(chan error, 2)
	for i, jc := range []struct {
		slots int
		speed float64
	}{{2, 1}, {1, 2}} {
		id := "judge-" + strconv.Itoa(i+1)
		tok, err := os.ReadFile(filepath.Join(env.Stack.Dir(), id, "token"))
		if err != nil {
			t.Fatal(err)
		}
		j, err := New(Config{
			HubURL: env.Stack.HubURL(), ID: id, Token: strings.TrimSpace(string(tok)),
			Slots: jc.slots, Speed: jc.speed, Seed: 7, Logger: log, OnEvent: evs.add,
			BackoffMax: time.Second, DeliverTimeout: 10 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		judges[id] = j
		running.Go(func() { errs <- j.Run(runCtx) })
	}
	if err := env.WaitJudges(ctx, 2, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	c, err := env.Student(ctx)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, problem, language, source string
		verdict                         protocol.Verdict
		score                           float64
		cases                           string // case verdicts by index
	}{
		{"accepted", "a-plus-b", "cpp17", "int main() { return 0; }\n", protocol.VerdictAC, 100,
			"AC AC AC AC AC AC AC AC AC AC"},
		{"wrong answer at case 3", "a-plus-b", "cpp17", "// sim: verdict=WA case=3 ms=5\nint main() {}\n", protocol.VerdictWA, 0,
			"AC AC WA SK SK SK SK SK SK SK"},
		{"python time limit", "a-plus-b", "py3", "# sim: verdict=TLE case=2\nprint(input())\n", protocol.VerdictTLE, 0,
			"AC TLE SK SK SK SK SK SK SK SK"},
		{"compile error", "circle-area", "c17", "// sim: verdict=CE\n", protocol.VerdictCE, 0, ""},
		{"ioi loses a subtask", "max-subarray", "cpp17", "// sim: verdict=WA case=2 ms=2\n", protocol.VerdictWA, 60,
			"AC WA AC AC AC AC"},
	}
	ids := make([]int64, len(tests))
	for i, tt := range tests {
		id, _, err := c.SubmitRetry(ctx, harness.NewKey(), harness.Submission{Problem: tt.problem, Language: tt.language, Source: tt.source}, 30*time.Second)
		if err != nil {
			t.Fatalf("%s: submit: %v", tt.name, err)
		}
		ids[i] = id
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := waitFinal(ctx, c, ids[i], 60*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, cs := range d.Submission.Cases {
				got = append(got, cs.Verdict)
			}
			s := d.Submission
			if protocol.Verdict(s.Status) != tt.verdict || s.Score != tt.score || strings.Join(got, " ") != tt.cases {
				t.Fatalf("submission %d: %s score %v cases [%s]; want %s %v [%s]", ids[i], s.Status, s.Score, strings.Join(got, " "), tt.verdict, tt.score, tt.cases)
			}
			if tt.verdict == protocol.VerdictCE && (s.CompileMessage == nil || !strings.Contains(*s.CompileMessage, "simulated")) {
				t.Errorf("compile message %v", s.CompileMessage)
			}
			// Exactly one judge judged it, once, and recorded every step.
			var recs []TaskRecord
			for _, j := range judges {
				for _, r := range j.Stats().Tasks {
					if r.SubmissionID == ids[i] && !r.Finished.IsZero() {
						recs = append(recs, r)
					}
				}
			}
			if len(recs) != 1 {
				t.Fatalf("judged %d times: %+v", len(recs), recs)
			}
			r := recs[0]
			// The hub's ack told the result's way to its slot free.
			if r.Verdict != tt.verdict || r.Score != tt.score || !r.Acked || r.Sends < 1 || r.Work <= 0 || r.SlotMs <= 0 {
				t.Errorf("record %+v", r)
			}
			// Its compile is the model's at the judge's speed (1 or 2),
			// part of the work (all of a CE's).
			if c := DefaultCompileTime; (r.Compile != c && r.Compile != c/2) || r.Work < r.Compile ||
				(tt.verdict == protocol.VerdictCE) != (r.Work == r.Compile) {
				t.Errorf("compile %v of work %v, want %v or %v (all of it for a CE)", r.Compile, r.Work, c, c/2)
			}
			if r.Received.After(r.Accepted) || r.Accepted.After(r.Started) || r.Started.After(r.Finished) || r.Finished.After(r.AckedAt) {
				t.Errorf("times out of order: %+v", r)
			}
			want := []EventKind{EventReceived, EventAccepted, EventStarted, EventFinished, EventResultSent, EventAcked}
			if k := evs.kinds(ids[i]); fmt.Sprint(k[:min(len(k), len(want))]) != fmt.Sprint(want) {
				t.Errorf("events %v, want %v first", k, want)
			}
		})
	}
	var downloads, nbytes int64
	for id, j := range judges {
		st := j.Stats()
		if st.DataHashMismatches != 0 || st.RejectedBy[protocol.RejectData] != 0 {
			t.Errorf("%s: %d hash mismatches, %d data rejects", id, st.DataHashMismatches, st.RejectedBy[protocol.RejectData])
		}
		problems := map[int64]bool{}
		for _, r := range st.Tasks {
			problems[r.ProblemID] = true
		}
		// Cached by hash: at most one download per problem (the prefetch of
		// a hot problem may fetch one more).
		if st.Downloads > int64(len(problems))+1 || len(st.Cached) > len(problems)+1 {
			t.Errorf("%s: %d downloads, %d cached for %d problems", id, st.Downloads, len(st.Cached), len(problems))
		}
		downloads += st.Downloads
		nbytes += st.BytesDownloaded
	}
	if downloads < 3 || nbytes < 3*100 {
		t.Errorf("%d downloads, %d bytes for 3 problems", downloads, nbytes)
	}

	// The hub dies while a task runs and stays down until it is judged:
	// the result waits, goes out on the new connection, and the lease
	// (renewed by the first heartbeat) keeps it attempt 1.
	t.Run("hub down while judging", func(t *testing.T) {
		before := map[string]int64{}
		for id, j := range judges {
			before[id] = j.Stats().Connections
		}
		id, _, err := c.SubmitRetry(ctx, harness.NewKey(), harness.Submission{Problem: "a-plus-b", Language: "cpp17", Source: "// sim: ms=60\n"}, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		record := func() (TaskRecord, bool) {
			for _, j := range judges {
				for _, r := range j.Stats().Tasks {
					if r.SubmissionID == id {
						return r, true
					}
				}
			}
			return TaskRecord{}, false
		}
		waitFor := func(what string, ok func(TaskRecord) bool) TaskRecord {
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				if r, found := record(); found && ok(r) {
					return r
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Fatalf("submission %d: not %s within 20 s", id, what)
			return TaskRecord{}
		}
		waitFor("started", func(r TaskRecord) bool { return !r.Started.IsZero() })
		if err := env.Stack.Kill("hub"); err != nil {
			t.Fatal(err)
		}
		r := waitFor("judged", func(r TaskRecord) bool { return !r.Finished.IsZero() })
		if r.Acked {
			t.Fatal("acknowledged while the hub was down")
		}
		if err := env.Stack.Start(ctx, "hub"); err != nil {
			t.Fatal(err)
		}
		d, err := waitFinal(ctx, c, id, 60*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if d.Submission.Status != string(protocol.VerdictAC) || d.Submission.Attempt != 1 || len(d.Submission.Cases) != 10 {
			t.Fatalf("after the restart: %s attempt %d, %d cases; want AC attempt 1, 10 cases", d.Submission.Status, d.Submission.Attempt, len(d.Submission.Cases))
		}
		if r := waitFor("acknowledged", func(r TaskRecord) bool { return r.Acked }); r.Sends < 1 || r.Pushes != 1 {
			t.Errorf("record %+v: want one push, sent at least once", r)
		}
		for jid, j := range judges { // the other judge may still be backing off
			deadline := time.Now().Add(15 * time.Second)
			st := j.Stats()
			for (st.Connections <= before[jid] || !st.Connected) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
				st = j.Stats()
			}
			if st.Reconnects < 1 || st.Connections <= before[jid] || !st.Connected {
				t.Errorf("%s: %d reconnects, connections %d → %d, connected %v", jid, st.Reconnects, before[jid], st.Connections, st.Connected)
			}
		}
	})

	t.Run("bad token stops", func(t *testing.T) {
		j, err := New(Config{HubURL: env.Stack.HubURL(), ID: "judge-intruder", Token: "not-a-token", Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		var stop *StopError
		if err := j.Run(rctx); !errors.As(err, &stop) || stop.Code != protocol.CloseBadToken {
			t.Fatalf("Run = %v, want a StopError with bad_token", err)
		}
	})

	t.Run("drain", func(t *testing.T) {
		stopJudges()
		for range judges {
			select {
			case err := <-errs:
				if err != nil {
					t.Errorf("Run = %v, want nil after the drain", err)
				}
			case <-time.After(40 * time.Second):
				t.Fatal("Run did not return within 40 s of the cancel")
			}
		}
		for id, j := range judges {
			if st := j.Stats(); st.Connected || st.Judged < 1 {
				t.Errorf("%s after the drain: connected %v, judged %d", id, st.Connected, st.Judged)
			}
		}
	})
}
