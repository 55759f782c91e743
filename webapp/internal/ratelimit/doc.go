// Package ratelimit counts events per subject in fixed windows in Redis,
// shared by every web node (rkeys RateLimit keys): login failures per
// account and per client address, later submissions per user.
package ratelimit
