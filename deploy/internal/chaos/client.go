package chaos

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"time"
)

// Client is a logged-in browser session against the API, through nginx.
type Client struct {
	base string
	hc   *http.Client
	csrf string
}

// Login posts /api/session and keeps the cookie and the CSRF token.
func Login(ctx context.Context, base, user, pass string) (*Client, error) {
	jar, _ := cookiejar.New(nil)
	c := &Client{base: base, hc: &http.Client{Jar: jar, Timeout: 20 * time.Second}}
	body, _ := json.Marshal(map[string]string{"username": user, "password": pass})
	var out struct {
		CSRF string `json:"csrf_token"`
	}
	code, raw, err := c.do(ctx, http.MethodPost, "/api/session", body, nil)
	if err != nil {
		return nil, fmt.Errorf("chaos: login: %w", err)
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("chaos: login: status %d: %s", code, raw)
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.CSRF == "" {
		return nil, fmt.Errorf("chaos: login: no csrf token in %s", raw)
	}
	c.csrf = out.CSRF
	return c, nil
}

func (c *Client) do(ctx context.Context, method, path string, body []byte, hdr map[string]string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
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
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
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
	code, raw, err := c.do(ctx, http.MethodPost, "/api/submissions", body, map[string]string{"Idempotency-Key": key})
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

// retryable says whether a browser should retry a submit with the same key:
// a transport error, a gateway error, 503, or nginx's 429.
func retryable(a Attempt) bool {
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
		if !retryable(a) || time.Now().After(deadline) || ctx.Err() != nil {
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

func getJSON(ctx context.Context, url string, v any) error {
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
		return errors.New(resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// GetJSON gets a path with the session.
func (c *Client) GetJSON(ctx context.Context, path string, v any) error {
	code, raw, err := c.do(ctx, http.MethodGet, path, nil, nil)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("GET %s: %d: %s", path, code, raw)
	}
	return json.Unmarshal(raw, v)
}
