-- 0003: contest clarifications and announcements.
--
-- A clarification is a participant's question (question NOT NULL, user_id
-- the asker) that staff answer, privately or for everyone (public = 1). An
-- announcement is a staff-created public entry without a question: question
-- IS NULL, the text in answer, user_id the author. problem_id is optional
-- (a general question). Hot queries:
--   everything of a contest (staff)          ix_clarifications_contest (contest_id, id)
--   public ones of a contest, or one asker's  ix_clarifications_contest_public (contest_id, public, id)
--                                             ix_clarifications_contest_user (contest_id, user_id, id)
CREATE TABLE clarifications (
  id          BIGINT        NOT NULL AUTO_INCREMENT,
  contest_id  BIGINT        NOT NULL,
  user_id     BIGINT        NULL,
  problem_id  BIGINT        NULL,
  question    TEXT          NULL,
  answer      TEXT          NULL,
  public      TINYINT(1)    NOT NULL DEFAULT 0,
  answered_by BIGINT        NULL,
  created_at  DATETIME(3)   NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  answered_at DATETIME(3)   NULL,
  PRIMARY KEY (id),
  KEY ix_clarifications_contest (contest_id, id),
  KEY ix_clarifications_contest_public (contest_id, public, id),
  KEY ix_clarifications_contest_user (contest_id, user_id, id),
  CONSTRAINT fk_clarifications_contest FOREIGN KEY (contest_id) REFERENCES contests (id) ON DELETE CASCADE,
  CONSTRAINT fk_clarifications_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE SET NULL,
  CONSTRAINT fk_clarifications_problem FOREIGN KEY (problem_id) REFERENCES problems (id) ON DELETE SET NULL,
  CONSTRAINT fk_clarifications_answered_by FOREIGN KEY (answered_by) REFERENCES users (id) ON DELETE SET NULL,
  CONSTRAINT ck_clarifications_content CHECK (question IS NOT NULL OR answer IS NOT NULL)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
