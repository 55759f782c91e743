package bench

import (
	"context"
	"errors"
	"math/big"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

func TestTracker(t *testing.T) {
	tr := newTracker()
	at := time.Unix(100, 0)
	// The verdict arrives before the POST's answer.
	tr.done(1, final{at: at, verdict: protocol.VerdictAC})
	if f, err := tr.wait(context.Background(), 1); err != nil || !f.at.Equal(at) || f.verdict != protocol.VerdictAC {
		t.Fatalf("verdict first: %+v, %v", f, err)
	}
	// The POST's answer first, then the verdict; a repeat is ignored.
	got := make(chan final, 1)
	go func() {
		f, _ := tr.wait(context.Background(), 2)
		got <- f
	}()
	for {
		tr.mu.Lock()
		n := len(tr.waits)
		tr.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	tr.done(2, final{at: at.Add(time.Second), verdict: protocol.VerdictWA})
	tr.done(2, final{at: at.Add(time.Hour), verdict: protocol.VerdictAC})
	if f := <-got; f.verdict != protocol.VerdictWA || !f.at.Equal(at.Add(time.Second)) {
		t.Fatalf("POST first: %+v", f)
	}
	// Never judged: the context ends the wait and nothing is left behind.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := tr.wait(ctx, 3); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("no verdict: %v", err)
	}
	if len(tr.waits) != 0 {
		t.Fatalf("%d waiters left", len(tr.waits))
	}
}

func TestCasesAreAPlusB(t *testing.T) {
	cs := Cases()
	if len(cs) != CaseCount {
		t.Fatalf("%d cases", len(cs))
	}
	again := Cases()
	for i, c := range cs {
		f := strings.Fields(string(c.In))
		a, _ := new(big.Int).SetString(f[0], 10)
		b, _ := new(big.Int).SetString(f[1], 10)
		if want := new(big.Int).Add(a, b).String() + "\n"; string(c.Ans) != want {
			t.Errorf("case %d: %q → %q, want %q", i+1, c.In, c.Ans, want)
		}
		if string(again[i].In) != string(c.In) {
			t.Errorf("case %d differs between calls: the test data hash would change", i+1)
		}
	}
	if Solution(1) == Solution(2) || !strings.Contains(Solution(7), "std::cin") {
		t.Error("Solution must differ per submission and read with iostream")
	}
}

func TestUserAddr(t *testing.T) {
	tests := []struct {
		i    int
		want string
	}{{0, "127.0.0.10"}, {1, "127.0.0.11"}, {199, "127.0.0.209"}, {200, "127.0.1.10"}, {450, "127.0.2.60"}}
	seen := map[netip.Addr]bool{}
	for _, tt := range tests {
		a := UserAddr(tt.i)
		if a.String() != tt.want || !a.IsLoopback() {
			t.Errorf("UserAddr(%d) = %v, want %s", tt.i, a, tt.want)
		}
		if seen[a] {
			t.Errorf("UserAddr(%d) repeats %v", tt.i, a)
		}
		seen[a] = true
	}
}
