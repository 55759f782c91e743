//go:build !linux

package agent

// allowedCPUs is nil off Linux: the agent only judges on Linux.
func allowedCPUs() []int { return nil }
