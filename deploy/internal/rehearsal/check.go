package rehearsal

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
)

// Check is one correctness check of the report.
type Check struct {
	What   string
	OK     bool
	Detail string
}

func (rep *Report) check(ok bool, what, detail string) {
	c := Check{What: what, OK: ok}
	if !ok {
		c.Detail = detail
	}
	rep.Checks = append(rep.Checks, c)
}

// check runs the end-of-contest checks: exactly one final verdict per
// submission (MySQL against the results stream), the planned verdicts,
// and every checked browser's board against the board rebuilt from MySQL.
func (r *run) check(ctx context.Context, rep *Report) {
	r.subsMu.Lock()
	subs := make(map[int64]submitted, len(r.subs))
	for k, v := range r.subs {
		subs[k] = v
	}
	r.subsMu.Unlock()
	rep.Submitted = len(subs)

	// MySQL: one row per idempotency key that got an id, each final.
	var rows int
	if err := r.env.DB.QueryRowContext(ctx, "SELECT COUNT(*) FROM submissions WHERE contest_id = ?", r.contestID).Scan(&rows); err != nil {
		rep.check(false, "count the contest's submissions in MySQL", err.Error())
		return
	}
	rep.check(rows == len(subs), fmt.Sprintf("%d submissions acknowledged to browsers, %d rows in MySQL (none lost, none doubled)", len(subs), rows),
		fmt.Sprintf("want %d rows, have %d", len(subs), rows))

	type dbRow struct {
		verdict string
		attempt int
	}
	db := map[int64]dbRow{}
	deadline := time.Now().Add(60 * time.Second)
	for {
		q, err := r.env.DB.QueryContext(ctx, "SELECT id, verdict, attempt FROM submissions WHERE contest_id = ?", r.contestID)
		if err != nil {
			rep.check(false, "read the contest's submissions", err.Error())
			return
		}
		pending := 0
		for q.Next() {
			var id int64
			var d dbRow
			if err := q.Scan(&id, &d.verdict, &d.attempt); err == nil {
				db[id] = d
				if !protocol.Verdict(d.verdict).Final() {
					pending++
				}
			}
		}
		q.Close()
		if pending == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	msgs, err := r.env.RDB.XRange(ctx, r.env.Names.Results(), "-", "+").Result()
	if err != nil {
		rep.check(false, "read the results stream", err.Error())
		return
	}
	type attemptKey struct {
		id      int64
		attempt int
	}
	stream := map[attemptKey][]queue.ResultEntry{}
	for _, m := range msgs {
		e, err := queue.ParseResult(m)
		if err != nil {
			rep.check(false, "parse the results stream", err.Error())
			return
		}
		stream[attemptKey{e.SubmissionID, e.Attempt}] = append(stream[attemptKey{e.SubmissionID, e.Attempt}], e)
	}
	var zero, two, wrong, notFinal, se []string
	ids := make([]int64, 0, len(subs))
	for id := range subs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		d, ok := db[id]
		if !ok {
			zero = append(zero, fmt.Sprintf("#%d not in MySQL", id))
			continue
		}
		if !protocol.Verdict(d.verdict).Final() {
			notFinal = append(notFinal, fmt.Sprintf("#%d %s", id, d.verdict))
		}
		for a := 1; a <= d.attempt; a++ {
			if n := len(stream[attemptKey{id, a}]); n > 1 {
				two = append(two, fmt.Sprintf("#%d attempt %d: %d results", id, a, n))
			}
		}
		es := stream[attemptKey{id, d.attempt}]
		if len(es) == 0 {
			zero = append(zero, fmt.Sprintf("#%d attempt %d: no result", id, d.attempt))
			continue
		}
		if string(es[0].Verdict) != d.verdict {
			wrong = append(wrong, fmt.Sprintf("#%d MySQL %s, stream %s", id, d.verdict, es[0].Verdict))
		}
		if es[0].Verdict == protocol.VerdictSE {
			se = append(se, fmt.Sprintf("#%d (%s)", id, es[0].Reason))
		} else if want := subs[id].planned; es[0].Verdict != want {
			wrong = append(wrong, fmt.Sprintf("#%d judged %s, planned %s", id, es[0].Verdict, want))
		}
	}
	rep.ZeroVerdicts, rep.TwoVerdicts = len(zero)+len(notFinal), len(two)
	rep.check(len(zero)+len(notFinal) == 0, fmt.Sprintf("every one of %d submissions has a final verdict in MySQL and its attempt's result in the stream", len(ids)),
		firstFew(append(zero, notFinal...)))
	rep.check(len(two) == 0, "no attempt has two results in the stream (judged once)", firstFew(two))
	rep.check(len(wrong) == 0, "every verdict is the one planned, in MySQL and in the stream", firstFew(wrong))
	rep.check(len(se) == 0, "no system errors", firstFew(se))

	// Every socket saw its submissions' verdicts.
	var unseen []string
	for _, id := range ids {
		if _, ok := r.verdicts.Seen(id); !ok {
			unseen = append(unseen, fmt.Sprintf("#%d", id))
		}
	}
	rep.check(len(unseen) == 0, "every submission's final verdict reached its owner's WebSocket", firstFew(unseen))

	r.checkBoards(ctx, rep)
}

// boardConverge bounds how long the check waits for every checked
// browser's board to equal the board rebuilt from MySQL.
const boardConverge = 30 * time.Second

// checkBoards compares the live board, the board rebuilt from MySQL and
// every checked browser's board.
func (r *run) checkBoards(ctx context.Context, rep *Report) {
	path := "/api/contests/" + r.contest + "/scoreboard"
	live, err := r.fetchBoard(ctx, path)
	if err != nil {
		rep.check(false, "read the scoreboard", err.Error())
		return
	}
	if err := r.env.RDB.Del(ctx, r.env.Names.Scoreboard(r.contestID)).Err(); err != nil {
		rep.check(false, "drop the board in Redis", err.Error())
		return
	}
	rebuilt, err := r.fetchBoard(ctx, path)
	if err != nil {
		rep.check(false, "read the rebuilt scoreboard", err.Error())
		return
	}
	solved := 0
	for _, rw := range rebuilt {
		solved += rw.Solved
	}
	rep.check(len(rebuilt) > 0 && solved > 0, fmt.Sprintf("the board rebuilt from MySQL has %d rows, %d problems solved", len(rebuilt), solved), "an empty board")
	rep.check(sameBoard(live, rebuilt) == "", fmt.Sprintf("the live scoreboard (%d rows) equals the one rebuilt from MySQL", len(live)),
		sameBoard(live, rebuilt))
	if !r.freezeAt.IsZero() {
		// Without it every browser rightly keeps the frozen board, and
		// the check below would only count the cells that differ.
		rep.check(r.unfrozen.Load(), "staff unfroze the board after the end", "every try of POST unfreeze failed (see the failed requests)")
	}
	r.browsersMu.Lock()
	bs := append([]*browser(nil), r.browsers...)
	r.browsersMu.Unlock()
	// Each checked browser must converge to the rebuilt board: pushes
	// still in flight after the unfreeze, and a browser reconnecting
	// after its socket dropped, get a bounded time to arrive.
	var bad []string
	checked := 0
	start := time.Now()
	for {
		bad, checked = bad[:0], 0
		for _, b := range bs {
			if !b.keep {
				continue
			}
			checked++
			if d := sameBoard(b.snapshotBoard(), rebuilt); d != "" {
				bad = append(bad, b.c.User().Username+": "+d)
			}
		}
		if len(bad) == 0 || time.Since(start) > boardConverge || ctx.Err() != nil {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	rep.BoardsChecked = checked
	rep.check(len(bad) == 0, fmt.Sprintf("the board of each of %d browsers converged to the board rebuilt from MySQL (within %s of the check; allowed %s)",
		checked, time.Since(start).Round(100*time.Millisecond), boardConverge), firstFew(bad))
	for _, b := range bs {
		if b.sample {
			rep.StaleUnseen += r.stale.unseen(b)
		}
	}
}

func (r *run) fetchBoard(ctx context.Context, path string) (map[int64]row, error) {
	var out boardDoc
	if err := r.admin.Call(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, err
	}
	if out.Frozen {
		return nil, fmt.Errorf("the board is still frozen after the unfreeze")
	}
	m := map[int64]row{}
	for _, rw := range out.Rows {
		m[rw.UserID] = rw
	}
	return m, nil
}

// sameBoard says how two boards differ in the cells that have anything in
// them ("" when they agree).
func sameBoard(a, b map[int64]row) string {
	norm := func(m map[int64]row) map[cellKey]cell {
		out := map[cellKey]cell{}
		for uid, rw := range m {
			for l, c := range rw.Problems {
				if c.Solved || c.Attempts > 0 || c.Pending > 0 {
					out[cellKey{uid, l}] = c
				}
			}
		}
		return out
	}
	na, nb := norm(a), norm(b)
	var diff []string
	for k, c := range na {
		if nb[k] != c {
			diff = append(diff, fmt.Sprintf("user %d %s: %+v vs %+v", k.user, k.label, c, nb[k]))
		}
	}
	for k, c := range nb {
		if _, ok := na[k]; !ok {
			diff = append(diff, fmt.Sprintf("user %d %s: missing vs %+v", k.user, k.label, c))
		}
	}
	sort.Strings(diff)
	if len(diff) == 0 {
		return ""
	}
	return fmt.Sprintf("%d cells differ: %s", len(diff), firstFew(diff))
}

func firstFew(s []string) string {
	if len(s) > 5 {
		return strings.Join(s[:5], "; ") + fmt.Sprintf("; … (%d in all)", len(s))
	}
	return strings.Join(s, "; ")
}
