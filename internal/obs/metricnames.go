package obs

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// HubDispatchPassSeconds is the hub's histogram of dispatch pass latencies
// (from a pass's start to its last task handed to a judge's socket, passes
// that placed tasks). The contest rehearsal reads its mean from the hub's
// /metrics for the scheduling simulator's replay.
const HubDispatchPassSeconds = "verdict_hub_dispatch_pass_seconds"

// HubJudgeMessageWaitSeconds is the hub's histogram of how long a judge's
// message waited, read off the socket, for the hub to handle it. A result
// frees its judge's slot in the hub's accounting only when handled; the
// contest rehearsal reports the mean beside the simulator's replay.
const HubJudgeMessageWaitSeconds = "verdict_hub_judge_message_wait_seconds"

// HistogramMean reads a Prometheus text exposition and returns the mean
// (sum / count) and count of the unlabelled histogram name; n is 0 when
// it has no observations or is absent.
func HistogramMean(r io.Reader, name string) (mean float64, n int64, err error) {
	var sum float64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch k {
		case name + "_sum":
			if sum, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
				return 0, 0, fmt.Errorf("obs: %s_sum: %w", name, err)
			}
		case name + "_count":
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return 0, 0, fmt.Errorf("obs: %s_count: %w", name, err)
			}
			n = int64(f)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("obs: reading metrics: %w", err)
	}
	if n == 0 {
		return 0, 0, nil
	}
	return sum / float64(n), n, nil
}
