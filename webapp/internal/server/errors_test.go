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
		{"unavailable not found", unavailableErr(fmt.Errorf("store get: %w", store.ErrNotFound)), 503, CodeUnavailable, ""},
		{"bug", internalErr(errors.New("cannot encode")), 500, CodeInternal, ""},
		{"bug that is a timeout", internalErr(context.DeadlineExceeded), 503, CodeUnavailable, ""},
		{"anything else", errors.New("connection refused"), 503, CodeUnavailable, ""},
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
	// A handler that answers and returns nil is left alone.
	w := httptest.NewRecorder()
	s.h(func(w http.ResponseWriter, _ *http.Request) error { w.WriteHeader(http.StatusNoContent); return nil })(w,
		httptest.NewRequest("GET", "/api/x", nil))
	if w.Code != http.StatusNoContent || w.Body.Len() != 0 {
		t.Errorf("nil error: %d %q", w.Code, w.Body.String())
	}
}
