package rehearsal

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
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

// checkRows compares the contest's rows in MySQL, with their idempotency
// keys, with what the browsers sent and were answered; unacked counts the
// rows whose POST's answer never reached the browser.
func (r *run) checkRows(ctx context.Context, acked map[int64]submitted) (ok bool, detail string, unacked int, err error) {
	q, err := r.env.DB.QueryContext(ctx, `SELECT s.id, COALESCE(k.idem_key, '') FROM submissions s
		LEFT JOIN submission_keys k ON k.submission_id = s.id WHERE s.contest_id = ?`, r.contestID)
	if err != nil {
		return false, "", 0, err
	}
	defer q.Close()
	keyOf := map[int64]string{}
	for q.Next() {
		var id int64
		var key string
		if err := q.Scan(&id, &key); err != nil {
			return false, "", 0, err
		}
		keyOf[id] = key
	}
	if err := q.Err(); err != nil {
		return false, "", 0, err
	}
	r.subsMu.Lock()
	sent := len(r.keysSent)
	var phantom, keyless, noAck []string
	for id, key := range keyOf {
		_, isAcked := acked[id]
		_, isSent := r.keysSent[key]
		switch {
		case key == "":
			keyless = append(keyless, fmt.Sprintf("#%d", id))
		case !isSent:
			phantom = append(phantom, fmt.Sprintf("#%d", id))
		case !isAcked:
			noAck = append(noAck, fmt.Sprintf("#%d", id))
		}
	}
	r.subsMu.Unlock()
	var missing []string
	for id := range acked {
		if _, ok := keyOf[id]; !ok {
			missing = append(missing, fmt.Sprintf("#%d", id))
		}
	}
	var bad []string
	if len(missing) > 0 {
		bad = append(bad, fmt.Sprintf("acknowledged but not in MySQL: %s", firstFew(missing)))
	}
	if len(phantom) > 0 {
		bad = append(bad, fmt.Sprintf("rows under a key no browser sent: %s", firstFew(phantom)))
	}
	if len(keyless) > 0 {
		bad = append(bad, fmt.Sprintf("rows without an idempotency key: %s", firstFew(keyless)))
	}
	if n := len(keyOf) - len(acked) - len(noAck); len(bad) == 0 && n != 0 {
		bad = append(bad, fmt.Sprintf("%d rows, %d acknowledged and %d unacknowledged of %d keys sent", len(keyOf), len(acked), len(noAck), sent))
	}
	return len(bad) == 0, strings.Join(bad, "; "), len(noAck), nil
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

	// MySQL: one row per idempotency key, each acknowledged id among
	// them. A row the browser never learned the id of (its POST timed
	// out and it gave up, or the contest ended before a retry) is not a
	// double; a row under a key nobody sent, or under none, is.
	ok, detail, unacked, err := r.checkRows(ctx, subs)
	if err != nil {
		rep.check(false, "read the contest's submissions and their idempotency keys in MySQL", err.Error())
		return
	}
	rep.check(ok, fmt.Sprintf("%d submissions acknowledged to browsers, each one row in MySQL under its idempotency key (none lost, none doubled)", len(subs)), detail)
	rep.Unacked = unacked
	if n := unacked; n > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d submissions were created whose POST's answer never reached the browser (it timed out and the browser gave up, or the contest ended before its retry): one row each, under the key the browser sent; the submissions page lists them.", n))
	}

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
		rep.PendingAtCheck, rep.WrittenAfterEnd = pending, time.Since(r.end)
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
			msg := fmt.Sprintf("#%d", id)
			if len(unseen) < 5 {
				msg += r.ownerSocket(id)
			}
			unseen = append(unseen, msg)
		}
	}
	rep.check(len(unseen) == 0, "every submission's final verdict reached its owner's WebSocket", firstFew(unseen))

	r.checkQuestions(ctx, rep)
	r.checkBoards(ctx, rep)
}

// checkQuestions: every question a browser had acknowledged is one row in
// MySQL under the key it sent, and no row is under a key nobody sent or
// under none (a retried post doubled); a question whose every try failed
// may be there once or not at all.
func (r *run) checkQuestions(ctx context.Context, rep *Report) {
	r.subsMu.Lock()
	sent := maps.Clone(r.questions)
	r.subsMu.Unlock()
	if len(sent) == 0 {
		return
	}
	q, err := r.env.DB.QueryContext(ctx, `SELECT COALESCE(idem_key, ''), COUNT(*) FROM clarifications
		WHERE contest_id = ? AND question IS NOT NULL GROUP BY idem_key`, r.contestID)
	if err != nil {
		rep.check(false, "read the contest's questions in MySQL", err.Error())
		return
	}
	defer q.Close()
	rows := map[string]int{}
	for q.Next() {
		var key string
		var n int
		if err := q.Scan(&key, &n); err != nil {
			rep.check(false, "read the contest's questions in MySQL", err.Error())
			return
		}
		rows[key] = n
	}
	var bad []string
	acked := 0
	for key, ok := range sent {
		if ok {
			acked++
			if rows[key] != 1 {
				bad = append(bad, fmt.Sprintf("key %s acknowledged, %d rows", key, rows[key]))
			}
		}
	}
	for key, n := range rows {
		if _, ok := sent[key]; !ok || n != 1 {
			bad = append(bad, fmt.Sprintf("%d rows under key %q, which a browser sent: %v", n, key, ok))
		}
	}
	sort.Strings(bad)
	rep.check(len(bad) == 0, fmt.Sprintf("%d questions acknowledged to browsers, each one row in MySQL under its idempotency key (none lost, none doubled)", acked), firstFew(bad))
}

// ownerSocket says, for a verdict that never reached its owner's socket,
// the state of the owner's browser's socket.
func (r *run) ownerSocket(id int64) string {
	r.subsMu.Lock()
	s, ok := r.subs[id]
	r.subsMu.Unlock()
	if !ok {
		return ""
	}
	last := "never seen on it"
	if f, ok := r.verdicts.Last(id); ok {
		last = fmt.Sprintf("last seen on it %s at contest time %s", f.Verdict, r.contestTime(f.At))
	}
	r.browsersMu.Lock()
	defer r.browsersMu.Unlock()
	for _, b := range r.browsers {
		if b.c.User().ID == s.user {
			return fmt.Sprintf(" (acknowledged at contest time %s, %s; the owner's %s)", r.contestTime(s.acked), last, b.socketState())
		}
	}
	return " (the owner has no browser)"
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
	if err := r.env.RDB.Del(ctx, r.env.Names.Scoreboard(r.contestID), r.env.Names.ScoreboardViews(r.contestID), r.env.Names.ScoreboardChanges(r.contestID)).Err(); err != nil {
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
				bad = append(bad, b.c.User().Username+" ("+b.socketState()+"): "+d)
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
	// As the admin's browser reads it: a busy or unavailable answer with
	// Retry-After is asked again (a board rebuilt from MySQL after a loss
	// may take longer than one request's deadline; it goes on meanwhile).
	var out boardDoc
	for try := 0; ; try++ {
		a, raw := r.admin.Request(ctx, http.MethodGet, path, nil, nil)
		if a.Status >= 200 && a.Status < 300 {
			if err := json.Unmarshal(raw, &out); err != nil {
				return nil, fmt.Errorf("GET %s: %w", path, err)
			}
			break
		}
		if !a.Retryable() || try >= 8 || ctx.Err() != nil {
			return nil, fmt.Errorf("GET %s: %d %s: %s", path, a.Status, a.Code, trim(a.Message, 120))
		}
		sleepFor(ctx, retryDelay(a, try))
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
