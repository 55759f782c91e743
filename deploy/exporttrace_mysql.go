package main

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// mysqlExport selects what exportMySQL reads from an installation's
// database (webapp/internal/store's schema: submissions and
// submission_cases).
type mysqlExport struct {
	// Since and Until bound submissions.created_at: [Since, Until); zero
	// is open.
	Since, Until time.Time
	// Contest, if > 0, keeps only that contest's submissions.
	Contest int64
	// Judges gives the slots and speed of judges by name; a judge not in
	// it gets slots estimated from the trace (estimateSlots) and speed 1.
	Judges map[string]judgeShape
	// Compile is added to every task as its compile time: MySQL does not
	// keep one.
	Compile time.Duration
}

// judgeShape is what MySQL does not know of a judge.
type judgeShape struct {
	Slots int
	Speed float64
}

// parseJudgeShape parses "NAME=SLOTS" or "NAME=SLOTSxSPEED".
func parseJudgeShape(s string) (string, judgeShape, error) {
	name, spec, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return "", judgeShape{}, fmt.Errorf("-judge %q: want NAME=SLOTS or NAME=SLOTSxSPEED", s)
	}
	slots, speed, hasSpeed := strings.Cut(spec, "x")
	j := judgeShape{Speed: 1}
	n, err := strconv.Atoi(slots)
	if err != nil || n < 1 {
		return "", judgeShape{}, fmt.Errorf("-judge %q: slots %q: want an integer ≥ 1", s, slots)
	}
	j.Slots = n
	if hasSpeed {
		x, err := strconv.ParseFloat(speed, 64)
		if err != nil || !(x > 0) || x > 1e6 {
			return "", judgeShape{}, fmt.Errorf("-judge %q: speed %q: want a number in (0, 1e6]", s, speed)
		}
		j.Speed = x
	}
	return name, j, nil
}

// exportStats says what exportMySQL kept and left out.
type exportStats struct {
	Tasks, Unjudged, Rejudged int
	// Estimated names the judges whose slots were estimated.
	Estimated []string
}

// exportDSN returns dsn with what the export needs: times as time.Time in
// UTC, the session in UTC (the webapp writes created_at and judged_at in
// a UTC session), read-only intent and bounded waits.
func exportDSN(dsn string) (string, error) {
	c, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("-dsn: %w", err)
	}
	c.ParseTime, c.Loc = true, time.UTC
	if c.Timeout == 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Params == nil {
		c.Params = map[string]string{}
	}
	c.Params["time_zone"] = "'+00:00'"
	return c.FormatDSN(), nil
}

// exportMySQL reads a scheduling trace from an installation's MySQL: one
// task per judged submission (final verdict) created in the window, in id
// order. What each field comes from, and what MySQL does not keep:
//
//   - at_ms: submissions.created_at (the POST), from the first kept one;
//   - problem_id, language, data_hash: the submission's;
//   - priority: contest if the submission belongs to a contest, else
//     practice (judging.PriorityOf); custom runs live only in Redis and are
//     not exported;
//   - cases_ms: submission_cases.time_ms in case order — the CPU time the
//     judge measured (the hub learns speeds from wall times, which MySQL
//     does not keep), only the cases that ran (ICPC stops at the first
//     failure);
//   - compile_ms: o.Compile (MySQL keeps no compile time);
//   - work_ms: compile_ms + the cases × the speed of the judge that ran
//     them (at least 1 ms: 0 would mean "draw one" to the lab);
//   - verdict, ran_on: submissions.verdict and judge_id; verdict_ms:
//     judged_at, except for a rejudged submission (attempt > 1), whose
//     judged_at, cases and judge are the rejudge's: it is kept at its
//     first arrival, with the rejudge's run times and no verdict_ms;
//   - judges: every judge named by a kept submission or by o.Judges,
//     connected for the whole window (MySQL records no connections), with
//     o.Judges' slots and speed or, failing that, speed 1 and the most
//     tasks whose [judged_at − work, judged_at] overlap (a lower bound on
//     its slots).
//
// Submissions without a final verdict are skipped and counted.
func exportMySQL(ctx context.Context, db *sql.DB, o mysqlExport) (schedtrace.Trace, exportStats, error) {
	var st exportStats
	q := `SELECT id, problem_id, contest_id IS NOT NULL, language, verdict, attempt, COALESCE(judge_id, ''),
		COALESCE(testdata_hash, ''), created_at, judged_at FROM submissions WHERE 1 = 1`
	var args []any
	if !o.Since.IsZero() {
		q += " AND created_at >= ?"
		args = append(args, o.Since.UTC())
	}
	if !o.Until.IsZero() {
		q += " AND created_at < ?"
		args = append(args, o.Until.UTC())
	}
	if o.Contest > 0 {
		q += " AND contest_id = ?"
		args = append(args, o.Contest)
	}
	q += " ORDER BY id"
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return schedtrace.Trace{}, st, fmt.Errorf("mysql: submissions: %w", err)
	}
	type sub struct {
		task      schedtrace.Task
		created   time.Time
		judged    sql.NullTime
		rejudged  bool
		judgeName string
	}
	var subs []sub
	for rows.Next() {
		var s sub
		var contest bool
		var verdict string
		var attempt int
		if err := rows.Scan(&s.task.SubmissionID, &s.task.ProblemID, &contest, &s.task.Language, &verdict, &attempt,
			&s.judgeName, &s.task.DataHash, &s.created, &s.judged); err != nil {
			rows.Close()
			return schedtrace.Trace{}, st, fmt.Errorf("mysql: submissions: %w", err)
		}
		if !protocol.Verdict(verdict).Final() || !s.judged.Valid {
			st.Unjudged++
			continue
		}
		s.task.Verdict = verdict
		s.task.Priority = int(protocol.PriorityPractice)
		if contest {
			s.task.Priority = int(protocol.PriorityContest)
		}
		s.rejudged = attempt > 1
		subs = append(subs, s)
	}
	if err := cmp.Or(rows.Err(), rows.Close()); err != nil {
		return schedtrace.Trace{}, st, fmt.Errorf("mysql: submissions: %w", err)
	}
	if len(subs) == 0 {
		return schedtrace.Trace{}, st, fmt.Errorf("mysql: no judged submissions in the window (%d without a final verdict)", st.Unjudged)
	}

	// The cases, by id range (the table's primary key), in batches.
	byID := make(map[int64]*sub, len(subs))
	for i := range subs {
		byID[subs[i].task.SubmissionID] = &subs[i]
	}
	const batch = 2000
	for i := 0; i < len(subs); i += batch {
		lo, hi := subs[i].task.SubmissionID, subs[min(i+batch, len(subs))-1].task.SubmissionID
		rows, err := db.QueryContext(ctx, `SELECT submission_id, time_ms FROM submission_cases
			WHERE submission_id BETWEEN ? AND ? ORDER BY submission_id, case_index`, lo, hi)
		if err != nil {
			return schedtrace.Trace{}, st, fmt.Errorf("mysql: cases: %w", err)
		}
		for rows.Next() {
			var id, ms int64
			if err := rows.Scan(&id, &ms); err != nil {
				rows.Close()
				return schedtrace.Trace{}, st, fmt.Errorf("mysql: cases: %w", err)
			}
			if s := byID[id]; s != nil {
				s.task.CasesMs = append(s.task.CasesMs, ms)
			}
		}
		if err := cmp.Or(rows.Err(), rows.Close()); err != nil {
			return schedtrace.Trace{}, st, fmt.Errorf("mysql: cases: %w", err)
		}
	}

	// Judges: the named ones first, then the others in order of first use.
	shape := map[string]judgeShape{}
	var names []string
	for name, j := range o.Judges {
		shape[name] = j
		names = append(names, name)
	}
	slices.Sort(names)
	for _, s := range subs {
		if _, ok := shape[s.judgeName]; !ok && s.judgeName != "" {
			shape[s.judgeName] = judgeShape{Speed: 1}
			names = append(names, s.judgeName)
		}
	}
	t0 := subs[0].created
	for _, s := range subs {
		if s.created.Before(t0) {
			t0 = s.created
		}
	}
	ms := func(t time.Time) int64 { return max(0, t.Sub(t0).Milliseconds()) }
	compile := o.Compile.Milliseconds()
	busy := map[string][][2]int64{}
	tr := schedtrace.Trace{Start: t0}
	for _, s := range subs {
		k := s.task
		k.AtMs, k.CompileMs, k.RanOn = ms(s.created), compile, s.judgeName
		speed := 1.0
		if k.RanOn != "" {
			speed = shape[k.RanOn].Speed
		}
		var run int64
		for _, c := range k.CasesMs {
			run += c
		}
		k.WorkMs = max(1, compile+int64(math.Round(float64(run)*speed)))
		k.CompileMs = min(k.CompileMs, k.WorkMs)
		if s.rejudged {
			st.Rejudged++
		} else {
			k.VerdictMs = max(k.AtMs, ms(s.judged.Time))
		}
		if k.RanOn != "" {
			end := ms(s.judged.Time)
			busy[k.RanOn] = append(busy[k.RanOn], [2]int64{end - (compile + run), end})
		}
		tr.Tasks = append(tr.Tasks, k)
	}
	for _, name := range names {
		j := shape[name]
		if j.Slots == 0 {
			j.Slots = estimateSlots(busy[name])
			st.Estimated = append(st.Estimated, name)
		}
		tr.Judges = append(tr.Judges, schedtrace.Judge{ID: name, Slots: j.Slots, Speed: j.Speed})
	}
	if len(tr.Judges) == 0 {
		return schedtrace.Trace{}, st, fmt.Errorf("mysql: no judge is named by the submissions: give one with -judge NAME=SLOTS")
	}
	st.Tasks = len(tr.Tasks)
	if err := tr.Validate(); err != nil {
		return schedtrace.Trace{}, st, fmt.Errorf("mysql: %w", err)
	}
	return tr, st, nil
}

// estimateSlots is the most of the intervals [start, end) that overlap at
// once (at least 1): as many tasks ran at the same time on the judge, so
// it had at least that many slots. The intervals use the recorded CPU
// times, shorter than the tasks' time on the judge, so it can only
// underestimate.
func estimateSlots(spans [][2]int64) int {
	type edge struct {
		at    int64
		delta int
	}
	var es []edge
	for _, s := range spans {
		if s[1] > s[0] {
			es = append(es, edge{s[0], 1}, edge{s[1], -1})
		}
	}
	slices.SortFunc(es, func(a, b edge) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta)) })
	most, n := 1, 0
	for _, e := range es {
		n += e.delta
		most = max(most, n)
	}
	return most
}
