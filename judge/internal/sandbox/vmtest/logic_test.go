package vmtest

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestLoadOrder(t *testing.T) {
	deps := map[string][]string{
		"9p":           {"9pnet", "netfs", "fscache"},
		"9pnet_virtio": {"9pnet", "virtio_ring", "virtio"},
		"9pnet":        nil,
		"netfs":        {"fscache"},
		"fscache":      nil,
		"virtio_pci":   {"virtio_ring", "virtio"},
		"virtio_ring":  nil,
		"virtio":       nil,
		"a":            {"b"},
		"b":            {"a"},
		"c":            {"nowhere"},
	}
	got, err := loadOrder([]string{"virtio_pci", "9pnet_virtio", "9p"}, deps)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"virtio_ring", "virtio", "virtio_pci", "9pnet", "9pnet_virtio", "fscache", "netfs", "9p"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("loadOrder = %v, want %v", got, want)
	}
	if _, err := loadOrder([]string{"a"}, deps); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: err %v", err)
	}
	if _, err := loadOrder([]string{"c"}, deps); err == nil || !strings.Contains(err.Error(), "nowhere not found") {
		t.Errorf("missing module: err %v", err)
	}
}

func TestKernelPackage(t *testing.T) {
	for in, want := range map[string]string{
		"linux-image-6.1.0-57-amd64 (= 6.1.192-3)":               "linux-image-6.1.0-57-amd64",
		"initramfs-tools, linux-image-6.12.9-amd64 (= 6.12.9-1)": "linux-image-6.12.9-amd64",
		"firmware | linux-image-6.1.0-1-amd64":                   "linux-image-6.1.0-1-amd64",
		"something-else (>= 1)":                                  "",
	} {
		if got := kernelPackage(in); got != want {
			t.Errorf("kernelPackage(%q) = %q, want %q", in, got, want)
		}
	}
	if got := moduleName("/x/kernel/net/9p/9pnet-virtio.ko"); got != "9pnet_virtio" {
		t.Errorf("moduleName = %q", got)
	}
}

func TestWriteCpio(t *testing.T) {
	var b bytes.Buffer
	err := writeCpio(&b, []cpioEntry{
		{Name: "init", Mode: cpioReg | 0o755, Data: []byte("hello")},
		{Name: "dev", Mode: cpioDir | 0o755},
		{Name: "dev/console", Mode: cpioChar | 0o600, Major: 5, Minor: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if b.Len()%4 != 0 {
		t.Errorf("archive length %d not a multiple of 4", b.Len())
	}
	// Parents first, then children; one header per member plus the trailer.
	if i, j, k := strings.Index(s, "dev\x00"), strings.Index(s, "dev/console\x00"), strings.Index(s, "init\x00"); !(i >= 0 && i < j && j < k) {
		t.Errorf("member order: dev %d, dev/console %d, init %d", i, j, k)
	}
	if n := strings.Count(s, "070701"); n != 4 {
		t.Errorf("%d headers, want 4", n)
	}
	// The console's header: mode 020600, rdev 5:1, name length 12.
	h := s[strings.Index(s, "dev/console")-110:]
	if mode, rmaj, rmin, namesize := h[14:22], h[78:86], h[86:94], h[94:102]; mode != "00002180" || rmaj != "00000005" || rmin != "00000001" || namesize != "0000000C" {
		t.Errorf("console header mode %s rdev %s:%s namesize %s", mode, rmaj, rmin, namesize)
	}
	if !strings.Contains(s, "init\x00\x00\x00hello\x00\x00\x00") && !strings.Contains(s, "hello\x00\x00\x00") {
		t.Errorf("file data not padded to 4")
	}
	if !strings.HasSuffix(strings.TrimRight(s, "\x00"), "TRAILER!!!") {
		t.Errorf("no trailer")
	}
	if err := writeCpio(&b, []cpioEntry{{Name: "d", Mode: cpioDir, Data: []byte("x")}}); err == nil {
		t.Errorf("data for a directory accepted")
	}
	if err := writeCpio(&b, []cpioEntry{{Name: "/"}}); err == nil {
		t.Errorf("empty name accepted")
	}
}

func TestWantPeak(t *testing.T) {
	for _, c := range []struct{ release, want string }{
		{"6.1.0-57-amd64", "memory.peak"},
		{"5.19.0", "memory.peak"},
		{"5.18.19", "poll memory.current"},
		{"5.10.0-46-amd64", "poll memory.current"},
		{"4.19.0-27-amd64", "poll memory.current"},
		{"10.0", "memory.peak"},
	} {
		if got := wantPeak(c.release); got != c.want {
			t.Errorf("wantPeak(%q) = %q, want %q", c.release, got, c.want)
		}
	}
}

func TestCPUVirtualizes(t *testing.T) {
	const intel = "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme de pse tsc msr vmx smx est tm2\nbugs\t\t: spectre_v1\n"
	const amd = "processor\t: 0\nflags\t\t: fpu vme de svm extapic\n"
	// This CI machine (a Firecracker VM): a hypervisor, no vmx or svm;
	// "vmx" in another field or as part of a flag does not count.
	const guest = "processor\t: 0\nvmx flags\t: ept vpid\nflags\t\t: fpu vme hypervisor vmxe svm_lock\n"
	for _, c := range []struct {
		name, cpuinfo string
		want          bool
	}{{"intel", intel, true}, {"amd", amd, true}, {"guest", guest, false}, {"empty", "", false}} {
		if got := cpuVirtualizes(c.cpuinfo); got != c.want {
			t.Errorf("%s: cpuVirtualizes = %v, want %v", c.name, got, c.want)
		}
	}
}
