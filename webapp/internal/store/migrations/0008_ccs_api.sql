-- 0008: the ICPC Contest API (issue 19, docs/icpc.md).
--
-- api_tokens: personal tokens for tools (the resolver, a CDS) that do not
-- do cookie + CSRF logins. Only the SHA-256 of a token is stored; scope
-- 'read' sees what the owner sees minus staff data, 'staff' what a staff
-- owner sees (a 'staff' token of a user who is no longer staff reads as
-- 'read'). A revoked token stays listed, unusable.
--
-- contests.penalty_minutes / penalty_verdicts: the ICPC penalty per
-- rejected try before the accepted one, and which verdicts count as a
-- try ('' = the default: every rejected verdict but CE and SE; else a
-- comma-separated list of verdict codes, e.g. 'WA,TLE,RE').
CREATE TABLE api_tokens (
  id           BIGINT       NOT NULL AUTO_INCREMENT,
  user_id      BIGINT       NOT NULL,
  name         VARCHAR(64)  NOT NULL,
  scope        ENUM('read','staff') NOT NULL DEFAULT 'read',
  token_hash   BINARY(32)   NOT NULL,
  created_at   DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  revoked_at   DATETIME(3)  NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uk_api_tokens_hash (token_hash),
  KEY ix_api_tokens_user (user_id, id),
  CONSTRAINT fk_api_tokens_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

ALTER TABLE contests
  ADD COLUMN penalty_minutes INT UNSIGNED NOT NULL DEFAULT 20 AFTER freeze_minutes,
  ADD COLUMN penalty_verdicts VARCHAR(128) NOT NULL DEFAULT '' AFTER penalty_minutes;
