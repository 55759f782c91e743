package harness

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/netip"
	"net/url"
	"strconv"
	"time"
)

// SessionCookie is the web nodes' session cookie (the hub reads it too).
const SessionCookie = "verdict_session"

// ErrStatus is wrapped when the API answers an unexpected status.
var ErrStatus = errors.New("harness: unexpected status")

// Client is a logged-in browser session against the API, through nginx.
type Client struct {
	base   string
	hc     *http.Client // with a timeout, for the API
	stream *http.Client // same transport, no timeout (WebSockets)
	csrf   string
	user   User
}

// User is the logged-in user as POST /api/session answers it.
type User struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
	Role     string `json:"role"`
}

// Transport returns an HTTP transport whose connections come from the
// loopback address from (the zero Addr: the kernel's choice), keeping up
// to idle idle connections per host.
func Transport(from netip.Addr, idle int) *http.Transport {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if from.IsValid() {
		d.LocalAddr = &net.TCPAddr{IP: from.AsSlice()}
	}
	return &http.Transport{
		DialContext:         d.DialContext,
		MaxIdleConns:        idle,
		MaxIdleConnsPerHost: idle,
		IdleConnTimeout:     90 * time.Second,
	}
}

// Login posts /api/session and keeps the cookie and the CSRF token.
func Login(ctx context.Context, base, user, pass string) (*Client, error) {
	return LoginFrom(ctx, base, user, pass, netip.Addr{})
}

// LoginFrom is Login over connections from the loopback address from, so
// that nginx's per-address limits (limit_req on log in and submit) count
// this browser on its own.
func LoginFrom(ctx context.Context, base, user, pass string, from netip.Addr) (*Client, error) {
	c := NewClient(base, from)
	a, err := c.Login(ctx, user, pass)
	if err != nil {
		return nil, err
	}
	if a.Status != http.StatusOK {
		return nil, fmt.Errorf("harness: login %s: %w %d: %s %s", user, ErrStatus, a.Status, a.Code, a.Message)
	}
	return c, nil
}

// NewClient is a browser without a session yet whose connections come
// from the loopback address from (the zero Addr: any).
func NewClient(base string, from netip.Addr) *Client {
	jar, _ := cookiejar.New(nil)
	tr := Transport(from, 8)
	return &Client{base: base,
		hc:     &http.Client{Jar: jar, Timeout: 20 * time.Second, Transport: tr},
		stream: &http.Client{Jar: jar, Transport: tr},
	}
}

// Answer is a request's outcome as a browser sees it: the status (0 on a
// transport error), the API's error code and message, and Retry-After.
type Answer struct {
	Status        int
	Code, Message string
	RetryAfter    time.Duration
}

// Retryable says whether a browser retries the request after RetryAfter
// (or a short pause): a transport error, 429, 502, 503 or 504.
func (a Answer) Retryable() bool {
	return Retryable(Attempt{Status: a.Status})
}

// Login posts /api/session once. On 200 the client keeps the cookie and
// the CSRF token; any other status is in the Answer, not an error.
func (c *Client) Login(ctx context.Context, user, pass string) (Answer, error) {
	body, _ := json.Marshal(map[string]string{"username": user, "password": pass})
	code, h, raw, err := c.DoHeader(ctx, http.MethodPost, "/api/session", body, nil)
	if err != nil {
		return Answer{Message: err.Error()}, nil
	}
	a := answer(code, h, raw)
	if code != http.StatusOK {
		return a, nil
	}
	var out struct {
		User User   `json:"user"`
		CSRF string `json:"csrf_token"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.CSRF == "" {
		return a, fmt.Errorf("harness: login %s: no csrf token in %s", user, raw)
	}
	c.csrf, c.user = out.CSRF, out.User
	return a, nil
}

// answer reads the status, the API error and Retry-After of a response.
func answer(code int, h http.Header, raw []byte) Answer {
	a := Answer{Status: code}
	if code >= 200 && code < 300 {
		return a
	}
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Error.Code != "" {
		a.Code, a.Message = e.Error.Code, e.Error.Message
	} else {
		a.Code = "not-json"
		a.Message = string(bytes.TrimSpace(raw))
		if len(a.Message) > 80 {
			a.Message = a.Message[:80]
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			a.RetryAfter = time.Duration(n) * time.Second
		}
	}
	return a
}

// Request sends one request with the session and the CSRF token and
// returns the browser's view of the outcome and the body. A transport
// error is an Answer with Status 0, not an error.
func (c *Client) Request(ctx context.Context, method, path string, body []byte, hdr map[string]string) (Answer, []byte) {
	code, h, raw, err := c.DoHeader(ctx, method, path, body, hdr)
	if err != nil {
		return Answer{Message: err.Error()}, nil
	}
	return answer(code, h, raw), raw
}

// User is who the client is logged in as.
func (c *Client) User() User { return c.user }

// Base is the URL the client talks to (nginx), without a trailing slash.
func (c *Client) Base() string { return c.base }

// HTTP is the client's HTTP client (cookie jar, source address, a 20 s
// timeout).
func (c *Client) HTTP() *http.Client { return c.hc }

// Cookie returns the session cookie, nil when there is none.
func (c *Client) Cookie() *http.Cookie {
	u, err := url.Parse(c.base + "/")
	if err != nil || c.hc.Jar == nil {
		return nil
	}
	for _, ck := range c.hc.Jar.Cookies(u) {
		if ck.Name == SessionCookie {
			return ck
		}
	}
	return nil
}

// Do sends one request with the session and the CSRF token and returns the
// status and the body. A JSON body gets Content-Type application/json
// unless hdr sets another.
func (c *Client) Do(ctx context.Context, method, path string, body []byte, hdr map[string]string) (int, []byte, error) {
	code, _, raw, err := c.DoHeader(ctx, method, path, body, hdr)
	return code, raw, err
}

// DoHeader is Do that also returns the response's header.
func (c *Client) DoHeader(ctx context.Context, method, path string, body []byte, hdr map[string]string) (int, http.Header, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.csrf != "" {
		req.Header.Set("X-CSRF-Token", c.csrf)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err == nil && (resp.StatusCode < 200 || resp.StatusCode > 299) && resp.Header.Get("Content-Encoding") == "gzip" {
		// A caller that asked for gzip itself gets a success's body as
		// sent; an error's is read for its code.
		if zr, zerr := gzip.NewReader(bytes.NewReader(raw)); zerr == nil {
			if plain, zerr := io.ReadAll(zr); zerr == nil {
				raw = plain
			}
		}
	}
	return resp.StatusCode, resp.Header, raw, err
}

// CloseIdle closes the client's idle connections (a browser tab closed).
func (c *Client) CloseIdle() { c.hc.CloseIdleConnections() }

// Call sends in (JSON, or nil for no body) and decodes a 2xx answer into
// out (when not nil); any other status is an error wrapping ErrStatus with
// the API's message.
func (c *Client) Call(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("harness: %s %s: %w", method, path, err)
		}
	}
	return c.send(ctx, method, path, body, nil, out)
}

// Upload posts raw bytes with the given content type (test data zips, user
// CSV) and decodes a 2xx answer into out. Like a browser it waits for as
// long as the web node works on the upload (its own upload timeout, 5
// minutes by default), not the API's 20 s.
func (c *Client) Upload(ctx context.Context, path, contentType string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 6*time.Minute)
	defer cancel()
	long := &Client{base: c.base, hc: c.stream, stream: c.stream, csrf: c.csrf, user: c.user}
	return long.send(ctx, http.MethodPost, path, body, map[string]string{"Content-Type": contentType}, out)
}

func (c *Client) send(ctx context.Context, method, path string, body []byte, hdr map[string]string, out any) error {
	code, raw, err := c.Do(ctx, method, path, body, hdr)
	if err != nil {
		return fmt.Errorf("harness: %s %s: %w", method, path, err)
	}
	if code < 200 || code > 299 {
		return fmt.Errorf("harness: %s %s: %w %d: %s", method, path, ErrStatus, code, bytes.TrimSpace(raw))
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("harness: %s %s: %w", method, path, err)
		}
	}
	return nil
}

// Submission is what the browser posts.
type Submission struct {
	Problem  string `json:"problem"`
	Contest  string `json:"contest,omitempty"`
	Language string `json:"language"`
	Source   string `json:"source"`
}

// Attempt is one POST of a submit: the status (0 on a transport error) and
// the error message the API gave.
type Attempt struct {
	Status  int
	Message string
}

// Submit posts one submission once with the given idempotency key.
func (c *Client) Submit(ctx context.Context, key string, s Submission) (int64, Attempt, error) {
	body, _ := json.Marshal(s)
	code, raw, err := c.Do(ctx, http.MethodPost, "/api/submissions", body, map[string]string{"Idempotency-Key": key})
	if err != nil {
		return 0, Attempt{Message: err.Error()}, err
	}
	a := Attempt{Status: code}
	if code != http.StatusOK && code != http.StatusCreated {
		var e struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		a.Message = e.Error.Code + ": " + e.Error.Message
		if e.Error.Code == "" {
			a.Message = string(bytes.TrimSpace(raw))
		}
		return 0, a, fmt.Errorf("submit: status %d: %s", code, a.Message)
	}
	var out struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.ID == 0 {
		return 0, a, fmt.Errorf("submit: no id in %s", raw)
	}
	return out.ID, a, nil
}

// Retryable says whether a browser should retry a submit with the same key:
// a transport error, a gateway error, 503, or nginx's 429.
func Retryable(a Attempt) bool {
	return a.Status == 0 || a.Status == http.StatusBadGateway || a.Status == http.StatusTooManyRequests ||
		a.Status == http.StatusServiceUnavailable || a.Status == http.StatusGatewayTimeout
}

// SubmitRetry submits with one idempotency key, retrying as the frontend
// does (same key, 200 ms apart) until it gets an id or within passes.
func (c *Client) SubmitRetry(ctx context.Context, key string, s Submission, within time.Duration) (int64, []Attempt, error) {
	var tries []Attempt
	deadline := time.Now().Add(within)
	for {
		id, a, err := c.Submit(ctx, key, s)
		tries = append(tries, a)
		if err == nil {
			return id, tries, nil
		}
		if !Retryable(a) || time.Now().After(deadline) || ctx.Err() != nil {
			return 0, tries, err
		}
		if a.Status == http.StatusTooManyRequests {
			time.Sleep(time.Second) // nginx's limit_req: the browser waits too
		} else {
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// NewKey is a fresh idempotency key, as the frontend makes per click.
func NewKey() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// GetJSON gets url without a session and decodes a 200 answer into v.
func GetJSON(ctx context.Context, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("harness: GET %s: %w %s", url, ErrStatus, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// GetJSON gets a path with the session.
func (c *Client) GetJSON(ctx context.Context, path string, v any) error {
	code, raw, err := c.Do(ctx, http.MethodGet, path, nil, nil)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("GET %s: %d: %s", path, code, raw)
	}
	return json.Unmarshal(raw, v)
}
