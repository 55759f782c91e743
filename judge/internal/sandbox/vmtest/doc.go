// Package vmtest proves the sandbox on a real, pure cgroup v2 kernel.
//
// TestCgroup2VM boots Debian's own kernel (the linux-image-amd64 package,
// fetched with apt-get download into var/cache/cgroup2-vm and unpacked
// with dpkg-deb -x; nothing is installed into the host's /boot) under
// QEMU, with KVM when /dev/kvm can be opened and TCG otherwise, and
// cgroup_no_v1=all so that cgroup2 is mounted alone. The initramfs is
// built by the test: a static Go init (vminit), the 9p and virtio modules
// of the same package, and the plan (package plan). The VM's root is the
// host's, shared read-only over 9p, so the sandbox's own test binary, the
// judge binary, gcc and python3 run there as they do here.
//
// In the VM: `judge sandbox info`; the sandbox package's whole test suite
// (the hostile suite, the timing burners, reuse, uids, leaks, ...); the
// hostile suite and burners again from a cgroup made as systemd makes a
// Delegate=yes unit's, with that cgroup as the sandbox's parent (the
// judge moves itself into a "supervisor" leaf); and again with the memory
// peak polled (the method of kernels without memory.peak). Results come
// back on a second 9p share and on the serial console.
//
// VERDICT_CGROUP2VM_KERNEL=bullseye boots Debian 11's kernel (5.10)
// instead, fetched the same way through an apt sources list and package
// lists of the test's own under var/cache/cgroup2-vm/bullseye/apt (the
// host's apt configuration is untouched): a real kernel without
// memory.peak, whose `judge sandbox info` must name the polled method and
// on which the whole suite polls (there is no separate polled phase).
//
// The VM test is built with the cgroup2vm tag (make test-cgroup2, which
// make test runs after the -race suite: the VM wants the machine's CPUs);
// the pure parts (initramfs writer, module order) are tested without it.
// It fails, never skips, when it cannot run (no QEMU, no kernel package,
// not root): CI is a fresh Debian machine with /dev/kvm. Under TCG (a
// /dev/kvm that cannot run a guest, as on this CI host) the init tells
// the suite it is emulated, which widens its CPU-time precision bounds by
// 150 ms and its cost bounds tenfold; classifications stay exact.
package vmtest
