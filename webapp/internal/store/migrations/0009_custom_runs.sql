-- 0009: custom runs ("run on my input", issue 17, docs/api.md).
--
-- contests.custom_runs: whether contestants may make custom runs inside
-- the contest (on by default; staff turn it off, e.g. for an exam). Custom
-- runs themselves are not stored in MySQL: they live in Redis with a TTL
-- (internal/queue/custom.go) and are never submissions.
ALTER TABLE contests
  ADD COLUMN custom_runs BOOLEAN NOT NULL DEFAULT TRUE;
