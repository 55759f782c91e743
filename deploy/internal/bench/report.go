package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// pct prints a fraction as a percentage.
func pct(f float64) string { return fmt.Sprintf("%.0f %%", 100*f) }

func lastList(ds []time.Duration) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = Ms(d)
		if d == 0 {
			s[i] = "-"
		}
	}
	return strings.Join(s, " / ")
}

// WriteE2E prints item 2.
func WriteE2E(w io.Writer, r E2EResult) {
	l := r.Limit
	fmt.Fprintf(w, "   physical limit (bare, same run): g++ %s: %.2f s CPU (wall %.2f s, median of the compiles)\n",
		strings.Join(CompileCommand[1:], " "), l.Compile.Seconds(), l.CompileWall.Seconds())
	fmt.Fprintf(w, "     + the binary on the %d cases: %s ms CPU = %.3f s CPU per submission; %d cores → %s submissions/s\n",
		l.Cases, Ms(l.Run), l.PerSubmission().Seconds(), l.Cores, PerSec(l.Rate()))
	fmt.Fprintf(w, "   capacity (closed loop, %d in flight from %d users): %s submissions/s (%d verdicts counted) = %s of the physical limit\n",
		r.InFlight, r.Users, PerSec(r.Capacity), r.CapacityN, Ratio(r.Capacity, l.Rate()))
	fmt.Fprintf(w, "     submit → verdict in the closed loop (queueing included): %s\n", r.CapLatency)
	t := Table{Indent: "   ", Head: []string{"phase", "offered/s", "sent", "verdicts", "done/s", "of limit", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors", "not AC"}}
	for _, p := range r.Phases {
		t.Add(pct(p.Fraction), PerSec(p.Offered), fmt.Sprint(p.Submitted), fmt.Sprint(p.Completed), PerSec(p.Rate),
			Ratio(p.Rate, l.Rate()), Ms(p.Latency.P50), Ms(p.Latency.P90), Ms(p.Latency.P99), Ms(p.Latency.Max),
			fmt.Sprint(p.Latency.Errors), fmt.Sprint(p.Wrong))
	}
	t.Write(w)
	fmt.Fprintln(w, "   (latency: the POST's due time → the final verdict on the owner's WebSocket; done/s: verdicts per second from the first to the last of the phase)")
	fmt.Fprintf(w, "   POSTs retried with their idempotency key (nginx 429, 502–504): %d\n", r.Retried)
}

// WritePush prints item 3.
func WritePush(w io.Writer, r PushResult) {
	fmt.Fprintf(w, "   via %s; the hub's RLIMIT_NOFILE %d\n", r.Via, r.HubNoFile)
	t := Table{Indent: "   ", Head: []string{"sockets", "connect s", "failed", "hub RSS", "hub/conn", "nginx/conn", "client/conn", "p50 ms", "p90 ms", "p99 ms", "last ms (each result)", "missed", "dropped"}}
	for _, lv := range r.Levels {
		t.Add(Thousands(int64(lv.Conns)), fmt.Sprintf("%.1f", lv.ConnectTime.Seconds()), fmt.Sprint(lv.ConnectFails),
			Bytes(float64(lv.HubRSS)), Bytes(lv.HubPerConn), Bytes(lv.NginxPerConn), Bytes(lv.ClientPerConn),
			Ms(lv.Latency.P50), Ms(lv.Latency.P90), Ms(lv.Latency.P99), lastList(lv.Last), fmt.Sprint(lv.Missed), fmt.Sprint(lv.Dropped))
	}
	t.Write(w)
	fmt.Fprintln(w, "   (latency: the result's entry in the results stream → the first scoreboard push showing it, on every socket; per conn: RSS growth / sockets)")
}

// WriteWeb prints item 4.
func WriteWeb(w io.Writer, r WebResult) {
	t := Table{Indent: "   ", Head: []string{"target", "via", "bytes", "max req/s", "closed p99 ms", "open p50 ms", "open p99 ms", "open max ms", "errors"}}
	for _, x := range r.Targets {
		t.Add(x.Name, x.Via, Thousands(int64(x.Bytes)), PerSec(x.Max), Ms(x.Closed.P99),
			Ms(x.Open.P50), Ms(x.Open.P99), Ms(x.Open.Max), fmt.Sprint(x.Closed.Errors+x.Open.Errors))
	}
	t.Write(w)
	fmt.Fprintf(w, "   (max: closed loop, %d workers; open: %s req/s for every target, latency from the due time; the targets take turns in %d rounds)\n",
		r.Workers, PerSec(r.OpenRate), r.Rounds)
	for _, name := range []string{"problem list", "submission page"} {
		ka, ok1 := r.Find(name, "keepalive")
		no, ok2 := r.Find(name, "no keepalive")
		st, ok3 := r.Find(name, "static file")
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		fmt.Fprintf(w, "   %s: max keepalive/no keepalive %s, keepalive/static %s; open p99 keepalive/no keepalive %s\n",
			name, Ratio(ka.Max, no.Max), Ratio(ka.Max, st.Max), Ratio(float64(ka.Open.P99), float64(no.Open.P99)))
	}
}
