package judging

import (
	"reflect"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestShareResults(t *testing.T) {
	msg := func(id, sub string) redis.XMessage {
		v := map[string]any{}
		if sub != "" {
			v[queue.FieldSubmissionID] = sub
		}
		return redis.XMessage{ID: id, Values: v}
	}
	ids := func(shares [][]redis.XMessage) [][]string {
		var out [][]string
		for _, sh := range shares {
			var l []string
			for _, m := range sh {
				l = append(l, m.ID)
			}
			out = append(out, l)
		}
		return out
	}
	tests := []struct {
		name string
		msgs []redis.XMessage
		n    int
		want [][]string
	}{
		{"none", nil, 4, nil},
		{"one worker keeps the order", []redis.XMessage{msg("1", "7"), msg("2", "8"), msg("3", "7")}, 1, [][]string{{"1", "2", "3"}}},
		{"a submission's results stay together in order",
			[]redis.XMessage{msg("1", "7"), msg("2", "8"), msg("3", "7"), msg("4", "10")}, 2,
			[][]string{{"2", "4"}, {"1", "3"}}},
		{"no more shares than entries", []redis.XMessage{msg("1", "5")}, 8, [][]string{{"1"}}},
		{"unreadable ids go to the first share",
			[]redis.XMessage{msg("1", "x"), msg("2", ""), msg("3", "-3"), msg("4", "3")}, 3,
			[][]string{{"1", "2", "3", "4"}}},
		{"empty shares are left out", []redis.XMessage{msg("1", "3"), msg("2", "6")}, 2, [][]string{{"2"}, {"1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(shareResults(tc.msgs, tc.n)); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("shares %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWrittenCases(t *testing.T) {
	c := func(i int, v string) store.SubmissionCase {
		return store.SubmissionCase{Index: i, Verdict: v, TimeMs: int64(i)}
	}
	tests := []struct {
		name  string
		cases []store.SubmissionCase
		want  []store.SubmissionCase
	}{
		{"none (a compile error) is not nil: nothing to read", nil, []store.SubmissionCase{}},
		{"sorted by index with the submission", []store.SubmissionCase{c(2, "WA"), c(1, "AC")},
			[]store.SubmissionCase{{SubmissionID: 9, Index: 1, Verdict: "AC", TimeMs: 1}, {SubmissionID: 9, Index: 2, Verdict: "WA", TimeMs: 2}}},
		{"a repeated index: read the row", []store.SubmissionCase{c(1, "AC"), c(1, "WA")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := store.ResultWrite{SubmissionID: 9, Cases: tc.cases}
			got := writtenCases(w)
			if !reflect.DeepEqual(got, tc.want) || (tc.want != nil && got == nil) {
				t.Fatalf("cases %#v, want %#v", got, tc.want)
			}
			if len(tc.cases) > 1 && tc.cases[0].SubmissionID != 0 {
				t.Fatal("the write's cases were changed")
			}
		})
	}
}
