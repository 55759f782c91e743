package chaos

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Result is the outcome of one drill.
type Result struct {
	Name    string
	Did     []string // what the drill did, in order
	Checked []string // what it verified (each line passed unless Failures says otherwise)
	// Failures lists every check that failed; empty means PASS.
	Failures []string
	Took     time.Duration
}

// Passed reports whether every check passed.
func (r *Result) Passed() bool { return len(r.Failures) == 0 }

func (r *Result) did(format string, a ...any) { r.Did = append(r.Did, fmt.Sprintf(format, a...)) }
func (r *Result) checked(format string, a ...any) {
	r.Checked = append(r.Checked, fmt.Sprintf(format, a...))
}
func (r *Result) fail(format string, a ...any) {
	r.Failures = append(r.Failures, fmt.Sprintf(format, a...))
}

// check records a check and, when ok is false, a failure with the same
// text plus why.
func (r *Result) check(ok bool, what string, why string) {
	r.checked("%s", what)
	if !ok {
		r.fail("%s: %s", what, why)
	}
}

// Format writes one drill's report.
func (r *Result) Format(w io.Writer) {
	verdict := "PASS"
	if !r.Passed() {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "== drill %s: %s (%.1f s)\n", r.Name, verdict, r.Took.Seconds())
	for _, d := range r.Did {
		fmt.Fprintf(w, "   did:     %s\n", d)
	}
	for _, c := range r.Checked {
		fmt.Fprintf(w, "   checked: %s\n", c)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "   FAILED:  %s\n", f)
	}
}

// Summary is the closing table: one line per drill and the total.
func Summary(results []Result) string {
	var b strings.Builder
	pass := 0
	b.WriteString("== chaos summary\n")
	for _, r := range results {
		v := "FAIL"
		if r.Passed() {
			v = "PASS"
			pass++
		}
		fmt.Fprintf(&b, "   %-4s %s\n", v, r.Name)
	}
	fmt.Fprintf(&b, "   %d of %d drills passed\n", pass, len(results))
	return b.String()
}

// syncWriter serialises writes from many goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
