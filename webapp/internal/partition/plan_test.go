package partition

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// schema is the layout of migrations/0001: p0..p3 of a million ids, pmax.
var schema = []Partition{{Name: "p0", Bound: 1e6}, {Name: "p1", Bound: 2e6}, {Name: "p2", Bound: 3e6},
	{Name: "p3", Bound: 4e6}, {Name: "pmax", Max: true}}

func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		name      string
		existing  []Partition
		maxID     int64
		size      int64
		headroom  int64
		maxAdd    int
		want      string // the new partitions, fmt'd
		truncated bool
		stmt      string
	}{
		{"empty table", schema, 0, 1e6, 1e6, 16, "[]", false, ""},
		{"far from the end", schema, 2_999_999, 1e6, 1e6, 16, "[]", false, ""},
		{"within headroom", schema, 3_000_000, 1e6, 1e6, 16, "[p4<5000000]", false,
			"ALTER TABLE `t` REORGANIZE PARTITION pmax INTO (PARTITION p4 VALUES LESS THAN (5000000), PARTITION pmax VALUES LESS THAN MAXVALUE)"},
		{"ids already in pmax", schema, 5_500_000, 1e6, 1e6, 16, "[p4<5000000 p5<6000000 p6<7000000]", false, ""},
		{"small size", schema, 3_999_960, 100, 50, 16, "[p40000<4000100]", false, ""},
		{"bound exactly at need", schema, 3_999_950, 100, 50, 16, "[p40000<4000100]", false, ""},
		{"just below need", schema, 3_999_949, 100, 50, 16, "[]", false, ""},
		{"capped", schema, 9_000_000, 100, 0, 3, "[p40000<4000100 p40001<4000200 p40002<4000300]", true, ""},
		{"unaligned bounds are aligned", []Partition{{Name: "p0", Bound: 150}, {Name: "pmax", Max: true}}, 140, 100, 100,
			16, "[p1<200 p2<300]", false, ""},
		{"name taken", []Partition{{Name: "p1", Bound: 100}, {Name: "pmax", Max: true}}, 100, 100, 0, 16,
			"[p_lt_200<200]", false, ""},
		{"no catch-all", []Partition{{Name: "p0", Bound: 100}}, 90, 100, 20, 16, "[p1<200]", false,
			"ALTER TABLE `t` ADD PARTITION (PARTITION p1 VALUES LESS THAN (200))"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Plan(tc.existing, tc.maxID, tc.size, tc.headroom, tc.maxAdd)
			if err != nil {
				t.Fatal(err)
			}
			if got := short(l.Add); got != tc.want {
				t.Fatalf("Add = %s, want %s", got, tc.want)
			}
			if l.Truncated != tc.truncated {
				t.Fatalf("Truncated = %v", l.Truncated)
			}
			if tc.stmt != "" && l.Statement("t") != tc.stmt {
				t.Fatalf("Statement =\n%s\nwant\n%s", l.Statement("t"), tc.stmt)
			}
			if len(l.Add) == 0 && l.Statement("t") != "" {
				t.Fatalf("nothing to add, but Statement = %q", l.Statement("t"))
			}
			// Every id up to maxID+headroom is below a bound unless capped.
			if !tc.truncated && len(l.Add) > 0 && l.Add[len(l.Add)-1].Bound <= tc.maxID+tc.headroom {
				t.Fatalf("last new bound %d does not cover %d", l.Add[len(l.Add)-1].Bound, tc.maxID+tc.headroom)
			}
		})
	}
}

// short renders partitions as [name<bound …].
func short(ps []Partition) string {
	out := "["
	for i, p := range ps {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%s<%d", p.Name, p.Bound)
	}
	return out + "]"
}

func TestPlanRejects(t *testing.T) {
	for _, tc := range []struct {
		name     string
		existing []Partition
		maxID    int64
		size     int64
	}{
		{"no partitions", nil, 0, 100},
		{"only a catch-all", []Partition{{Name: "pmax", Max: true}}, 0, 100},
		{"catch-all not last", []Partition{{Name: "pmax", Max: true}, {Name: "p0", Bound: 10}}, 0, 100},
		{"bounds not increasing", []Partition{{Name: "p0", Bound: 10}, {Name: "p1", Bound: 10}}, 0, 100},
		{"overflow", []Partition{{Name: "p0", Bound: math.MaxInt64 - 5}}, math.MaxInt64 - 6, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Plan(tc.existing, tc.maxID, tc.size, 10, 16); !errors.Is(err, ErrLayout) {
				t.Fatalf("Plan = %v, want ErrLayout", err)
			}
		})
	}
	if _, err := Plan(schema, 0, 0, 1, 1); err == nil {
		t.Fatal("size 0 accepted")
	}
}
