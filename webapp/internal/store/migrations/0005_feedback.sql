-- 0005: feedback policy, what a contestant may see of a result (see
-- internal/feedback): per contest, and per problem for practice.
--
-- full: every case's verdict, time and memory, checker messages of sample
-- cases only; first_failure: the verdict and the first failing case's
-- number and verdict; score_only: the score and per-case verdicts without
-- messages; closed: "submitted" only until the contest ends, then
-- feedback_after. Staff always see everything. Which cases are samples is
-- in the test data's manifest ("sample": true).
ALTER TABLE contests
  ADD COLUMN feedback ENUM('full','first_failure','score_only','closed') NOT NULL DEFAULT 'full' AFTER registration,
  ADD COLUMN feedback_after ENUM('full','first_failure','score_only') NOT NULL DEFAULT 'full' AFTER feedback;

ALTER TABLE problems
  ADD COLUMN feedback ENUM('full','first_failure','score_only') NOT NULL DEFAULT 'full' AFTER visibility;
