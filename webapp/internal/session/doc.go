// Package session keeps browser sessions in Redis, so any web node can
// serve any request. A session id is 32 random bytes (base64url) that only
// the browser's cookie holds; Redis stores the session under the SHA-256 of
// the id (rkeys Session), so a Redis dump does not reveal live cookies. Each
// session carries its user id and its CSRF token, and expires after TTL
// without use (every successful Get extends it).
package session
