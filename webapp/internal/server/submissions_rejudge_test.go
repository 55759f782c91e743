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

// TestRejudgePacedByTheQueue: a background rejudge enqueues no further
// than RejudgeAhead rejudge tasks ahead of the judges: with 5 allowed and
// no judge taking any, 5 of 20 are queued and the job waits (the others
// keep their verdict); as judges lease them it goes on, and it finishes
// once they took all.
func TestRejudgePacedByTheQueue(t *testing.T) {
	je := newJudgeEnv(t, func(c *Config) {
		c.SubmitPerMinute, c.SubmitBurst = 100000, 100000
		c.Judging.RejudgeAhead, c.Judging.RejudgePoll = 5, 10*time.Millisecond
	})
	ctx := context.Background()
	_ = je.q.EnsureResultsGroup(ctx)
	alice := je.student("alice")
	const n = 20
	for i := range n {
		sid := id(alice.submit(fmt.Sprintf("k%d", i), map[string]any{"problem": "a-plus-b", "language": "py3", "source": fmt.Sprintf("x%d", i)}))
		je.judge(sid, 1, protocol.VerdictAC, 3)
	}
	je.consume()
	je.user("root", store.RoleAdmin, "root-password")
	admin := je.client()
	admin.login("root", "root-password")
	r := admin.do("POST", "/api/rejudge", map[string]any{"problem": "a-plus-b"}, "X-CSRF-Token", admin.csrf)
	if r.status != http.StatusAccepted {
		t.Fatalf("rejudge a problem: %d %s", r.status, r.raw)
	}
	job, _ := r.body["job"].(string)
	progress := func() map[string]any { return admin.do("GET", "/api/rejudge/"+job, nil).body }
	queued := func() int64 {
		n, err := je.q.LenAt(ctx, protocol.PriorityRejudge)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	deadline := time.Now().Add(10 * time.Second)
	for queued() < 5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // twenty polls: no further
	if q, p := queued(), progress(); q != 5 || p["done"] != float64(5) || p["finished"] != false {
		t.Fatalf("with no judge: %d rejudge tasks queued (want 5), progress %v", q, p)
	}
	// Judges take what is queued, a few at a time: the job goes on.
	taken := 0
	for taken < n && time.Now().Before(deadline) {
		qs, err := je.q.Peek(ctx, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range qs {
			if _, err := je.q.Lease(ctx, x.Task.TaskRef, "judge-1", time.Minute); err != nil {
				t.Fatal(err)
			}
			taken++
		}
		time.Sleep(20 * time.Millisecond)
	}
	je.srv.Judging().WaitJobs()
	if p := progress(); taken != n || p["done"] != float64(n) || p["finished"] != true {
		t.Fatalf("judges took %d of %d; progress %v", taken, n, p)
	}
}

// TestRejudgeRetriedWithItsKey: a rejudge request retried with the same
// Idempotency-Key (its answer was lost: nginx's 502, no answer) rejudges
// nothing a second time and answers what the first did, "repeated"; a
// new key rejudges again; a key that failed is free for the retry; a
// malformed key is a 400 naming the header.
func TestRejudgeRetriedWithItsKey(t *testing.T) {
	je := newJudgeEnv(t, func(c *Config) {
		c.SubmitPerMinute, c.SubmitBurst = 100000, 100000
	})
	ctx := context.Background()
	_ = je.q.EnsureResultsGroup(ctx)
	alice := je.student("alice")
	var ids []int64
	for i := range 5 {
		sid := id(alice.submit(fmt.Sprintf("k%d", i), map[string]any{"problem": "a-plus-b", "language": "py3", "source": fmt.Sprintf("x%d", i)}))
		je.judge(sid, 1, protocol.VerdictAC, 3)
		ids = append(ids, sid)
	}
	je.consume()
	root := je.user("root", store.RoleAdmin, "root-password")
	admin := je.client()
	admin.login("root", "root-password")
	attempt := func(sid int64) int {
		t.Helper()
		s, err := je.st.SubmissionByID(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		return s.Attempt
	}
	post := func(body map[string]any, key string) resp {
		return admin.do("POST", "/api/rejudge", body, "X-CSRF-Token", admin.csrf, IdempotencyHeader, key)
	}

	// One submission: the retry is repeated, the attempt moved once.
	one := map[string]any{"submission_id": ids[0]}
	if r := post(one, "one-1"); r.status != http.StatusOK || r.body["queued"] != float64(1) || r.body["repeated"] != nil {
		t.Fatalf("rejudge one: %d %s", r.status, r.raw)
	}
	if r := post(one, "one-1"); r.status != http.StatusOK || r.body["queued"] != float64(1) || r.body["repeated"] != true {
		t.Fatalf("the same rejudge retried: %d %s", r.status, r.raw)
	}
	if a := attempt(ids[0]); a != 2 {
		t.Fatalf("after a rejudge and its retry: attempt %d, want 2", a)
	}
	if r := post(one, "one-2"); r.status != http.StatusOK || r.body["repeated"] != nil {
		t.Fatalf("a new rejudge click: %d %s", r.status, r.raw)
	}
	if a := attempt(ids[0]); a != 3 {
		t.Fatalf("after a second rejudge: attempt %d, want 3", a)
	}

	// A selection: the retry answers the first job; one job, one attempt.
	sel := map[string]any{"problem": "a-plus-b"}
	first := post(sel, "sel-1")
	if first.status != http.StatusAccepted || first.body["queued"] != float64(5) || first.body["repeated"] != nil {
		t.Fatalf("rejudge a problem: %d %s", first.status, first.raw)
	}
	again := post(sel, "sel-1")
	if again.status != http.StatusAccepted || again.body["job"] != first.body["job"] || again.body["queued"] != float64(5) ||
		again.body["repeated"] != true {
		t.Fatalf("the same selection retried: %d %s (first %s)", again.status, again.raw, first.raw)
	}
	je.srv.Judging().WaitJobs()
	if a := attempt(ids[1]); a != 2 {
		t.Fatalf("after a selection rejudged and retried: attempt %d, want 2", a)
	}
	if a := attempt(ids[0]); a != 4 {
		t.Fatalf("submission 0 after the selection: attempt %d, want 4", a)
	}

	// A failed rejudge frees its key: the retry is judged on its own.
	missing := map[string]any{"submission_id": ids[4] + 1000}
	for range 2 {
		wantErr(t, post(missing, "gone-1"), http.StatusNotFound, CodeNotFound, "submission_id")
	}
	if n, err := je.rdb.Exists(ctx, je.names.RejudgeRequest(root.ID, "one-1")).Result(); err != nil || n != 1 {
		t.Fatalf("the key of a rejudge done is not claimed: %d %v", n, err)
	}
	if n, err := je.rdb.Exists(ctx, je.names.RejudgeRequest(root.ID, "gone-1")).Result(); err != nil || n != 0 {
		t.Fatalf("the key of a failed rejudge is still claimed: %d %v", n, err)
	}

	// A malformed key, and the key is per user: the same key of another
	// staff member is not a retry of this one's.
	wantErr(t, post(one, "no spaces allowed"), http.StatusBadRequest, CodeValidation, IdempotencyHeader)
	je.user("root2", store.RoleAdmin, "root-password")
	admin2 := je.client()
	admin2.login("root2", "root-password")
	if r := admin2.do("POST", "/api/rejudge", one, "X-CSRF-Token", admin2.csrf, IdempotencyHeader, "one-1"); r.status != http.StatusOK || r.body["repeated"] != nil {
		t.Fatalf("another admin's request with the same key: %d %s", r.status, r.raw)
	}
}
