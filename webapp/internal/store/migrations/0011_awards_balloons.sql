-- 0011: awards and balloons (issue 19, docs/icpc.md).
--
-- contest_award_settings: a contest's medal counts and honourable-mention
-- rule (no row = the defaults: 4 gold, 4 silver, 4 bronze, teams below
-- the median team unranked).
--
-- contest_problem_colors: each problem's balloon colour, a name and an
-- RGB '#rrggbb' (the CLICS problem object's color and rgb). Kept apart
-- from contest_problems, which a contest update rewrites.
--
-- balloons: the "delivered" marks staff toggle on the balloon page. The
-- balloons themselves are not stored: they are the board's first
-- accepted submissions. team is the scoreboard row's CLICS team id (a
-- user's id in an individual contest, a team's ext_id in a team one).
CREATE TABLE contest_award_settings (
  contest_id             BIGINT       NOT NULL,
  gold_medals            INT UNSIGNED NOT NULL DEFAULT 4,
  silver_medals          INT UNSIGNED NOT NULL DEFAULT 4,
  bronze_medals          INT UNSIGNED NOT NULL DEFAULT 4,
  honorable_below_median BOOLEAN      NOT NULL DEFAULT TRUE,
  PRIMARY KEY (contest_id),
  CONSTRAINT fk_contest_award_settings_contest FOREIGN KEY (contest_id) REFERENCES contests (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE contest_problem_colors (
  contest_id BIGINT      NOT NULL,
  problem_id BIGINT      NOT NULL,
  color      VARCHAR(64) NOT NULL,
  rgb        CHAR(7)     NOT NULL,
  PRIMARY KEY (contest_id, problem_id),
  CONSTRAINT fk_contest_problem_colors_contest FOREIGN KEY (contest_id) REFERENCES contests (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE balloons (
  contest_id   BIGINT      NOT NULL,
  team         VARCHAR(64) NOT NULL,
  problem_id   BIGINT      NOT NULL,
  delivered_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  delivered_by BIGINT      NULL,
  PRIMARY KEY (contest_id, team, problem_id),
  CONSTRAINT fk_balloons_contest FOREIGN KEY (contest_id) REFERENCES contests (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
