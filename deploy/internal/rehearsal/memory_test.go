package rehearsal

import (
	"strings"
	"testing"
	"time"
)

func TestReadMem(t *testing.T) {
	at := time.Unix(100, 0)
	text := `# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 6.291456e+08
go_memstats_heap_inuse_bytes 3.145728e+08
go_memstats_heap_idle_bytes 2.097152e+08
go_memstats_heap_released_bytes 1.048576e+08
go_memstats_stack_inuse_bytes 5.24288e+07
go_memstats_next_gc_bytes 4.194304e+08
go_goroutines 9000
verdict_hub_browsers_connected 3000
`
	m, ok := readMem(text, at)
	want := MemReading{At: at, RSS: 600 << 20, HeapInuse: 300 << 20, HeapHeld: 100 << 20, Stacks: 50 << 20, NextGC: 400 << 20,
		Goroutines: 9000, Browsers: 3000}
	if !ok || m != want {
		t.Errorf("readMem = %+v, %v; want %+v", m, ok, want)
	}
	// More released than idle (read at different instants): none held.
	if m, _ := readMem("process_resident_memory_bytes 1\ngo_memstats_heap_idle_bytes 5\ngo_memstats_heap_released_bytes 9\n", at); m.HeapHeld != 0 {
		t.Errorf("heap held %v, want 0", m.HeapHeld)
	}
	for _, bad := range []string{"", "go_goroutines 3\n", "process_resident_memory_bytes x\n"} {
		if _, ok := readMem(bad, at); ok {
			t.Errorf("readMem(%q) ok, want not", bad)
		}
	}
}

func TestMemMoments(t *testing.T) {
	r := func(s int, rss, browsers float64) MemReading {
		return MemReading{At: time.Unix(int64(s), 0), RSS: rss, Browsers: browsers}
	}
	whats := func(rs []MemReading) string {
		var w []string
		for _, m := range memMoments(rs) {
			w = append(w, m.What+"@"+m.At.Format("05"))
		}
		return strings.Join(w, "; ")
	}
	for _, tc := range []struct {
		what string
		in   []MemReading
		want string
	}{
		{"none", nil, ""},
		{"one", []MemReading{r(1, 5, 5)}, "first reading, most browsers, highest RSS, last reading@01"},
		{"apart", []MemReading{r(1, 1, 0), r(2, 5, 9), r(3, 7, 8), r(4, 6, 0)},
			"first reading@01; most browsers@02; highest RSS@03; last reading@04"},
		{"peak at the end, ties keep the first", []MemReading{r(1, 1, 0), r(2, 5, 9), r(3, 5, 9), r(4, 8, 0)},
			"first reading@01; most browsers@02; highest RSS, last reading@04"},
	} {
		if got := whats(tc.in); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.what, got, tc.want)
		}
	}
}

func TestWriteMemory(t *testing.T) {
	start := time.Unix(1000, 0)
	rep := &Report{Start: start, Config: Config{Compress: 10, ArrivalCompress: 1}, HubMemory: []MemReading{
		{At: start.Add(-time.Minute), RSS: 100 << 20},
		{At: start.Add(time.Minute), RSS: 900 << 20, HeapInuse: 300 << 20, Browsers: 3000},
	}}
	var b strings.Builder
	writeMemory(&b, rep)
	md := b.String()
	for _, want := range []string{
		"## The hub's memory",
		"| first reading | -1m0s | 100 | 0 | 0 | 0 | 0 | 0 | 0 | – | – |",
		"| most browsers, highest RSS, last reading | 10m0s | 900 | 300 | 0 | 0 | 0 | 0 | 3000 | 307 | 102 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks %q:\n%s", want, md)
		}
	}
	b.Reset()
	writeMemory(&b, &Report{})
	if b.Len() != 0 {
		t.Errorf("no readings wrote %q", b.String())
	}
}
