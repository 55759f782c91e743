package chaos

import "golang.org/x/sys/unix"

// enterNetns moves the calling thread into the network namespace fd.
func enterNetns(fd int) error { return unix.Setns(fd, unix.CLONE_NEWNET) }
