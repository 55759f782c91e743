package partition

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrLayout reports a table whose partitions Plan cannot extend.
var ErrLayout = errors.New("partition: unsupported partition layout")

// Partition is one partition of a RANGE-partitioned table: it holds the
// values below Bound (and at or above the previous partition's bound).
type Partition struct {
	Name string
	// Bound is the exclusive upper bound (VALUES LESS THAN); meaningless
	// when Max is true.
	Bound int64
	// Max marks the catch-all partition, VALUES LESS THAN MAXVALUE.
	Max bool
}

// String renders the partition as in a PARTITION BY RANGE clause.
func (p Partition) String() string {
	if p.Max {
		return "PARTITION " + p.Name + " VALUES LESS THAN MAXVALUE"
	}
	return "PARTITION " + p.Name + " VALUES LESS THAN (" + strconv.FormatInt(p.Bound, 10) + ")"
}

// Layout is what Plan decided for one table.
type Layout struct {
	// Last is the bound of the last bounded partition before the change.
	Last int64
	// CatchAll is the name of the MAXVALUE partition, "" when there is
	// none.
	CatchAll string
	// Add are the new partitions in order.
	Add []Partition
	// Truncated: more partitions were needed than maxAdd allowed; the next
	// run adds more.
	Truncated bool
}

// Plan decides which partitions to add to a table with the partitions
// existing (in ordinal order) so that every id up to maxID+headroom falls
// in a bounded partition. New bounds are multiples of size; the partition
// below bound b is named p<b/size-1> (the schema's own p0, p1, … follow
// the same rule), or p_lt_<b> if that name is taken. At most maxAdd
// partitions are added (Truncated says more were needed).
func Plan(existing []Partition, maxID, size, headroom int64, maxAdd int) (Layout, error) {
	if size <= 0 || headroom < 0 || maxAdd <= 0 {
		return Layout{}, fmt.Errorf("partition: plan: size %d, headroom %d, maxAdd %d", size, headroom, maxAdd)
	}
	var l Layout
	names := map[string]bool{}
	bounded := 0
	for i, p := range existing {
		names[strings.ToLower(p.Name)] = true
		if p.Max {
			if i != len(existing)-1 {
				return Layout{}, fmt.Errorf("%w: MAXVALUE partition %s is not the last", ErrLayout, p.Name)
			}
			l.CatchAll = p.Name
			continue
		}
		if bounded > 0 && p.Bound <= l.Last {
			return Layout{}, fmt.Errorf("%w: bounds not increasing at %s", ErrLayout, p.Name)
		}
		l.Last = p.Bound
		bounded++
	}
	if bounded == 0 {
		return Layout{}, fmt.Errorf("%w: no bounded partition", ErrLayout)
	}
	need := maxID + headroom
	if need < maxID { // overflow: ids are near the end of BIGINT
		return Layout{}, fmt.Errorf("%w: max id %d plus headroom overflows", ErrLayout, maxID)
	}
	last := l.Last
	for last <= need {
		if len(l.Add) == maxAdd {
			l.Truncated = true
			break
		}
		next := (last/size + 1) * size
		if next <= last { // overflow
			return Layout{}, fmt.Errorf("%w: next bound after %d overflows", ErrLayout, last)
		}
		name := "p" + strconv.FormatInt(next/size-1, 10)
		if names[name] {
			name = "p_lt_" + strconv.FormatInt(next, 10)
		}
		if names[name] {
			return Layout{}, fmt.Errorf("%w: partition name %s is taken", ErrLayout, name)
		}
		names[name] = true
		l.Add = append(l.Add, Partition{Name: name, Bound: next})
		last = next
	}
	return l, nil
}

// Statement is the ALTER TABLE that applies l to table, "" when l adds
// nothing. With a catch-all partition it is split (REORGANIZE PARTITION),
// moving any rows it holds below the new bounds; without one the
// partitions are appended (ADD PARTITION).
func (l Layout) Statement(table string) string {
	if len(l.Add) == 0 {
		return ""
	}
	parts := make([]string, 0, len(l.Add)+1)
	for _, p := range l.Add {
		parts = append(parts, p.String())
	}
	if l.CatchAll == "" {
		return "ALTER TABLE " + quoteIdent(table) + " ADD PARTITION (" + strings.Join(parts, ", ") + ")"
	}
	parts = append(parts, Partition{Name: l.CatchAll, Max: true}.String())
	return "ALTER TABLE " + quoteIdent(table) + " REORGANIZE PARTITION " + l.CatchAll + " INTO (" + strings.Join(parts, ", ") + ")"
}

// validIdent accepts the identifiers this package puts in SQL: letters,
// digits and '_', not starting with a digit, at most 64 bytes.
func validIdent(s string) bool {
	if s == "" || len(s) > 64 || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func quoteIdent(s string) string { return "`" + s + "`" }
