package main

import (
	"os"
	"runtime"
	"strings"
)

func numCPU() int { return runtime.NumCPU() }

// hostLoad is the load average line, to say how busy the shared machine
// was while measuring.
func hostLoad() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "load unknown"
	}
	return "load " + f[0] + " " + f[1] + " " + f[2]
}
