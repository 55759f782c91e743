package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/harness"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// The problem, contest and users the stack benchmarks create through the
// admin API (the demo data stays as it is).
const (
	ProblemSlug = "bench-a-plus-b"
	ContestSlug = "bench"
	Language    = "cpp17"
	// CaseCount is the number of test cases of the bench problem.
	CaseCount = 20
)

// Solution is the accepted A+B the benchmarks submit, as a student writes
// it (iostream); n makes every submission's source distinct.
func Solution(n int) string {
	return "// bench submission " + strconv.Itoa(n) + `
#include <iostream>
int main() {
    long long a, b;
    std::cin >> a >> b;
    std::cout << a + b << '\n';
    return 0;
}
`
}

// WrongSolution is rejected on the first case (prints 0).
func WrongSolution(n int) string {
	return "// bench wrong " + strconv.Itoa(n) + "\n#include <cstdio>\nint main() { puts(\"0\"); return 0; }\n"
}

// Cases are the bench problem's test cases: two random integers of up to
// 10^12 each, deterministic.
func Cases() []testpkg.Case {
	r := rand.New(rand.NewPCG(9, 9))
	cs := make([]testpkg.Case, CaseCount)
	for i := range cs {
		a, b := r.Int64N(2e12)-1e12, r.Int64N(2e12)-1e12
		cs[i] = testpkg.Case{In: fmt.Appendf(nil, "%d %d\n", a, b), Ans: fmt.Appendf(nil, "%d\n", a+b)}
	}
	return cs
}

// UserAddr is the loopback address bench user i (0-based) sends from
// (127.0.0.10, 127.0.0.11, …, 200 per /24), so that nginx's per-address
// limits (10 log-ins and 30 submits a minute) count each user on its own,
// as for real browsers.
func UserAddr(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{127, 0, byte(i / 200), byte(10 + i%200)})
}

// Fixture is the bench data in a running stack and the logged-in clients.
type Fixture struct {
	Env       *harness.Env
	Admin     *harness.Client
	Users     []*harness.Client // bench01 … benchNN, students
	ContestID int64
	Cases     []testpkg.Case
	Hash      string // test data hash
}

// Setup creates the bench problem (public, C++17 only, CaseCount cases),
// a running contest holding it, and users students (CSV import), and logs
// every user in from its own loopback address.
func Setup(ctx context.Context, e *harness.Env, users int) (*Fixture, error) {
	f := &Fixture{Env: e, Cases: Cases()}
	var err error
	if f.Admin, err = e.Admin(ctx, netip.AddrFrom4([4]byte{127, 0, 0, 2})); err != nil {
		return nil, err
	}
	prob := map[string]any{
		"slug": ProblemSlug, "title": "A + B (bench)", "statement": "Print $a+b$.",
		"time_limit_ms": 1000, "memory_limit_kb": 262144, "checker": "default",
		"mode": "icpc", "visibility": "public", "languages": []string{Language},
	}
	if err := f.Admin.Call(ctx, http.MethodPost, "/api/problems", prob, nil); err != nil {
		return nil, fmt.Errorf("bench: create problem: %w", err)
	}
	zip, _, err := testpkg.Build(f.Cases, nil)
	if err != nil {
		return nil, fmt.Errorf("bench: test data: %w", err)
	}
	var up struct {
		Hash  string `json:"hash"`
		Cases int    `json:"case_count"`
	}
	if err := f.Admin.Upload(ctx, "/api/problems/"+ProblemSlug+"/testdata", "application/zip", zip, &up); err != nil {
		return nil, fmt.Errorf("bench: upload test data: %w", err)
	}
	if up.Cases != CaseCount {
		return nil, fmt.Errorf("bench: uploaded %d cases, want %d", up.Cases, CaseCount)
	}
	f.Hash = up.Hash
	now := time.Now().UTC()
	contest := map[string]any{
		"slug": ContestSlug, "title": "Bench", "rule": "icpc",
		"start_at": now.Add(-time.Minute).Format(time.RFC3339), "end_at": now.Add(6 * time.Hour).Format(time.RFC3339),
		"registration": "open", "visible": true,
		"problems": []map[string]any{{"label": "A", "slug": ProblemSlug}},
	}
	var cres struct {
		Contest struct {
			ID int64 `json:"id"`
		} `json:"contest"`
	}
	if err := f.Admin.Call(ctx, http.MethodPost, "/api/contests", contest, &cres); err != nil {
		return nil, fmt.Errorf("bench: create contest: %w", err)
	}
	f.ContestID = cres.Contest.ID
	if err := f.addUsers(ctx, users); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *Fixture) addUsers(ctx context.Context, n int) error {
	var csv strings.Builder
	csv.WriteString("username,password,role\n")
	pass := make([]string, n)
	for i := range n {
		pass[i] = harness.NewKey()
		fmt.Fprintf(&csv, "%s,%s,student\n", UserName(i), pass[i])
	}
	var res struct {
		Created int `json:"created"`
		Updated int `json:"updated"`
	}
	if err := f.Admin.Upload(ctx, "/api/users/import", "text/csv", []byte(csv.String()), &res); err != nil {
		return fmt.Errorf("bench: import users: %w", err)
	}
	if res.Created+res.Updated != n {
		return fmt.Errorf("bench: imported %d users, want %d", res.Created+res.Updated, n)
	}
	f.Users = make([]*harness.Client, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			f.Users[i], errs[i] = harness.LoginFrom(ctx, f.Env.Base, UserName(i), pass[i], UserAddr(i))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// UserName is bench user i's login.
func UserName(i int) string { return fmt.Sprintf("bench%03d", i+1) }

// Verdict waits for submission id's final verdict on its owner's live
// submission channel (a fresh WebSocket).
func Verdict(ctx context.Context, c *harness.Client, id int64) (protocol.Verdict, error) {
	l, err := c.DialLive(ctx)
	if err != nil {
		return "", err
	}
	defer l.Close()
	snap, err := l.Subscribe(ctx, protocol.Channel{Kind: protocol.ChannelSubmission, ID: id})
	if err != nil {
		return "", err
	}
	st, err := decodeState(snap.State)
	if err == nil && st.Status.Final() {
		return st.Status, nil
	}
	for {
		env, err := l.Read(ctx)
		if err != nil {
			return "", fmt.Errorf("bench: waiting for submission %d: %w", id, err)
		}
		if env.Type != protocol.TypeEvent {
			continue
		}
		ev, err := protocol.DecodeData[protocol.Event](env)
		if err != nil || ev.Kind != protocol.EventStatus {
			continue
		}
		if st, err := decodeState(ev.Body); err == nil && st.Status.Final() {
			return st.Status, nil
		}
	}
}
