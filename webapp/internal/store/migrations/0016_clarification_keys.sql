-- 0016: a poster's Idempotency-Key on a clarification (a question or an
-- announcement), so that a POST whose answer was lost (no answer, a 502,
-- 503 or 504 on a loaded machine) can be sent again without posting twice
-- (issue 13: the contest rehearsal; webapp/internal/server handleAsk).
-- NULL for a clarification posted without one: a unique key ignores NULLs.
ALTER TABLE clarifications
  ADD COLUMN idem_key VARCHAR(64) NULL AFTER answered_at,
  ADD UNIQUE KEY uq_clarifications_user_key (user_id, idem_key);
