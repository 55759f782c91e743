package nginxctl

import "syscall"

// childAttr puts nginx in its own process group and has the kernel send it
// SIGTERM when the edge dies.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
