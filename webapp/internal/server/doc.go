// Package server is the webapp's HTTP API: the chi router, its middleware
// (request id, access log and metrics, panic recovery, body limit, session
// authentication, CSRF), the JSON error format, the handlers, and Run,
// which serves until its context ends, keeps the node in the live registry
// the edge routes from, and drains gracefully.
//
// The package does HTTP only: decoding, the shape of a request, who may
// call a route (requireUser, onlyStaff, onlyAdmins on the route), and the
// answer. The rules are the services' (judging.Submit, judging.Rejudge,
// catalog, judgetokens, …), and only they reach Redis. Files are grouped
// by resource (auth, problems, contests, scoreboard, submissions, judges,
// users, clarifications, …), each with its _test.go. A handler returns
// error and Server.h answers it (errors.go: an *APIError as it is,
// store.ErrNotFound 404, a backing service failing 503); every handler
// does, the Contest API's event feed (a stream) with an error only
// before its status is sent.
//
// Every failure is JSON: {"error":{"code":"…","message":"…","field":"…"}}.
// Identity always comes from the session cookie, never from the request
// body or URL.
package server
