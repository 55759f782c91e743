-- 0001: the initial schema. Every table is InnoDB, utf8mb4.
--
-- Submissions and their per-case results are partitioned by RANGE of the
-- submission id (the id grows with time, so old partitions go cold and can be
-- archived or dropped whole). MySQL requires every unique key of a
-- partitioned table to contain the partitioning column and forbids foreign
-- keys on it, so:
--   * submissions has PRIMARY KEY (id) and no other unique key;
--   * the per-user idempotency key of a submission lives in submission_keys
--     (PRIMARY KEY (user_id, idem_key)), inserted in the same transaction as
--     the submission: a duplicate key fails that insert and the caller
--     returns the submission the key already points to;
--   * submission and case rows reference users/problems/contests by id
--     without FOREIGN KEY constraints; the application keeps them consistent.
-- Partitions hold 1,000,000 ids each; pmax catches anything beyond the last
-- named partition so an insert never fails, and the partition job splits
-- pmax (REORGANIZE PARTITION) before ids reach it.

CREATE TABLE users (
  id            BIGINT       NOT NULL AUTO_INCREMENT,
  username      VARCHAR(32)  NOT NULL,
  display_name  VARCHAR(64)  NOT NULL DEFAULT '',
  email         VARCHAR(254) NULL,
  role          ENUM('admin','setter','student') NOT NULL DEFAULT 'student',
  password_hash VARCHAR(100) NOT NULL,
  disabled      TINYINT(1)   NOT NULL DEFAULT 0,
  created_at    DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  UNIQUE KEY uk_users_username (username),
  UNIQUE KEY uk_users_email (email)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE problems (
  id              BIGINT       NOT NULL AUTO_INCREMENT,
  slug            VARCHAR(64)  NOT NULL,
  title           VARCHAR(200) NOT NULL,
  statement       MEDIUMTEXT   NOT NULL,
  time_limit_ms   INT UNSIGNED NOT NULL DEFAULT 1000,
  memory_limit_kb INT UNSIGNED NOT NULL DEFAULT 262144,
  checker         ENUM('exact','default','float','special') NOT NULL DEFAULT 'default',
  float_tolerance DOUBLE       NOT NULL DEFAULT 0,
  mode            ENUM('icpc','ioi') NOT NULL DEFAULT 'icpc',
  visibility      ENUM('public','private','contest-only') NOT NULL DEFAULT 'private',
  -- JSON array of language ids (protocol.Language.ID); [] allows every
  -- language a live judge advertises.
  languages       JSON         NOT NULL,
  testdata_hash   CHAR(64)     NULL,
  created_by      BIGINT       NULL,
  created_at      DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  updated_at      DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  UNIQUE KEY uk_problems_slug (slug),
  KEY ix_problems_visibility (visibility, id),
  CONSTRAINT fk_problems_created_by FOREIGN KEY (created_by) REFERENCES users (id) ON DELETE SET NULL,
  CONSTRAINT ck_problems_languages CHECK (JSON_VALID(languages))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE testdata_versions (
  id          BIGINT      NOT NULL AUTO_INCREMENT,
  problem_id  BIGINT      NOT NULL,
  hash        CHAR(64)    NOT NULL,
  size_bytes  BIGINT      NOT NULL,
  case_count  INT         NOT NULL,
  manifest    JSON        NOT NULL,
  uploaded_by BIGINT      NULL,
  created_at  DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  UNIQUE KEY uk_testdata_problem_hash (problem_id, hash),
  CONSTRAINT fk_testdata_problem FOREIGN KEY (problem_id) REFERENCES problems (id) ON DELETE CASCADE,
  CONSTRAINT fk_testdata_uploaded_by FOREIGN KEY (uploaded_by) REFERENCES users (id) ON DELETE SET NULL,
  CONSTRAINT ck_testdata_manifest CHECK (JSON_VALID(manifest))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE contests (
  id             BIGINT       NOT NULL AUTO_INCREMENT,
  slug           VARCHAR(64)  NOT NULL,
  title          VARCHAR(200) NOT NULL,
  description    MEDIUMTEXT   NOT NULL,
  rule           ENUM('icpc','ioi') NOT NULL DEFAULT 'icpc',
  start_at       DATETIME(3)  NOT NULL,
  end_at         DATETIME(3)  NOT NULL,
  freeze_minutes INT UNSIGNED NOT NULL DEFAULT 0,
  registration   ENUM('open','list') NOT NULL DEFAULT 'open',
  visible        TINYINT(1)   NOT NULL DEFAULT 1,
  created_by     BIGINT       NULL,
  created_at     DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  updated_at     DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  UNIQUE KEY uk_contests_slug (slug),
  KEY ix_contests_visible_start (visible, start_at),
  CONSTRAINT fk_contests_created_by FOREIGN KEY (created_by) REFERENCES users (id) ON DELETE SET NULL,
  CONSTRAINT ck_contests_window CHECK (end_at > start_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE contest_problems (
  contest_id BIGINT       NOT NULL,
  problem_id BIGINT       NOT NULL,
  label      VARCHAR(8)   NOT NULL,
  points     INT UNSIGNED NOT NULL DEFAULT 100,
  PRIMARY KEY (contest_id, problem_id),
  UNIQUE KEY uk_contest_problems_label (contest_id, label),
  KEY ix_contest_problems_problem (problem_id),
  CONSTRAINT fk_contest_problems_contest FOREIGN KEY (contest_id) REFERENCES contests (id) ON DELETE CASCADE,
  CONSTRAINT fk_contest_problems_problem FOREIGN KEY (problem_id) REFERENCES problems (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE contest_participants (
  contest_id    BIGINT      NOT NULL,
  user_id       BIGINT      NOT NULL,
  registered_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (contest_id, user_id),
  KEY ix_contest_participants_user (user_id),
  CONSTRAINT fk_contest_participants_contest FOREIGN KEY (contest_id) REFERENCES contests (id) ON DELETE CASCADE,
  CONSTRAINT fk_contest_participants_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- verdict holds a protocol.Verdict: a status while unjudged ("pending",
-- "queued", "compiling", "judging") or an outcome ("AC", "WA", ...).
-- Hot queries and their indexes (ids grow with time, so "by time" is "by id"
-- and cursor pagination is "id < cursor ORDER BY id DESC"):
--   a user's submissions        ix_submissions_user     (user_id, id)
--   a problem's submissions     ix_submissions_problem  (problem_id, id)
--   a contest's submissions     ix_submissions_contest  (contest_id, id)
--   one user in one contest     ix_submissions_contest_user (contest_id, user_id, id)
--   the reconciler's queued rows ix_submissions_verdict (verdict, id)
CREATE TABLE submissions (
  id              BIGINT            NOT NULL AUTO_INCREMENT,
  user_id         BIGINT            NOT NULL,
  problem_id      BIGINT            NOT NULL,
  contest_id      BIGINT            NULL,
  language        VARCHAR(32)       NOT NULL,
  source          MEDIUMTEXT        NOT NULL,
  verdict         VARCHAR(16)       NOT NULL DEFAULT 'pending',
  score           INT               NOT NULL DEFAULT 0,
  time_ms         INT UNSIGNED      NULL,
  memory_kb       INT UNSIGNED      NULL,
  attempt         SMALLINT UNSIGNED NOT NULL DEFAULT 1,
  judge_id        VARCHAR(64)       NULL,
  testdata_hash   CHAR(64)          NULL,
  compile_message TEXT              NULL,
  created_at      DATETIME(3)       NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  judged_at       DATETIME(3)       NULL,
  PRIMARY KEY (id),
  KEY ix_submissions_user (user_id, id),
  KEY ix_submissions_problem (problem_id, id),
  KEY ix_submissions_contest (contest_id, id),
  KEY ix_submissions_contest_user (contest_id, user_id, id),
  KEY ix_submissions_verdict (verdict, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
PARTITION BY RANGE (id) (
  PARTITION p0 VALUES LESS THAN (1000000),
  PARTITION p1 VALUES LESS THAN (2000000),
  PARTITION p2 VALUES LESS THAN (3000000),
  PARTITION p3 VALUES LESS THAN (4000000),
  PARTITION pmax VALUES LESS THAN MAXVALUE
);

-- The idempotency key of a submission, unique per user (see above).
CREATE TABLE submission_keys (
  user_id       BIGINT      NOT NULL,
  idem_key      VARCHAR(64) NOT NULL,
  submission_id BIGINT      NOT NULL,
  created_at    DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (user_id, idem_key),
  KEY ix_submission_keys_created (created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE submission_cases (
  submission_id BIGINT        NOT NULL,
  case_index    INT UNSIGNED  NOT NULL,
  verdict       VARCHAR(16)   NOT NULL,
  time_ms       INT UNSIGNED  NOT NULL DEFAULT 0,
  memory_kb     INT UNSIGNED  NOT NULL DEFAULT 0,
  score         INT           NOT NULL DEFAULT 0,
  message       VARCHAR(1024) NOT NULL DEFAULT '',
  PRIMARY KEY (submission_id, case_index)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
PARTITION BY RANGE (submission_id) (
  PARTITION p0 VALUES LESS THAN (1000000),
  PARTITION p1 VALUES LESS THAN (2000000),
  PARTITION p2 VALUES LESS THAN (3000000),
  PARTITION p3 VALUES LESS THAN (4000000),
  PARTITION pmax VALUES LESS THAN MAXVALUE
);

-- Judge agents. token_hash is SHA-256 of the judge's random 32-byte token:
-- the token has full entropy, so a fast hash is enough and lets the hub look
-- a judge up by hash.
CREATE TABLE judges (
  id           BIGINT      NOT NULL AUTO_INCREMENT,
  name         VARCHAR(64) NOT NULL,
  token_hash   BINARY(32)  NOT NULL,
  created_at   DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  revoked_at   DATETIME(3) NULL,
  last_seen_at DATETIME(3) NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uk_judges_name (name),
  UNIQUE KEY uk_judges_token_hash (token_hash)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
