// Package settings holds the site settings admins change at run time
// (today: the self-registration policy, account.Registration), stored in
// MySQL and cached in each web node's memory for TTL (default 5 s), so a
// change reaches every node within that time without a query per request.
// The node that makes a change sees it at once. A read that finds the
// cache expired and MySQL down fails (the caller answers 503) rather than
// fall back to a stale policy: a registration closed by an admin must not
// reopen because a database hiccupped.
package settings
