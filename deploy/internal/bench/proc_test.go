package bench

import (
	"errors"
	"os"
	"testing"
)

func TestStatusField(t *testing.T) {
	status := []byte("Name:\thub\nState:\tS (sleeping)\nPPid:\t4242\nVmPeak:\t  900000 kB\nVmRSS:\t   41234 kB\nThreads:\t9\n")
	tests := []struct {
		field string
		want  int64
		err   error
	}{
		{"VmRSS", 41234 * 1024, nil},
		{"PPid", 4242, nil},
		{"Threads", 9, nil},
		{"VmSwap", 0, ErrNoField},
		{"Name", 0, errors.New("not a number")},
	}
	for _, tt := range tests {
		got, err := StatusField(status, tt.field)
		switch {
		case tt.err == nil && (err != nil || got != tt.want):
			t.Errorf("%s = %d, %v; want %d", tt.field, got, err, tt.want)
		case errors.Is(tt.err, ErrNoField) && !errors.Is(err, ErrNoField):
			t.Errorf("%s: err %v, want ErrNoField", tt.field, err)
		case tt.err != nil && err == nil:
			t.Errorf("%s: no error", tt.field)
		}
	}
}

func TestLimitsNoFile(t *testing.T) {
	limits := "Limit                     Soft Limit           Hard Limit           Units\n" +
		"Max processes             95000                95000                processes\n" +
		"Max open files            20000                20000                files\n"
	if n, err := LimitsNoFile([]byte(limits)); err != nil || n != 20000 {
		t.Fatalf("LimitsNoFile = %d, %v", n, err)
	}
	if n, err := LimitsNoFile([]byte("Max open files            unlimited            unlimited            files\n")); err != nil || n != -1 {
		t.Fatalf("unlimited: %d, %v", n, err)
	}
	if _, err := LimitsNoFile([]byte("Max processes 1 1\n")); !errors.Is(err, ErrNoField) {
		t.Fatalf("missing: %v", err)
	}
}

// The readers against this very process.
func TestProcSelf(t *testing.T) {
	rss, err := RSS(os.Getpid())
	if err != nil || rss < 1<<20 {
		t.Fatalf("RSS = %d, %v", rss, err)
	}
	if n, err := NoFile(os.Getpid()); err != nil || n == 0 {
		t.Fatalf("NoFile = %d, %v", n, err)
	}
	found := false
	for _, c := range Children(os.Getppid()) {
		found = found || c == os.Getpid()
	}
	if !found {
		t.Fatal("Children(parent) does not list this process")
	}
	tree, err := TreeRSS(os.Getppid())
	if err != nil || tree < rss {
		t.Fatalf("TreeRSS(parent) = %d, %v; this process alone has %d", tree, err, rss)
	}
}
