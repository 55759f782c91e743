// Package session keeps browser sessions in Redis, so any web node can
// serve any request, and publishes each user's session epoch there for the
// hubs. A session id is 32 random bytes (base64url) that only the
// browser's cookie holds; the session's shape in Redis (key, fields,
// roles, the epoch rule that ends it) belongs to internal/session, which
// the hubs read it with. Each session carries its user id, role, CSRF
// token and the user's session epoch at login, and expires after TTL
// without use (every successful Get extends it).
package session
