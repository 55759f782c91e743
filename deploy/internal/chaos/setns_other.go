//go:build !linux

package chaos

import "errors"

// enterNetns: network namespaces are Linux's (the drills run on Linux only).
func enterNetns(int) error { return errors.New("chaos: network namespaces: linux only") }
