package bench

import "syscall"

// childAttr has the kernel kill a child when this process dies.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
