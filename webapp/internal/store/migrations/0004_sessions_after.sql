-- 0004: end a user's sessions.
--
-- sessions_after: a session created before this instant is no longer valid
-- (sessions live in Redis, keyed by a random id, so they cannot be listed
-- by user). Set when a password changes (the user's own change, an admin's
-- reset, a CSV import with a password), so that whoever knew the old
-- password is logged out everywhere. NULL: no cut-off.
ALTER TABLE users ADD COLUMN sessions_after DATETIME(3) NULL AFTER disabled;
