//go:build !linux

package cli

import "errors"

// tmpWorkDir: the bounded tmpfs work dir is Linux's (as is the sandbox).
func tmpWorkDir(uid, gid int) (dir string, cleanup func() error, err error) {
	return "", nil, errors.New("work dir: linux only")
}
