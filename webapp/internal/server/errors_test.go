package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/admission"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// fail answers every kind of handler error as the API always has.
func TestFailMapsErrors(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	limited := apiErr(http.StatusTooManyRequests, CodeRateLimited, "slow down")
	limited.RetryAfter = 1500 * time.Millisecond
	for _, tc := range []struct {
		name       string
		err        error
		status     int
		code       string
		retryAfter string
	}{
		{"api error", badField("x", "is wrong"), 400, CodeValidation, ""},
		{"wrapped api error", fmt.Errorf("context: %w", errNotFound), 404, CodeNotFound, ""},
		{"api error with retry", limited, 429, CodeRateLimited, "2"},
		{"not found", fmt.Errorf("store get: %w", store.ErrNotFound), 404, CodeNotFound, ""},
		{"unavailable not found", unavailableErr(fmt.Errorf("store get: %w", store.ErrNotFound)), 503, CodeUnavailable, "1"},
		{"bug", internalErr(errors.New("cannot encode")), 500, CodeInternal, ""},
		{"bug that is a timeout", internalErr(context.DeadlineExceeded), 503, CodeUnavailable, "1"},
		{"anything else", errors.New("connection refused"), 503, CodeUnavailable, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			s.h(func(http.ResponseWriter, *http.Request) error { return tc.err })(w, httptest.NewRequest("GET", "/api/x", nil))
			var body errorBody
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error == nil {
				t.Fatalf("body %q: %v", w.Body.String(), err)
			}
			if w.Code != tc.status || body.Error.Code != tc.code || w.Header().Get("Retry-After") != tc.retryAfter {
				t.Errorf("%d %s Retry-After %q, want %d %s %q", w.Code, body.Error.Code, w.Header().Get("Retry-After"),
					tc.status, tc.code, tc.retryAfter)
			}
		})
	}
	// A node with the admission gate tells a 503 unavailable what the gate
	// tells the shed (here its floor, 3 s), in the header and the body.
	g, err := admission.New(admission.Config{Slots: 4, RetryAfter: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	gated := &Server{log: slog.New(slog.DiscardHandler), gate: g}
	w := httptest.NewRecorder()
	gated.h(func(http.ResponseWriter, *http.Request) error { return context.DeadlineExceeded })(w, httptest.NewRequest("GET", "/api/x", nil))
	var retry struct {
		Error struct {
			Code              string `json:"code"`
			RetryAfterSeconds int    `json:"retry_after_seconds"`
		} `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &retry); err != nil || w.Code != 503 || retry.Error.Code != CodeUnavailable ||
		w.Header().Get("Retry-After") != "3" || retry.Error.RetryAfterSeconds != 3 {
		t.Errorf("gated node: %d Retry-After %q %s (%v), want 503 unavailable with Retry-After 3 and retry_after_seconds 3",
			w.Code, w.Header().Get("Retry-After"), w.Body.String(), err)
	}
	// A handler that answers and returns nil is left alone.
	w = httptest.NewRecorder()
	s.h(func(w http.ResponseWriter, _ *http.Request) error { w.WriteHeader(http.StatusNoContent); return nil })(w,
		httptest.NewRequest("GET", "/api/x", nil))
	if w.Code != http.StatusNoContent || w.Body.Len() != 0 {
		t.Errorf("nil error: %d %q", w.Code, w.Body.String())
	}
}
