//go:build !linux

package nginxctl

import "syscall"

// childAttr: own process group only; Pdeathsig is Linux's, so elsewhere
// nginx outlives an edge killed with SIGKILL.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
