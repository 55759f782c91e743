-- 0013: statement images and attachments (issue 17, docs/problems.md).
--
-- problem_assets: the files a problem's statement shows (images) or
-- offers for download (attachments: ICPC attachments/, a testing tool),
-- kept from its package. The bytes are a blob (content-addressed, the
-- same store as test data); the statement links an image as
-- asset:<name>, which the web node turns into
-- /api/problems/<slug>/assets/<name> when it shows the statement.
CREATE TABLE problem_assets (
  problem_id   BIGINT       NOT NULL,
  name         VARCHAR(255) NOT NULL,
  kind         ENUM('image','attachment') NOT NULL,
  hash         CHAR(64)     NOT NULL,
  size_bytes   BIGINT       NOT NULL,
  created_at   DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (problem_id, name),
  CONSTRAINT fk_problem_assets_problem FOREIGN KEY (problem_id) REFERENCES problems (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
