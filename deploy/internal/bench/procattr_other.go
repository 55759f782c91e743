//go:build !linux

package bench

import "syscall"

// childAttr: Pdeathsig is Linux's; elsewhere a child can outlive the bench.
func childAttr() *syscall.SysProcAttr { return nil }
