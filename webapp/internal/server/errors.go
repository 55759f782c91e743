package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Error codes of the API. docs/api.md lists them.
const (
	CodeBadRequest         = "bad_request"
	CodeInvalidJSON        = "invalid_json"
	CodeValidation         = "validation"
	CodeUnauthorized       = "unauthorized"
	CodeInvalidCredentials = "invalid_credentials"
	CodeForbidden          = "forbidden"
	CodeCSRF               = "csrf"
	CodeNotFound           = "not_found"
	CodeMethodNotAllowed   = "method_not_allowed"
	CodeConflict           = "conflict"
	CodeTooLarge           = "payload_too_large"
	CodeUnsupportedMedia   = "unsupported_media_type"
	CodeRateLimited        = "rate_limited"
	CodeInternal           = "internal"
	CodeUnavailable        = "unavailable"
)

// APIError is an error the client sees.
type APIError struct {
	Status     int           `json:"-"`
	Code       string        `json:"code"`
	Message    string        `json:"message"`
	Field      string        `json:"field,omitempty"`
	RetryAfter time.Duration `json:"-"`
}

func (e *APIError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func apiErr(status int, code, msg string) *APIError {
	return &APIError{Status: status, Code: code, Message: msg}
}

func fieldErr(status int, code, field, msg string) *APIError {
	return &APIError{Status: status, Code: code, Message: msg, Field: field}
}

var (
	errUnauthorized = apiErr(http.StatusUnauthorized, CodeUnauthorized, "log in first")
	errNotFound     = apiErr(http.StatusNotFound, CodeNotFound, "no such resource")
)

type errorBody struct {
	Error *APIError `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeRawJSON writes a document that is already JSON as it is (a
// published scoreboard of hundreds of kilobytes: re-encoding it per request
// was a third of a web node's CPU in the contest rehearsal).
func writeRawJSON(w http.ResponseWriter, status int, raw json.RawMessage) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(raw)
	if w.Header().Get("Content-Encoding") == "" {
		_, _ = w.Write([]byte("\n"))
	}
}

func writeAPIError(w http.ResponseWriter, e *APIError) {
	if e.RetryAfter > 0 {
		secs := int((e.RetryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	writeJSON(w, e.Status, errorBody{Error: e})
}

// decodeJSON reads one JSON object into v: the body must be
// application/json, within the body limit, without unknown fields,
// duplicate keys or trailing data.
func decodeJSON(r *http.Request, v any) *APIError {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return apiErr(http.StatusUnsupportedMediaType, CodeUnsupportedMedia, "the body must be JSON with Content-Type: application/json")
	}
	body, err := io.ReadAll(r.Body) // bounded by limitBody
	if err != nil {
		return jsonErr(err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonErr(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apiErr(http.StatusBadRequest, CodeInvalidJSON, "the body must hold exactly one JSON object")
	}
	// encoding/json keeps the last of two equal keys (and matches keys
	// case-insensitively): {"role":"student","role":"admin"} must not mean
	// whatever a proxy or a log reader took from the first.
	if k := duplicateKey(body); k != "" {
		return fieldErr(http.StatusBadRequest, CodeInvalidJSON, k, fmt.Sprintf("the key %q appears twice in one object", k))
	}
	return nil
}

// duplicateKey returns a key that appears twice (ignoring case) in one
// object of the valid JSON document b, or "".
func duplicateKey(b []byte) string {
	type frame struct {
		keys    map[string]bool // nil: an array
		wantKey bool
	}
	var stack []frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if n := len(stack); n > 0 && stack[n-1].keys != nil && stack[n-1].wantKey {
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				valueDone()
				continue
			}
			k, _ := tok.(string)
			if stack[n-1].keys[strings.ToLower(k)] {
				return k
			}
			stack[n-1].keys[strings.ToLower(k)], stack[n-1].wantKey = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

func jsonErr(err error) *APIError {
	var mbe *http.MaxBytesError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return apiErr(http.StatusRequestEntityTooLarge, CodeTooLarge, fmt.Sprintf("the body is larger than %d bytes", mbe.Limit))
	case errors.Is(err, io.EOF):
		return apiErr(http.StatusBadRequest, CodeInvalidJSON, "the body is empty")
	case errors.As(err, &se), errors.Is(err, io.ErrUnexpectedEOF):
		return apiErr(http.StatusBadRequest, CodeInvalidJSON, "the body is not valid JSON")
	case errors.As(err, &te):
		return fieldErr(http.StatusBadRequest, CodeValidation, te.Field, "must be of type "+te.Type.String())
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return fieldErr(http.StatusBadRequest, CodeValidation, f, "unknown field")
	}
	return apiErr(http.StatusBadRequest, CodeInvalidJSON, "the body is not a valid JSON object")
}

// Every handler returns its error (s.h adapts it to an http.HandlerFunc)
// and leaves the answer to fail: it writes its success itself and returns
// nil, or writes nothing and returns why not. A stream (the Contest API
// event feed) returns an error only before its status is sent, nil once
// it has begun.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// h adapts fn to the router.
func (s *Server) h(fn handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			s.fail(w, r, err)
		}
	}
}

// errNoAnswer: the client has gone; the request gets no answer.
var errNoAnswer = errors.New("server: the client left")

// statusError is a failure of the server (not of the request) answered
// with a given status: internalErr and unavailableErr make them.
type statusError struct {
	status int
	err    error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// internalErr marks err a bug: fail answers 500 internal, or 503 when
// err is a backing service not answering (unavailable).
func internalErr(err error) error {
	return &statusError{status: http.StatusInternalServerError, err: err}
}

// unavailableErr marks err a backing service failing, answered 503 even
// when it wraps store.ErrNotFound (a row that must exist did not).
func unavailableErr(err error) error {
	return &statusError{status: http.StatusServiceUnavailable, err: err}
}

// bodyError is a refusal whose answer carries more than the error (an
// import's bad lines, say): fail writes body with the error's status.
type bodyError struct {
	e    *APIError
	body any
}

func (e *bodyError) Error() string { return e.e.Error() }
func (e *bodyError) Unwrap() error { return e.e }

// withBody is e answered with body (which holds e) instead of {"error":
// e}.
func withBody(e *APIError, body any) error { return &bodyError{e: e, body: body} }

// fail answers a handler's error as the API does everywhere:
//   - errNoAnswer: nothing (the client left);
//   - a refusal to retry later (a 429, a 503 busy) with Retry-After and
//     retry_after_seconds (writeRetry);
//   - a withBody refusal with its body;
//   - an *APIError anywhere in err's chain is answered as it is;
//   - a statusError (internalErr, unavailableErr) with its status,
//     logged (a 503 with Retry-After: Server.internal);
//   - store.ErrNotFound is 404 not_found;
//   - anything else is a backing service failing: 503 unavailable with
//     Retry-After, logged (Server.internal).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ae *APIError
	var se *statusError
	var re *retryError
	var be *bodyError
	switch {
	case errors.Is(err, errNoAnswer):
	case errors.As(err, &re):
		writeRetry(w, re.e, re.wait)
	case errors.As(err, &be):
		writeJSON(w, be.e.Status, be.body)
	case errors.As(err, &ae):
		writeAPIError(w, ae)
	case errors.As(err, &se):
		s.internal(w, r, se.err, se.status)
	case errors.Is(err, store.ErrNotFound):
		writeAPIError(w, errNotFound)
	default:
		s.internal(w, r, err, http.StatusServiceUnavailable)
	}
}
