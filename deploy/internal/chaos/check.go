package chaos

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
)

// waitFinal polls MySQL until every id has a final verdict or within
// passes; it returns the verdicts it saw.
func (e *Env) waitFinal(ctx context.Context, ids []int64, within time.Duration) map[int64]string {
	got := map[int64]string{}
	deadline := time.Now().Add(within)
	for {
		pending := 0
		for _, id := range ids {
			if v := got[id]; v != "" && protocol.Verdict(v).Final() {
				continue
			}
			var v string
			if err := e.DB.QueryRowContext(ctx, "SELECT verdict FROM submissions WHERE id = ?", id).Scan(&v); err == nil {
				got[id] = v
			}
			if !protocol.Verdict(got[id]).Final() {
				pending++
			}
		}
		if pending == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return got
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// results reads the whole results stream, grouped by submission.
func (e *Env) results(ctx context.Context) (map[int64][]queue.ResultEntry, error) {
	msgs, err := e.RDB.XRange(ctx, e.Names.Results(), "-", "+").Result()
	if err != nil {
		return nil, fmt.Errorf("chaos: read results stream: %w", err)
	}
	out := map[int64][]queue.ResultEntry{}
	for _, m := range msgs {
		r, err := queue.ParseResult(m)
		if err != nil {
			return nil, err
		}
		out[r.SubmissionID] = append(out[r.SubmissionID], r)
	}
	return out, nil
}

// verifyOnce is the check every drill ends with. marker is a string only
// this drill's sources contain; want maps each submission id the clients
// got to its expected verdict; keys is how many distinct idempotency keys
// the clients used (= submissions that must exist).
func (e *Env) verifyOnce(ctx context.Context, r *Result, marker string, want map[int64]string, keys int, within time.Duration) map[int64]queue.ResultEntry {
	var rows int
	if err := e.DB.QueryRowContext(ctx, "SELECT COUNT(*) FROM submissions WHERE source LIKE ?", "%"+marker+"%").Scan(&rows); err != nil {
		r.fail("count submissions: %v", err)
	}
	r.check(rows == keys && len(want) == keys,
		fmt.Sprintf("%d idempotency keys -> %d submission rows in MySQL, %d ids returned to clients (none lost, none duplicated)", keys, rows, len(want)),
		fmt.Sprintf("want %d of each", keys))
	var orphans int
	_ = e.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM submissions s LEFT JOIN submission_keys k ON k.submission_id = s.id
		WHERE k.submission_id IS NULL AND s.source LIKE ?`, "%"+marker+"%").Scan(&orphans)
	r.check(orphans == 0, "every submission row has its idempotency key row (nothing half-written)", fmt.Sprintf("%d rows without a key", orphans))

	ids := make([]int64, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	got := e.waitFinal(ctx, ids, within)
	var wrong []string
	for _, id := range ids {
		if got[id] != want[id] {
			wrong = append(wrong, fmt.Sprintf("#%d %q (want %s)", id, got[id], want[id]))
		}
	}
	r.check(len(wrong) == 0, fmt.Sprintf("all %d submissions reached their expected final verdict in MySQL within %v", len(ids), within), strings.Join(wrong, ", "))

	res, err := e.results(ctx)
	if err != nil {
		r.fail("%v", err)
		return nil
	}
	final := map[int64]queue.ResultEntry{}
	var multi []string
	for _, id := range ids {
		if n := len(res[id]); n != 1 {
			multi = append(multi, fmt.Sprintf("#%d has %d", id, n))
			continue
		}
		final[id] = res[id][0]
	}
	r.check(len(multi) == 0, "exactly one final result per submission in the results stream (judged once)", strings.Join(multi, ", "))

	var badCases []string
	for _, id := range ids {
		if want[id] != "AC" {
			continue
		}
		var n, ac int
		_ = e.DB.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(SUM(verdict = 'AC'), 0) FROM submission_cases WHERE submission_id = ?", id).Scan(&n, &ac)
		if n != caseCount || ac != n {
			badCases = append(badCases, fmt.Sprintf("#%d: %d cases, %d AC", id, n, ac))
		}
	}
	r.check(len(badCases) == 0, fmt.Sprintf("every accepted submission has exactly its %d case rows, all AC", caseCount), strings.Join(badCases, ", "))
	return final
}
