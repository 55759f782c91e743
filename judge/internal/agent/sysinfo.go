package agent

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// parseLoad1 reads the 1-minute load average from /proc/loadavg's text.
func parseLoad1(b []byte) (float64, error) {
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("loadavg: empty")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("loadavg: %q", f[0])
	}
	return v, nil
}

// parseMeminfo returns MemTotal in bytes and the used ratio
// (1 - MemAvailable/MemTotal) from /proc/meminfo's text.
func parseMeminfo(b []byte) (total int64, used float64, err error) {
	var avail int64 = -1
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "MemTotal:":
			total = v << 10
		case "MemAvailable:":
			avail = v << 10
		}
	}
	if total <= 0 || avail < 0 {
		return 0, 0, fmt.Errorf("meminfo: no MemTotal/MemAvailable")
	}
	used = 1 - float64(avail)/float64(total)
	return total, min(max(used, 0), 1), nil
}

// hostLoad reads load1 and memory from /proc; zeros when unreadable.
func hostLoad() (load1 float64, memTotal int64, memUsed float64) {
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load1, _ = parseLoad1(b)
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		memTotal, memUsed, _ = parseMeminfo(b)
	}
	return
}
