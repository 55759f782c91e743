package judging

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/queue"
)

func TestParseRejudgeStatus(t *testing.T) {
	started := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	finished := started.Add(7 * time.Minute)
	for _, tc := range []struct {
		name    string
		h       map[string]string
		want    RejudgeStatus
		wantErr bool
	}{
		{"running", map[string]string{"total": "2087", "done": "40", "failed": "1", "user_id": "1", "started_at": "1796223600000"},
			RejudgeStatus{Job: "j", Total: 2087, Done: 40, Failed: 1, UserID: 1, StartedAt: started}, false},
		{"finished", map[string]string{"total": "3", "done": "3", "failed": "0", "user_id": "1", "started_at": "1796223600000", "finished_at": "1796224020000"},
			RejudgeStatus{Job: "j", Total: 3, Done: 3, UserID: 1, StartedAt: started, FinishedAt: &finished, Finished: true}, false},
		{"interrupted", map[string]string{"total": "3", "done": "1", "failed": "0", "user_id": "1", "started_at": "1796223600000", "interrupted_at": "1796223660000"},
			RejudgeStatus{Job: "j", Total: 3, Done: 1, UserID: 1, StartedAt: started, Interrupted: true}, false},
		{"not a number", map[string]string{"total": "x"}, RejudgeStatus{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseRejudgeStatus("j", tc.h)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if tc.wantErr {
				return
			}
			same := got.Job == tc.want.Job && got.Total == tc.want.Total && got.Done == tc.want.Done && got.Failed == tc.want.Failed &&
				got.UserID == tc.want.UserID && got.StartedAt.Equal(tc.want.StartedAt) && got.Finished == tc.want.Finished &&
				got.Interrupted == tc.want.Interrupted && (got.FinishedAt == nil) == (tc.want.FinishedAt == nil) &&
				(got.FinishedAt == nil || got.FinishedAt.Equal(*tc.want.FinishedAt))
			if !same {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestJobIDs(t *testing.T) {
	id, err := newJobID()
	if err != nil || !validJobID(id) {
		t.Fatalf("newJobID = %q, %v", id, err)
	}
	for _, bad := range []string{"", "0123456789ABCDEF", "0123456789abcde", "0123456789abcdefa", "../queue", "0123456789abcdeg"} {
		if validJobID(bad) {
			t.Errorf("validJobID(%q) = true", bad)
		}
	}
}

// TestRejudgePaceWithoutTheQueue: a queue that cannot be read does not
// stall a rejudge: each claim goes through, unpaced, and is counted; a
// claim after the job's end is refused.
func TestRejudgePaceWithoutTheQueue(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1}) // nothing listens
	defer rdb.Close()
	q, err := queue.New(queue.Config{Client: rdb})
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{q: q, cfg: Config{RejudgeAhead: 1, RejudgePoll: time.Millisecond}}
	p := &rejudgePace{s: s, log: slog.New(slog.DiscardHandler)}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for range 3 {
		if !p.room(ctx) {
			t.Fatal("a claim refused with the queue unreadable")
		}
	}
	if p.inflight != 3 || s.paceWarned.Load() == 0 {
		t.Fatalf("in flight %d, warned at %d: want 3 and a warning", p.inflight, s.paceWarned.Load())
	}
	cancel()
	if p.room(ctx) || p.inflight != 3 {
		t.Fatalf("a claim after the end: in flight %d", p.inflight)
	}
}
