//go:build !linux

package localsvc

import "syscall"

// childAttr: own process group only; Pdeathsig is Linux's, so elsewhere a
// child outlives a supervisor killed with SIGKILL.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
