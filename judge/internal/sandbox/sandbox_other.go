//go:build !linux

package sandbox

// The sandbox needs Linux (namespaces, cgroups v1/v2, seccomp, openat2).
// Elsewhere the package only compiles, so that the tree builds and vets on
// a contributor's laptop: every entry point fails with ErrLinuxOnly.

import (
	"context"
	"errors"
	"os"
)

// ErrLinuxOnly is what every entry point returns on a system other than
// Linux.
var ErrLinuxOnly = errors.New("sandbox: linux only")

// Sandbox cannot be created on this system: New fails.
type Sandbox struct{}

// Info is empty on this system.
type Info struct{}

func New(Config) (*Sandbox, error)                         { return nil, ErrLinuxOnly }
func (*Sandbox) Run(context.Context, Spec) (Result, error) { return Result{}, ErrLinuxOnly }
func (*Sandbox) RunInteractive(context.Context, Spec, Spec) (Interaction, error) {
	return Interaction{}, ErrLinuxOnly
}
func (*Sandbox) Close() error                                     { return nil }
func (*Sandbox) Slots() int                                       { return 0 }
func (*Sandbox) SlotUser(int) (uid, gid int)                      { return 0, 0 }
func (*Sandbox) CgroupVersion() string                            { return "" }
func MaybeInit()                                                  {}
func HostInfo() Info                                              { return Info{} }
func CgroupMode() string                                          { return "" }
func OpenBeneath(string, string) (*os.File, error)                { return nil, ErrLinuxOnly }
func ReadFileBeneath(string, string, int64) ([]byte, bool, error) { return nil, false, ErrLinuxOnly }
func RemoveAll(string) error                                      { return ErrLinuxOnly }
func EmptyDir(string) error                                       { return ErrLinuxOnly }
func MakeWorkDir(string, int, int, WorkDirLimits) error           { return ErrLinuxOnly }
func UnmountWorkDirs(string) (int, error)                         { return 0, ErrLinuxOnly }
func ChownTree(string, int, int) error                            { return ErrLinuxOnly }

// WorkDirLimits bound a work dir (see the Linux build).
type WorkDirLimits struct {
	Bytes  int64
	Inodes int
}
