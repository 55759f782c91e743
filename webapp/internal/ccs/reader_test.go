package ccs

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestReaderSendsEachChangeOnce: a connection's mapping of facts to
// events sends every object once however often its fact was appended (a
// result redelivered after a web node crash), deletes a judgement
// announced pending whose attempt the hub superseded (a lease that
// expired while the hub was down), and, resumed, rebuilds what it sent up
// to the token so that nothing before it comes again.
func TestReaderSendsEachChangeOnce(t *testing.T) {
	now := time.Now()
	c := &store.Contest{ID: 1, Slug: "c", StartAt: now.Add(-time.Hour), EndAt: now.Add(time.Hour), PenaltyMinutes: 20}
	at := now.Add(-time.Minute).UnixMilli()
	sub := func(s int64, attempt int) Fact {
		return Fact{Kind: FactSubmission, SubmissionID: s, Attempt: attempt, UserID: 2, Username: "al", ProblemID: 3,
			Language: "py3", At: at, Event: now.UnixMilli()}
	}
	judged := func(s int64, attempt int, v string) Fact {
		f := sub(s, attempt)
		f.Kind, f.Verdict, f.JudgedAt, f.Cases = FactJudgement, v, now.UnixMilli(), []Case{{1, v, 10}}
		return f
	}
	team := Fact{Kind: FactObjects, Objects: []FactObject{{Type: TypeTeams, ID: "t1", Data: json.RawMessage(`{"id":"t1"}`)}}}
	teamSub := sub(9, 1)
	teamSub.Team, teamSub.TeamName = "t1", "Team One"
	// ev renders events as "type id" ("type id -" for a delete; "… pending"
	// for a judgement without an outcome).
	ev := func(evs []Event) string {
		var out []string
		for _, e := range evs {
			s := e.Type
			if e.ID != nil {
				s += " " + *e.ID
			}
			if e.Data == nil {
				s += " -"
			} else if j, ok := e.Data.(Judgement); ok && j.EndTime == nil {
				s += " pending"
			}
			out = append(out, s)
		}
		return strings.Join(out, ", ")
	}
	for _, tc := range []struct {
		name   string
		before []Fact // facts up to the token (Resume); nil: none
		facts  []Fact
		want   []string // the events of each fact
	}{
		{name: "a submission judged", facts: []Fact{sub(5, 1), judged(5, 1, "WA")},
			want: []string{"teams 2, submissions 5, judgements 5-1 pending", "runs 5-1-1, judgements 5-1"}},
		{name: "a fact appended twice", facts: []Fact{sub(5, 1), sub(5, 1), judged(5, 1, "WA"), judged(5, 1, "WA"), sub(5, 1)},
			want: []string{"teams 2, submissions 5, judgements 5-1 pending", "", "runs 5-1-1, judgements 5-1", "", ""}},
		{name: "a jury override of the same attempt", facts: []Fact{judged(5, 1, "WA"), judged(5, 1, "AC")},
			want: []string{"teams 2, submissions 5, runs 5-1-1, judgements 5-1", "runs 5-1-1, judgements 5-1"}},
		{name: "the hub requeued the attempt", facts: []Fact{sub(5, 1), judged(5, 3, "AC")},
			want: []string{"teams 2, submissions 5, judgements 5-1 pending", "judgements 5-1 -, runs 5-3-1, judgements 5-3"}},
		{name: "a rejudge keeps the judgement before", facts: []Fact{judged(5, 1, "WA"), sub(5, 2), judged(5, 2, "AC")},
			want: []string{"teams 2, submissions 5, runs 5-1-1, judgements 5-1", "judgements 5-2 pending", "runs 5-2-1, judgements 5-2"}},
		{name: "resumed: nothing before the token again", before: []Fact{sub(5, 1), sub(6, 1)},
			facts: []Fact{judged(5, 1, "AC"), sub(6, 1), judged(6, 2, "WA")},
			want:  []string{"runs 5-1-1, judgements 5-1", "", "judgements 6-1 -, runs 6-2-1, judgements 6-2"}},
		{name: "resumed after the outcome", before: []Fact{sub(5, 1), judged(5, 1, "AC")},
			facts: []Fact{judged(5, 1, "AC"), sub(5, 1)}, want: []string{"", ""}},
		{name: "an imported team is not replaced by a submission's", facts: []Fact{team, teamSub},
			want: []string{"teams t1", "submissions 9, judgements 9-1 pending"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(false)
			var es []Entry
			for i, f := range tc.before {
				es = append(es, Entry{ID: fmt.Sprintf("%d-%d", at, i), Fact: f})
			}
			r.Resume(c, es)
			for i, f := range tc.facts {
				if got := ev(r.Events(c, f, now)); got != tc.want[i] {
					t.Errorf("fact %d (%s %d-%d): %q, want %q", i, f.Kind, f.SubmissionID, f.Attempt, got, tc.want[i])
				}
			}
		})
	}
}
