package obs

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// HubDroppedClients is the hub's counter of the browser sockets it closed
// itself, by reason (slow_consumer: its send queue was full; write_failed:
// a write failed or ran out its timeout). The contest rehearsal reports
// it beside the sockets its browsers found reset or cut.
const HubDroppedClients = "verdict_hub_dropped_clients_total"

// HubDispatchPassSeconds is the hub's histogram of dispatch pass latencies
// (from a pass's start to its last task handed to a judge's socket, passes
// that placed tasks). The contest rehearsal reads its mean from the hub's
// /metrics for the scheduling simulator's replay.
const HubDispatchPassSeconds = "verdict_hub_dispatch_pass_seconds"

// HubDispatchIdlePassSeconds is the hub's histogram of its dispatch
// passes that placed nothing (an empty queue, no judge ready, no free slot
// for the head of the queue), from their start to their end: their Peek
// holds the dispatcher as a placing pass does. The contest rehearsal puts
// it in its trace's windows; the replay holds its dispatcher that long
// for a pass that places nothing.
const HubDispatchIdlePassSeconds = "verdict_hub_dispatch_idle_pass_seconds"

// HubDispatchWakeSeconds is the hub's histogram of how long its
// dispatcher, woken while idle (a queue change, a freed slot), took to
// start the pass: its wait for a core. The scheduling simulator starts
// that pass at once; the contest rehearsal reports it beside the replay.
const HubDispatchWakeSeconds = "verdict_hub_dispatch_wake_seconds"

// HubQueueNoticeSeconds is the hub's histogram of how long an enqueue's
// notice (Redis pub/sub, queue.EnqueueNotice) took from the enqueue
// (Redis's clock) to the hub's read of it, the wake that dispatches a new
// task. The contest rehearsal puts it in its trace's windows; the replay
// wakes the dispatcher for an arrival that long after it.
const HubQueueNoticeSeconds = "verdict_hub_queue_notice_seconds"

// HubDispatchReserve is the hub's gauge of its dispatch reserve: the
// share of the judges' slots its rejudges leave free (--dispatch-reserve;
// 0: none). The rehearsal records it in its trace for the replay.
const HubDispatchReserve = "verdict_hub_dispatch_reserve"

// HubReserveHolds counts the rejudge tasks the hub's dispatch passes held
// to keep the reserve free, once per pass (a task held in ten passes
// counts ten times): the reserve at work.
const HubReserveHolds = "verdict_hub_reserve_holds_total"

// HubDispatchHolds counts the tasks the hub's dispatch passes held, by
// reason (sched.Hold: busy, no_judge, affinity, reserve): a task held by
// n passes counts n times. The contest rehearsal's report reads it.
const HubDispatchHolds = "verdict_hub_dispatch_holds_total"

// HubJudgeMessageWaitSeconds is the hub's histogram of how long a judge's
// message waited, read off the socket, for the hub to handle it. (Until
// 2026-12-04 the contest rehearsal replayed it as a result's way to its
// slot; see HubResultSlotSeconds.)
const HubJudgeMessageWaitSeconds = "verdict_hub_judge_message_wait_seconds"

// HubResultSlotSeconds is the hub's histogram of how long a result took
// from its judge (protocol.Result.SentMs, the judge's clock; else from
// the read off the socket) to free its slot in the hub's accounting (when
// its handler reaches it). The contest rehearsal
// puts it in its trace: the replay frees each slot that long after the
// result leaves its judge.
const HubResultSlotSeconds = "verdict_hub_result_slot_seconds"

// HubQueueWaitSeconds is the hub's histogram of how long each task it
// dispatched waited: its enqueue (Redis's clock) → the start of the pass
// that placed it. The contest rehearsal reports it beside the waits it
// measured to the judges.
const HubQueueWaitSeconds = "verdict_hub_queue_wait_seconds"

// HubBrowsersConnected is the hub's gauge of the browsers connected to
// it. The contest rehearsal divides the hub's memory by it.
const HubBrowsersConnected = "verdict_hub_browsers_connected"

// RedisPoolWaits and RedisPoolWaitSeconds count the commands of a
// process's Redis client that waited for a free pooled connection, and
// their time waiting (redisconn's pool collector). The contest rehearsal
// reads them at the end of the run from each process, and every 5 s from
// the hub, to say when its commands waited.
const (
	RedisPoolWaits       = "verdict_redis_pool_waits_total"
	RedisPoolWaitSeconds = "verdict_redis_pool_wait_seconds_total"
	RedisPoolSize        = "verdict_redis_pool_size"
)

// HubBrowserReadWaits and HubBrowserReadWaitSeconds count the browsers'
// Redis reads that waited for a slot of the hub's --browser-reads bound,
// and their time waiting. The contest rehearsal reads them every 5 s
// beside the pool's waits: the browsers' storms wait there, not for the
// pool the judges' work needs.
const (
	HubBrowserReadWaits       = "verdict_hub_browser_read_waits_total"
	HubBrowserReadWaitSeconds = "verdict_hub_browser_read_wait_seconds_total"
)

// HubPolicyOverheadSeconds (by placement: warm or cold) and
// HubPolicyFetchSeconds are what the hub's policy has learnt so far of
// what a download costs, HubPolicySpeed of its judges' speeds
// (sched.CostEstimates): the rehearsal reads them
// into its trace beside what the simulator's replay learns.
const (
	HubPolicyOverheadSeconds = "verdict_hub_policy_overhead_seconds"
	HubPolicyFetchSeconds    = "verdict_hub_policy_fetch_seconds"
	// HubPolicySpeed (by bound: lowest or highest) is the range of the
	// judges' speeds the policy assumes.
	HubPolicySpeed = "verdict_hub_policy_speed"
)

// RedisCommandSeconds is a process's histogram of its Redis commands'
// times as it saw them, labelled by command (redisconn.Instrument): from
// the call to the reply read, the wait for a pooled connection and for a
// core included. The contest rehearsal reports which commands were slow.
const RedisCommandSeconds = "verdict_redis_command_seconds"

// ReadGauges reads a Prometheus text exposition and returns the value of
// each unlabelled sample among names (a gauge, a counter, an untyped
// value); a name that is absent is absent from the map.
func ReadGauges(r io.Reader, names ...string) (map[string]float64, error) {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	out := make(map[string]float64, len(names))
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok || !want[k] {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return nil, fmt.Errorf("obs: %s: %w", k, err)
		}
		out[k] = f
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("obs: reading metrics: %w", err)
	}
	return out, nil
}

// Histogram is one reading of a cumulative Prometheus histogram: Counts[i]
// observations at most Bounds[i] (s), the last count (one more than the
// bounds: le="+Inf") all of them; Sum and Count as exposed.
type Histogram struct {
	Bounds []float64
	Counts []float64
	Sum    float64
	Count  float64
}

// Mean is Sum / Count, 0 with no observations.
func (h Histogram) Mean() float64 {
	if h.Count <= 0 {
		return 0
	}
	return h.Sum / h.Count
}

// UpperQuantile is the bound of the bucket that holds quantile q (0 < q ≤
// 1) of the observations: q of them are at most that (s); +Inf when they
// lie above the last bound, 0 with no observations.
func (h Histogram) UpperQuantile(q float64) float64 {
	if h.Count <= 0 || len(h.Counts) == 0 {
		return 0
	}
	for i, c := range h.Counts {
		if c >= q*h.Count && i < len(h.Bounds) {
			return h.Bounds[i]
		}
	}
	return math.Inf(1)
}

// ReadHistogram reads a Prometheus text exposition and returns the
// unlabelled histogram name (its buckets in the order exposed, which is
// by bound); a histogram that is absent reads as empty.
func ReadHistogram(r io.Reader, name string) (Histogram, error) {
	var h Histogram
	inf := false // le="+Inf" read: it is the last bucket
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	num := func(what, v string) (float64, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return 0, fmt.Errorf("obs: %s%s: %w", name, what, err)
		}
		return f, nil
	}
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		var err error
		switch {
		case k == name+"_sum":
			h.Sum, err = num("_sum", v)
		case k == name+"_count":
			h.Count, err = num("_count", v)
		case strings.HasPrefix(k, name+`_bucket{le="`) && strings.HasSuffix(k, `"}`):
			le := strings.TrimSuffix(strings.TrimPrefix(k, name+`_bucket{le="`), `"}`)
			var c float64
			if c, err = num("_bucket", v); err != nil {
				break
			}
			if inf {
				return Histogram{}, fmt.Errorf("obs: %s_bucket: le=%q after le=\"+Inf\"", name, le)
			}
			inf = le == "+Inf"
			if !inf {
				var b float64
				if b, err = num(`_bucket le`, le); err != nil {
					break
				}
				if n := len(h.Bounds); n > 0 && b <= h.Bounds[n-1] {
					return Histogram{}, fmt.Errorf("obs: %s_bucket: le %v not above %v", name, b, h.Bounds[n-1])
				}
				h.Bounds = append(h.Bounds, b)
			}
			h.Counts = append(h.Counts, c)
		}
		if err != nil {
			return Histogram{}, err
		}
	}
	if err := sc.Err(); err != nil {
		return Histogram{}, fmt.Errorf("obs: reading metrics: %w", err)
	}
	if len(h.Counts) > 0 && len(h.Counts) != len(h.Bounds)+1 {
		return Histogram{}, fmt.Errorf("obs: %s: %d buckets for %d bounds (no le=\"+Inf\")", name, len(h.Counts), len(h.Bounds))
	}
	return h, nil
}

// HistogramMean reads a Prometheus text exposition and returns the mean
// (sum / count) and count of the unlabelled histogram name; n is 0 when
// it has no observations or is absent.
func HistogramMean(r io.Reader, name string) (mean float64, n int64, err error) {
	h, err := ReadHistogram(r, name)
	if err != nil {
		return 0, 0, err
	}
	if h.Count <= 0 {
		return 0, 0, nil
	}
	return h.Mean(), int64(h.Count), nil
}

// ReadHistograms reads a Prometheus text exposition and returns the
// histogram name's series by the value of their label (the series'
// other labels are ignored: series that differ only in them merge, which
// a histogram labelled by label alone never has); a histogram that is
// absent reads as an empty map. Each series is checked as ReadHistogram
// checks its one.
func ReadHistograms(r io.Reader, name, label string) (map[string]Histogram, error) {
	out := map[string]Histogram{}
	inf := map[string]bool{} // le="+Inf" read for the series
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"_") {
			continue
		}
		suffix, rest, ok := strings.Cut(line[len(name)+1:], "{")
		if !ok || (suffix != "bucket" && suffix != "sum" && suffix != "count") {
			continue
		}
		labels, value, err := splitLabels(rest)
		if err != nil {
			return nil, fmt.Errorf("obs: %s_%s: %w", name, suffix, err)
		}
		key, ok := labels[label]
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return nil, fmt.Errorf("obs: %s_%s{%s=%q}: %w", name, suffix, label, key, err)
		}
		h := out[key]
		switch suffix {
		case "sum":
			h.Sum = f
		case "count":
			h.Count = f
		case "bucket":
			le, ok := labels["le"]
			if !ok {
				return nil, fmt.Errorf("obs: %s_bucket{%s=%q}: no le", name, label, key)
			}
			if inf[key] {
				return nil, fmt.Errorf("obs: %s_bucket{%s=%q}: le=%q after le=\"+Inf\"", name, label, key, le)
			}
			inf[key] = le == "+Inf"
			if !inf[key] {
				b, err := strconv.ParseFloat(le, 64)
				if err == nil && math.IsNaN(b) {
					err = errors.New("NaN")
				}
				if err != nil {
					return nil, fmt.Errorf("obs: %s_bucket{%s=%q} le: %w", name, label, key, err)
				}
				if n := len(h.Bounds); n > 0 && b <= h.Bounds[n-1] {
					return nil, fmt.Errorf("obs: %s_bucket{%s=%q}: le %v not above %v", name, label, key, b, h.Bounds[n-1])
				}
				h.Bounds = append(h.Bounds, b)
			}
			h.Counts = append(h.Counts, f)
		}
		out[key] = h
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("obs: reading metrics: %w", err)
	}
	for key, h := range out {
		if len(h.Counts) > 0 && len(h.Counts) != len(h.Bounds)+1 {
			return nil, fmt.Errorf("obs: %s{%s=%q}: %d buckets for %d bounds (no le=\"+Inf\")", name, label, key, len(h.Counts), len(h.Bounds))
		}
	}
	return out, nil
}

// splitLabels reads `a="x",b="y"} value` (a sample's labels after its
// opening brace) into the labels, unescaped (\\, \" and \n), and the rest
// after the closing brace.
func splitLabels(s string) (map[string]string, string, error) {
	labels := map[string]string{}
	for {
		s = strings.TrimLeft(s, " ")
		if strings.HasPrefix(s, "}") {
			return labels, s[1:], nil
		}
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || len(s) < eq+2 || s[eq+1] != '"' {
			return nil, "", fmt.Errorf("bad label at %q", s)
		}
		key := strings.TrimSpace(s[:eq])
		var v strings.Builder
		i := eq + 2
		for ; i < len(s) && s[i] != '"'; i++ {
			c := s[i]
			if c == '\\' {
				if i++; i == len(s) {
					break
				}
				switch s[i] {
				case 'n':
					c = '\n'
				case '\\', '"':
					c = s[i]
				default:
					return nil, "", fmt.Errorf("bad escape \\%c in label %s", s[i], key)
				}
			}
			v.WriteByte(c)
		}
		if i >= len(s) {
			return nil, "", fmt.Errorf("label %s not closed", key)
		}
		labels[key] = v.String()
		s = strings.TrimLeft(s[i+1:], " ")
		if strings.HasPrefix(s, ",") {
			s = s[1:]
		} else if !strings.HasPrefix(s, "}") {
			return nil, "", fmt.Errorf("bad label list at %q", s)
		}
	}
}
