//go:build !linux

package stack

// allowedCPUs is nil off Linux: affinity falls back to every CPU.
func allowedCPUs() []int { return nil }
