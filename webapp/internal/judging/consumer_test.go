package judging

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func msg(id, sub string) redis.XMessage {
	v := map[string]any{}
	if sub != "" {
		v[queue.FieldSubmissionID] = sub
	}
	return redis.XMessage{ID: id, Values: v}
}

func TestGroupResults(t *testing.T) {
	ids := func(groups [][]redis.XMessage) [][]string {
		var out [][]string
		for _, g := range groups {
			var l []string
			for _, m := range g {
				l = append(l, m.ID)
			}
			out = append(out, l)
		}
		return out
	}
	tests := []struct {
		name string
		msgs []redis.XMessage
		want [][]string
	}{
		{"none", nil, nil},
		{"a submission's results stay together in order, groups by first entry",
			[]redis.XMessage{msg("1", "7"), msg("2", "8"), msg("3", "7"), msg("4", "10"), msg("5", "8")},
			[][]string{{"1", "3"}, {"2", "5"}, {"4"}}},
		{"ids equal modulo anything still apart", []redis.XMessage{msg("1", "3"), msg("2", "6"), msg("3", "9")},
			[][]string{{"1"}, {"2"}, {"3"}}},
		{"unreadable ids together",
			[]redis.XMessage{msg("1", "x"), msg("2", "4"), msg("3", ""), msg("4", "-3")},
			[][]string{{"1", "3", "4"}, {"2"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(groupResults(tc.msgs)); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("groups %v, want %v", got, tc.want)
			}
		})
	}
}

// Every worker is busy while groups are left: submissions whose ids share
// a remainder (fixed shares by id put these 8 on one worker of 4) are
// written 4 at a time. Each write waits until 4 run at once, or gives up
// after 10 s and fails.
func TestRunGroupsKeepsEveryWorkerBusy(t *testing.T) {
	var groups [][]redis.XMessage
	for i := range 8 {
		id := strconv.Itoa(4 * (i + 1))
		groups = append(groups, []redis.XMessage{msg(id+"-a", id), msg(id+"-b", id)})
	}
	const workers = 4
	var mu sync.Mutex
	running, peak := 0, 0
	all := make(chan struct{})
	order := map[string][]string{}
	ids, err := runGroups(groups, workers, func(m redis.XMessage) error {
		mu.Lock()
		running++
		peak = max(peak, running)
		if running == workers && peak == workers {
			select {
			case <-all:
			default:
				close(all)
			}
		}
		sub := m.Values[queue.FieldSubmissionID].(string)
		order[sub] = append(order[sub], m.ID)
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		select {
		case <-all:
			return nil
		case <-time.After(10 * time.Second):
			return fmt.Errorf("%s: never %d writes at once", m.ID, workers)
		}
	})
	if err != nil || len(ids) != 16 {
		t.Fatalf("wrote %d of 16: %v", len(ids), err)
	}
	for sub, got := range order {
		if want := []string{sub + "-a", sub + "-b"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("submission %s written in the order %v, want %v", sub, got, want)
		}
	}
}

// A worker stops at its first failure: that submission's later entries
// are not written (they stay pending), the other workers go on.
func TestRunGroupsStopsAWorkerAtItsFailure(t *testing.T) {
	groups := groupResults([]redis.XMessage{msg("1", "5"), msg("2", "5"), msg("3", "6"), msg("4", "7")})
	ids, err := runGroups(groups, 3, func(m redis.XMessage) error {
		if m.ID == "1" {
			return errors.New("mysql is down")
		}
		return nil
	})
	slices.Sort(ids)
	if err == nil || !reflect.DeepEqual(ids, []string{"3", "4"}) {
		t.Fatalf("written %v, error %v; want [3 4] and the failure", ids, err)
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
