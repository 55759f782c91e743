// Package server is the webapp's HTTP API: the chi router, its middleware
// (request id, access log and metrics, panic recovery, body limit, session
// authentication, CSRF), the JSON error format, the handlers, and Run,
// which serves until its context ends, keeps the node in the live registry
// the edge routes from, and drains gracefully.
//
// Every failure is JSON: {"error":{"code":"…","message":"…","field":"…"}}.
// Identity always comes from the session cookie, never from the request
// body or URL.
package server
