-- 0002: judging. Scores become fractional (a special checker may award
-- partial points), the per-user solved problems are recorded (the
-- statistics), and a contest's frozen scoreboard can be revealed.

ALTER TABLE submissions MODIFY score DOUBLE NOT NULL DEFAULT 0;

ALTER TABLE submission_cases MODIFY score DOUBLE NOT NULL DEFAULT 0;

-- One row per (user, problem) the user has solved: first_ac_id is the
-- earliest accepted submission. Kept in step with submissions by the result
-- consumer and by rejudges, in the same transaction as the submission's
-- verdict, so a user's solved count is COUNT(*) WHERE user_id = ? and a
-- problem's is COUNT(*) WHERE problem_id = ?.
CREATE TABLE problem_solves (
  user_id     BIGINT      NOT NULL,
  problem_id  BIGINT      NOT NULL,
  first_ac_id BIGINT      NOT NULL,
  solved_at   DATETIME(3) NOT NULL,
  PRIMARY KEY (user_id, problem_id),
  KEY ix_problem_solves_problem (problem_id, user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- NULL while the public scoreboard obeys the freeze; set by an admin's
-- unfreeze, after which the public board shows every result.
ALTER TABLE contests ADD COLUMN unfrozen_at DATETIME(3) NULL;
