package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Table is a text table: the first column left-aligned, the others
// right-aligned, columns two spaces apart, every line indented.
type Table struct {
	Indent string
	Head   []string
	Rows   [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Write prints the table.
func (t Table) Write(w io.Writer) {
	all := append([][]string{t.Head}, t.Rows...)
	var width []int
	for _, r := range all {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for n, r := range all {
		var b strings.Builder
		b.WriteString(t.Indent)
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if i == 0 {
				b.WriteString(c)
				if len(r) > 1 {
					b.WriteString(pad)
				}
			} else {
				b.WriteString(pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
		if n == 0 && len(t.Head) > 0 {
			total := 0
			for _, w := range width {
				total += w
			}
			fmt.Fprintln(w, t.Indent+strings.Repeat("-", total+2*(len(width)-1)))
		}
	}
}

// Ms prints a duration in milliseconds with three significant digits at
// most ("0.412", "12.3", "1234").
func Ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v == 0:
		return "0"
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// PerSec prints a rate: two decimals below 10, a whole number with
// thousands separators above.
func PerSec(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "-"
	}
	if r < 10 {
		return fmt.Sprintf("%.2f", r)
	}
	return Thousands(int64(math.Round(r)))
}

// Thousands prints n with commas between thousands.
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Ratio prints a ratio with two decimals, "-" when the denominator is 0.
func Ratio(num, den float64) string {
	if den == 0 || math.IsNaN(num/den) {
		return "-"
	}
	return fmt.Sprintf("%.2f", num/den)
}

// Bytes prints a byte count in KiB (one decimal) below a MiB, else MiB.
func Bytes(n float64) string {
	switch {
	case math.Abs(n) < 1024:
		return fmt.Sprintf("%.0f B", n)
	case math.Abs(n) < 1<<20:
		return fmt.Sprintf("%.1f KiB", n/1024)
	}
	return fmt.Sprintf("%.1f MiB", n/(1<<20))
}
