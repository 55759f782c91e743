-- 0014: staff edits of the awards, and finalising a contest (issue 19,
-- docs/icpc.md "Awards" and "Finalizing").
--
-- contest_award_edits: per award (its CLICS id: gold-medal,
-- first-to-solve-17, or an award of staff's own), on top of the
-- computed awards: teams added (JSON array of CLICS team ids), teams
-- removed, and a citation that replaces the computed one (NULL: keep
-- it). No row: the award as computed.
--
-- contests.finalized_at: when an admin finalised the results (the CLICS
-- state's finalized; the awards are published and no longer editable);
-- finalized_by and finalize_comment ("Finalized by …") say who and why.
ALTER TABLE contests
  ADD COLUMN finalized_at DATETIME(3) NULL,
  ADD COLUMN finalized_by BIGINT NULL,
  ADD COLUMN finalize_comment VARCHAR(255) NOT NULL DEFAULT '';

CREATE TABLE contest_award_edits (
  contest_id BIGINT       NOT NULL,
  award_id   VARCHAR(64)  NOT NULL,
  citation   VARCHAR(255) NULL,
  add_teams  JSON         NOT NULL,
  remove_teams JSON       NOT NULL,
  updated_by BIGINT       NULL,
  updated_at DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  PRIMARY KEY (contest_id, award_id),
  CONSTRAINT fk_contest_award_edits_contest FOREIGN KEY (contest_id) REFERENCES contests (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
