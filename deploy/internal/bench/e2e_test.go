package bench

import (
	"math/big"
	"net/netip"
	"strings"
	"testing"
)

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
