-- 0007: staff tools (issue 15): what contestants see of others on the
-- status page, and the jury's hand-set verdicts.
--
-- contests.status_visibility: 'own' (a contestant lists only their own
-- submissions of the contest) or 'all' (everyone's verdicts, through the
-- feedback policy, never the source). Staff always see every row.
ALTER TABLE contests
  ADD COLUMN status_visibility ENUM('own','all') NOT NULL DEFAULT 'own' AFTER feedback_after;

-- submission_overrides: the audit of jury overrides, one row per change,
-- never updated or deleted (a rejudge supersedes the verdict, not the
-- record). submissions holds the verdict in force.
CREATE TABLE submission_overrides (
  id            BIGINT        NOT NULL AUTO_INCREMENT,
  submission_id BIGINT        NOT NULL,
  user_id       BIGINT        NULL,
  old_verdict   VARCHAR(16)   NOT NULL,
  new_verdict   VARCHAR(16)   NOT NULL,
  old_score     DOUBLE        NOT NULL,
  new_score     DOUBLE        NOT NULL,
  reason        VARCHAR(1000) NOT NULL,
  created_at    DATETIME(3)   NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  KEY ix_submission_overrides_submission (submission_id, id),
  CONSTRAINT fk_overrides_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE SET NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
