package rehearsal

import (
	"strings"
	"testing"
	"time"
)

func TestParseNetstat(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     TCPStats
		err      string
	}{
		{name: "linux 6.1 layout",
			in: "TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPSynRetrans TCPOrigDataSent\n" +
				"TcpExt: 0 94275 94280 55012 12\n" +
				"IpExt: InNoRoutes InOctets\nIpExt: 0 1234\n",
			want: TCPStats{ListenOverflows: 94275, ListenDrops: 94280, SynRetrans: 55012}},
		{name: "other lines first",
			in:   "IpExt: InNoRoutes\nIpExt: 3\nTcpExt: TCPSynRetrans ListenDrops ListenOverflows\nTcpExt: 7 2 1\n",
			want: TCPStats{ListenOverflows: 1, ListenDrops: 2, SynRetrans: 7}},
		{name: "a counter missing", in: "TcpExt: ListenOverflows ListenDrops\nTcpExt: 1 2\n", err: "lacks"},
		{name: "values short", in: "TcpExt: ListenOverflows ListenDrops TCPSynRetrans\nTcpExt: 1 2\n", err: "3 names and 2 values"},
		{name: "not a number", in: "TcpExt: ListenOverflows ListenDrops TCPSynRetrans\nTcpExt: 1 x 2\n", err: "ListenDrops"},
		{name: "names only", in: "TcpExt: ListenOverflows ListenDrops TCPSynRetrans\n", err: "no TcpExt"},
		{name: "empty", in: "", err: "no TcpExt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseNetstat(strings.NewReader(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestReadTCPStats: this machine's counters are readable (a Linux
// kernel's /proc/net/netstat has all three).
func TestReadTCPStats(t *testing.T) {
	s, err := readTCPStats()
	if err != nil {
		t.Fatal(err)
	}
	if s.ListenOverflows < 0 || s.ListenDrops < s.ListenOverflows || s.SynRetrans < 0 {
		t.Fatalf("implausible counters %+v (every overflow is also a drop)", s)
	}
}

func TestWorstSeconds(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s int, of, syn int64) TCPSecond {
		return TCPSecond{At: t0.Add(time.Duration(s) * time.Second), TCPStats: TCPStats{ListenOverflows: of, SynRetrans: syn}}
	}
	secs := []TCPSecond{at(0, 3, 1), at(1, 0, 9), at(2, 40, 30), at(3, 3, 5), at(4, 3, 1)}
	got := worstSeconds(secs, 4)
	want := []TCPSecond{at(2, 40, 30), at(3, 3, 5), at(0, 3, 1), at(4, 3, 1)}
	if len(got) != len(want) {
		t.Fatalf("got %d seconds, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("second %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if secs[0] != at(0, 3, 1) {
		t.Fatal("worstSeconds reordered its input")
	}
	if got := worstSeconds(nil, 8); len(got) != 0 {
		t.Fatalf("no seconds: got %v", got)
	}
}

func TestWriteTCP(t *testing.T) {
	start := time.Unix(5000, 0)
	rep := &Report{Start: start, Config: Config{Compress: 40, ArrivalCompress: 6},
		TCP: &TCPReport{Total: TCPStats{ListenOverflows: 48, ListenDrops: 48, SynRetrans: 60}, Somaxconn: 4096,
			Worst: []TCPSecond{{At: start.Add(3 * time.Second), TCPStats: TCPStats{ListenOverflows: 40, SynRetrans: 41}}}}}
	var b strings.Builder
	writeTCP(&b, rep)
	out := b.String()
	for _, want := range []string{"(ListenOverflows, the whole machine): **48**", "somaxconn = 4096", "| 2m0s | 40 | 41 |"} {
		if !strings.Contains(out, want) {
			t.Fatalf("section lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	writeTCP(&b, &Report{})
	if b.Len() != 0 {
		t.Fatalf("no sample, yet: %s", b.String())
	}
}
