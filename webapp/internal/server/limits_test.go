package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// defaultLimits undoes newEnv's tight test limits: the shipped defaults.
func defaultLimits(c *Config) { c.Limits = Limits{} }

// loginFrom logs in through the trusted proxy as seen from addr.
func (c *client) loginFrom(addr, username, password string) resp {
	c.e.t.Helper()
	r := c.do("POST", "/api/session", map[string]string{"username": username, "password": password}, "X-Forwarded-For", addr)
	if r.status == http.StatusOK {
		c.csrf, _ = r.body["csrf_token"].(string)
	}
	return r
}

func wantLimited(t *testing.T, r resp, retryAfter int) {
	t.Helper()
	wantErr(t, r, http.StatusTooManyRequests, CodeRateLimited, "")
	ra, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || ra < 1 || retryAfter > 0 && ra != retryAfter {
		t.Fatalf("Retry-After %q, want %d", r.header.Get("Retry-After"), retryAfter)
	}
	e := r.body["error"].(map[string]any)
	if secs, _ := e["retry_after_seconds"].(float64); int(secs) != ra {
		t.Fatalf("retry_after_seconds %v, Retry-After %d", e["retry_after_seconds"], ra)
	}
	if msg, _ := e["message"].(string); !strings.Contains(msg, fmt.Sprintf("%d s", ra)) {
		t.Fatalf("message %q does not name the wait", msg)
	}
}

// TestOthersFailuresDoNotStopTheUser: ten wrong passwords (and then
// thirty) for alice from other addresses never stop alice from hers.
func TestOthersFailuresDoNotStopTheUser(t *testing.T) {
	e := newEnv(t, defaultLimits)
	e.user("alice", store.RoleStudent, "alice-password")
	for i := range 10 { // 401, then 429 once the pair's backoff starts
		e.client().loginFrom("203.0.113.66", "alice", fmt.Sprint("guess-", i))
	}
	if r := e.client().loginFrom("198.51.100.7", "alice", "alice-password"); r.status != 200 {
		t.Fatalf("alice after 10 failures elsewhere: %d %s", r.status, r.raw)
	}
	// Thirty more from three addresses: beyond the account's 20 free
	// failures from unfamiliar addresses.
	for i := range 30 {
		e.client().loginFrom(fmt.Sprint("203.0.113.", 70+i%3), "alice", fmt.Sprint("guess-", i))
	}
	// Her usual address, a browser without a device cookie: in.
	if r := e.client().loginFrom("198.51.100.7", "alice", "alice-password"); r.status != 200 {
		t.Fatalf("alice from her usual address: %d %s", r.status, r.raw)
	}
	// An address she never used is subject to the account's backoff.
	wantLimited(t, e.client().loginFrom("192.0.2.200", "alice", "alice-password"), 0)
}

// TestPranksterOnNATDoesNotStopTheLab: 300 students behind one NAT
// address; one of them tries 60 passwords for the victim's account.
// Everyone else logs in.
func TestPranksterOnNATDoesNotStopTheLab(t *testing.T) {
	e := newEnv(t, defaultLimits)
	const nat = "100.64.7.7"
	hash, err := account.HashPassword("lab-password", 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 301 {
		if _, err := e.st.CreateUser(context.Background(), store.User{Username: fmt.Sprint("lab", i), DisplayName: "x",
			Role: store.RoleStudent, PasswordHash: hash}); err != nil {
			t.Fatal(err)
		}
	}
	prankster := e.client()
	for i := range 60 {
		prankster.loginFrom(nat, "lab0", fmt.Sprint("prank-", i))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	sem := make(chan struct{}, 8)
	for i := 1; i <= 300; i++ {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			r := e.client().loginFrom(nat, fmt.Sprint("lab", i), "lab-password")
			if r.status != 200 {
				mu.Lock()
				failed = append(failed, fmt.Sprintf("lab%d: %d %s", i, r.status, r.raw))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("%d of 300 lab logins refused, e.g. %s", len(failed), failed[0])
	}
}

// TestKnownDeviceBeatsThePrankster: the victim's own browser logs in even
// from the prankster's address after the prankster's failures.
func TestKnownDeviceBeatsThePrankster(t *testing.T) {
	e := newEnv(t, defaultLimits)
	e.user("vic", store.RoleStudent, "vic-password")
	victim := e.client()
	r := victim.loginFrom("198.51.100.20", "vic", "vic-password")
	if r.status != 200 {
		t.Fatalf("first login: %d %s", r.status, r.raw)
	}
	var dev string
	for _, sc := range r.header.Values("Set-Cookie") {
		if strings.HasPrefix(sc, DeviceCookie+"=") {
			dev = sc
		}
	}
	for _, want := range []string{"HttpOnly", "SameSite=Lax", "Max-Age=31536000", "Path=/api"} {
		if !strings.Contains(dev, want) {
			t.Errorf("device cookie %q lacks %q", dev, want)
		}
	}
	const nat = "100.64.9.9"
	for i := range 60 {
		e.client().loginFrom(nat, "vic", fmt.Sprint("prank-", i))
	}
	// The prankster's failures hold back a browser without the cookie
	// at that address (so the test means something)...
	wantLimited(t, e.client().loginFrom(nat, "vic", "vic-password"), 0)
	// ...but not the victim's own browser, there or anywhere.
	for _, addr := range []string{nat, "192.0.2.99", "198.51.100.20"} {
		if r := victim.loginFrom(addr, "vic", "vic-password"); r.status != 200 {
			t.Fatalf("known device from %s: %d %s", addr, r.status, r.raw)
		}
	}
	// The same browser keeps its device cookie (no new one).
	if r := victim.loginFrom(nat, "vic", "vic-password"); strings.Contains(strings.Join(r.header.Values("Set-Cookie"), "\n"), DeviceCookie+"=") {
		t.Fatalf("a known device was given a new cookie: %v", r.header.Values("Set-Cookie"))
	}
	// A known device's password change is not held back either.
	if r := victim.call("POST", "/api/me/password", map[string]string{"current_password": "vic-password", "new_password": "vic-password-2"}); r.status != 200 {
		t.Fatalf("password change: %d %s", r.status, r.raw)
	}
}

// TestBackoffGrowsAndRetryAfterMatches: two free failures, then waits of
// 1 s, 2 s, 4 s; Retry-After and the message say so.
func TestBackoffGrowsAndRetryAfterMatches(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Limits = Limits{LoginFreeFailures: 2} })
	e.user("gus", store.RoleStudent, "gus-password")
	c := e.client()
	const addr = "192.0.2.33"
	for range 3 {
		wantErr(t, c.loginFrom(addr, "gus", "wrong-password"), 401, CodeInvalidCredentials, "")
	}
	for _, wait := range []int{1, 2, 4} {
		wantLimited(t, c.loginFrom(addr, "gus", "gus-password"), wait) // even the right password
		time.Sleep(time.Duration(wait) * time.Second)
		wantErr(t, c.loginFrom(addr, "gus", "wrong-password"), 401, CodeInvalidCredentials, "")
	}
	wantLimited(t, c.loginFrom(addr, "gus", "gus-password"), 8)
	// Other addresses are not held back.
	if r := e.client().loginFrom("192.0.2.34", "gus", "gus-password"); r.status != 200 {
		t.Fatalf("another address: %d %s", r.status, r.raw)
	}
}

// TestTrustedNetworkSkipsTheAddressGuard: a trusted network's address is
// never held back by failures of others from it; any other is.
func TestTrustedNetworkSkipsTheAddressGuard(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Limits = Limits{LoginAddressFreeFailures: 3, TrustedNetworks: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	})
	e.user("hal", store.RoleStudent, "hal-password")
	for _, addr := range []string{"10.1.2.3", "192.0.2.44"} {
		for i := range 5 {
			e.client().loginFrom(addr, fmt.Sprint("nobody", i), "wrong-password")
		}
	}
	if r := e.client().loginFrom("10.1.2.3", "hal", "hal-password"); r.status != 200 {
		t.Fatalf("trusted network: %d %s", r.status, r.raw)
	}
	r := e.client().loginFrom("192.0.2.44", "hal", "hal-password")
	wantLimited(t, r, 0)
	if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "from your address") {
		t.Fatalf("message %q", msg)
	}
}

// TestRegistrationFloodGuard: registrations per address, trusted networks
// exempt; a rejected form does not count.
func TestRegistrationFloodGuard(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Limits = Limits{RegisterPerHour: 3, TrustedNetworks: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	})
	c := e.client()
	reg := func(addr, name string) resp {
		return c.do("POST", "/api/users", map[string]string{"username": name, "password": "password1"}, "X-Forwarded-For", addr)
	}
	for i := range 5 {
		wantErr(t, reg("192.0.2.10", "x"), 400, CodeValidation, "username")
		_ = i
	}
	for i := range 3 {
		if r := reg("192.0.2.10", fmt.Sprint("reg", i)); r.status != 201 {
			t.Fatalf("registration %d: %d %s", i, r.status, r.raw)
		}
	}
	r := reg("192.0.2.10", "reg3")
	wantLimited(t, r, 1200) // one per 20 minutes sustained
	if n := countUsers(t, e); n != 3 {
		t.Fatalf("%d users, want 3", n)
	}
	if r := reg("192.0.2.11", "reg4"); r.status != 201 {
		t.Fatalf("another address: %d %s", r.status, r.raw)
	}
	for i := range 6 {
		if r := reg("10.9.9.9", fmt.Sprint("lab", i)); r.status != 201 {
			t.Fatalf("trusted network registration %d: %d %s", i, r.status, r.raw)
		}
	}
}

// TestSubmitBurst: a quiet user submits a burst at once, then waits one
// interval, not a whole window.
func TestSubmitBurst(t *testing.T) {
	je := newJudgeEnv(t, func(c *Config) { c.SubmitPerMinute, c.SubmitBurst = 6, 10 })
	alice := je.student("alice")
	body := map[string]any{"problem": "a-plus-b", "language": "py3", "source": "print(1)"}
	for i := range 10 {
		if r := alice.submit("b"+strconv.Itoa(i), body); r.status != 201 {
			t.Fatalf("submit %d of the burst: %d %s", i, r.status, r.raw)
		}
	}
	r := alice.submit("b10", body)
	wantLimited(t, r, 10)
}

// TestLoginStorm: 200 logins at once from 200 addresses at a node whose
// password deadline holds a fraction of them. Each is answered in time,
// either 200 or 503 busy with Retry-After (never "unavailable"), and
// retrying after Retry-After everyone gets in.
func TestLoginStorm(t *testing.T) {
	const cost, users = 6, 200
	hash, err := account.HashPassword("storm-password", cost)
	if err != nil {
		t.Fatal(err)
	}
	// Calibrate: a deadline that holds about a quarter of the storm on
	// this machine (the race detector makes bcrypt much slower).
	start := time.Now()
	for range 4 {
		account.CheckPassword(hash, "storm-password")
	}
	one := time.Since(start) / 4
	// The Hasher keeps 250 ms of the deadline for the work after the
	// hash; what is left holds a quarter of the storm's hashing (two
	// slots), however fast this machine is.
	deadline := min(250*time.Millisecond+max(users*one/2/4, 50*time.Millisecond), 4*time.Second)
	e := newEnv(t, func(c *Config) {
		c.PasswordCost = cost
		c.Limits = Limits{HashSlots: 2, PasswordTimeout: deadline}
	})
	for i := range users {
		if _, err := e.st.CreateUser(context.Background(), store.User{Username: fmt.Sprint("storm", i), DisplayName: "x",
			Role: store.RoleStudent, PasswordHash: hash}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("one check %v, deadline %v", one, deadline)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: users}}
	type outcome struct {
		status     int
		code       string
		retryAfter int
		took       time.Duration
	}
	login := func(i int) outcome {
		body, _ := json.Marshal(map[string]string{"username": fmt.Sprint("storm", i), "password": "storm-password"})
		req, _ := http.NewRequest("POST", e.ts.URL+"/api/session", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("198.18.%d.%d", i/250, i%250+1))
		t0 := time.Now()
		res, err := hc.Do(req)
		if err != nil {
			t.Errorf("login %d: %v", i, err)
			return outcome{}
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		o := outcome{status: res.StatusCode, took: time.Since(t0)}
		var eb struct {
			Error struct{ Code string } `json:"error"`
		}
		_ = json.Unmarshal(raw, &eb)
		o.code = eb.Error.Code
		o.retryAfter, _ = strconv.Atoi(res.Header.Get("Retry-After"))
		return o
	}
	// Every client logs in and, told to, retries after Retry-After.
	var wg sync.WaitGroup
	var mu sync.Mutex
	first := map[string]int{}
	tries, maxWait, busy := 0, 0, 0
	for i := range users {
		wg.Go(func() {
			for try := 0; ; try++ {
				if try == 40 {
					t.Errorf("login %d still refused after %d tries", i, try)
					return
				}
				o := login(i)
				mu.Lock()
				tries++
				if try == 0 {
					first[fmt.Sprint(o.status, o.code)]++
				}
				maxWait = max(maxWait, o.retryAfter)
				mu.Unlock()
				if o.took > deadline+time.Second {
					t.Errorf("login %d took %v, past its deadline %v", i, o.took, deadline)
				}
				switch {
				case o.status == 200:
					return
				case o.status == 503 && o.code == CodeBusy && o.retryAfter >= 1:
					mu.Lock()
					busy++
					mu.Unlock()
					time.Sleep(time.Duration(o.retryAfter) * time.Second)
				default:
					t.Errorf("login %d: %d %q Retry-After %d, want 200 or 503 busy with Retry-After", i, o.status, o.code, o.retryAfter)
					return
				}
			}
		})
	}
	wg.Wait()
	refused := e.srv.hasher.Refusals()
	t.Logf("first answers %v; %d requests for %d logins; longest Retry-After %d s; %d busy answers; the hasher refused %d at once, %d after waiting; slowdown %.2f",
		first, tries, users, maxWait, busy, refused.AtOnce, refused.AfterWaiting, e.srv.hasher.Slow())
	// Busy is answered at once, on the hasher's estimate, except when a
	// queued request finds that the estimate was too kind and its hash
	// can no longer finish (still before its deadline). How often that
	// happens depends on how steady the machine is (CI runs this under
	// -race beside other packages): the hasher learns its error
	// (account.Slowdown), and an admission that did not work at all
	// would queue every request to its deadline. Counted by the hasher,
	// not by the client's clock: a refusal at once can still reach a
	// client late when the HTTP work before the hasher waits for a core.
	if refused.AfterWaiting*2 > refused.AtOnce+refused.AfterWaiting {
		t.Errorf("the hasher refused %d logins after waiting and only %d at once", refused.AfterWaiting, refused.AtOnce)
	}
	if first["200"] == 0 {
		t.Fatal("no goodput in the storm")
	}
	if first["503busy"] == 0 {
		t.Fatalf("the storm never exceeded the node (one check %v, deadline %v): the test proves nothing", one, deadline)
	}
}
