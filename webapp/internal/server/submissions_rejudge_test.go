package server

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestRejudgeProblemInBackground: rejudging a problem answers at once
// (202) and rejudges every submission in the background: the rehearsal's
// rejudge of a problem with a thousand submissions ran inside the
// request, passed its deadline after 13 and stopped half way.
func TestRejudgeProblemInBackground(t *testing.T) {
	je := newJudgeEnv(t, func(c *Config) {
		c.RequestTimeout = 500 * time.Millisecond
		c.SubmitPerMinute, c.SubmitBurst = 100000, 100000 // the per-user limit is not what this is about
	})
	ctx := context.Background()
	_ = je.q.EnsureResultsGroup(ctx)
	alice := je.student("alice")
	const n = 40
	var ids []int64
	for i := range n {
		sid := id(alice.submit(fmt.Sprintf("k%d", i), map[string]any{"problem": "a-plus-b", "language": "py3", "source": fmt.Sprintf("x%d", i)}))
		je.judge(sid, 1, protocol.VerdictAC, 3)
		ids = append(ids, sid)
	}
	je.consume()
	je.user("root", store.RoleAdmin, "root-password")
	admin := je.client()
	admin.login("root", "root-password")
	// The job outlives the request (whose context ends with the answer)
	// and its 500 ms deadline.
	r := admin.do("POST", "/api/rejudge", map[string]any{"problem": "a-plus-b"}, "X-CSRF-Token", admin.csrf)
	if r.status != http.StatusAccepted || r.body["queued"] != float64(n) || r.body["background"] != true {
		t.Fatalf("rejudge a problem: %d %s", r.status, r.raw)
	}
	job, _ := r.body["job"].(string)
	if job == "" {
		t.Fatalf("rejudge a problem: no job id: %s", r.raw)
	}
	je.srv.Judging().WaitJobs()
	// Its progress, from any node (Redis): all done, finished.
	st := admin.do("GET", "/api/rejudge/"+job, nil)
	if st.status != http.StatusOK || st.body["job"] != job || st.body["total"] != float64(n) || st.body["done"] != float64(n) ||
		st.body["failed"] != float64(0) || st.body["finished"] != true || st.body["interrupted"] != false || st.body["finished_at"] == nil {
		t.Fatalf("the job's progress: %d %s", st.status, st.raw)
	}
	wantErr(t, admin.do("GET", "/api/rejudge/0123456789abcdef", nil), http.StatusNotFound, CodeNotFound, "job")
	wantErr(t, admin.do("GET", "/api/rejudge/..%2Fqueue", nil), http.StatusNotFound, CodeNotFound, "job")
	if r := alice.do("GET", "/api/rejudge/"+job, nil); r.status != http.StatusForbidden {
		t.Fatalf("a student reads a rejudge job: %d %s", r.status, r.raw)
	}
	for _, sid := range ids {
		if a, _ := je.rdb.HGet(ctx, je.names.Task(sid), "attempt").Result(); a != "2" {
			t.Fatalf("submission %d: task attempt %q, want 2", sid, a)
		}
		s, err := je.st.SubmissionByID(ctx, sid)
		if err != nil || s.Attempt != 2 || s.Verdict != "queued" {
			t.Fatalf("submission %d after the rejudge: attempt %d verdict %s (%v)", sid, s.Attempt, s.Verdict, err)
		}
	}
}
