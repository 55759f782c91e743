-- 0010: teams, organisations and groups (issue 19, docs/icpc.md).
--
-- Every object belongs to one contest, as in the Contest API
-- (/contests/{id}/teams …); ext_id is the object's CLICS id (the id of
-- the imported file: teams.tsv's team number, groups.json's id …),
-- unique per contest.
--
-- contest_groups: categories ("participants", "observers", a region);
-- a hidden group's teams are left off the public scoreboard (staff see
-- them). contest_organizations: affiliations (name, formal name, ISO
-- 3166-1 alpha-3 country). teams: display_name is what the board shows
-- ('' = name). team_members: users who log in and submit for their
-- team; a user is on at most one team per contest.
--
-- contests.team_mode: a team contest (the board's rows are teams, every
-- contestant submits for their team) or an individual one (default).
-- submissions.team_id: the team a submission was made for (team
-- contests; NULL otherwise). No foreign key: submissions is partitioned;
-- a team with submissions cannot be deleted (store.DeleteTeam).
ALTER TABLE contests
  ADD COLUMN team_mode BOOLEAN NOT NULL DEFAULT FALSE;

ALTER TABLE submissions
  ADD COLUMN team_id BIGINT NULL AFTER contest_id,
  ADD KEY ix_submissions_team (team_id, id);

CREATE TABLE contest_groups (
  id          BIGINT       NOT NULL AUTO_INCREMENT,
  contest_id  BIGINT       NOT NULL,
  ext_id      VARCHAR(36)  NOT NULL,
  icpc_id     VARCHAR(64)  NOT NULL DEFAULT '',
  name        VARCHAR(255) NOT NULL,
  hidden      BOOLEAN      NOT NULL DEFAULT FALSE,
  sort_order  INT          NOT NULL DEFAULT 0,
  PRIMARY KEY (id),
  UNIQUE KEY uk_contest_groups_ext (contest_id, ext_id),
  CONSTRAINT fk_contest_groups_contest FOREIGN KEY (contest_id) REFERENCES contests (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE contest_organizations (
  id          BIGINT       NOT NULL AUTO_INCREMENT,
  contest_id  BIGINT       NOT NULL,
  ext_id      VARCHAR(36)  NOT NULL,
  icpc_id     VARCHAR(64)  NOT NULL DEFAULT '',
  name        VARCHAR(255) NOT NULL,
  formal_name VARCHAR(255) NOT NULL DEFAULT '',
  country     CHAR(3)      NOT NULL DEFAULT '',
  PRIMARY KEY (id),
  UNIQUE KEY uk_contest_organizations_ext (contest_id, ext_id),
  CONSTRAINT fk_contest_organizations_contest FOREIGN KEY (contest_id) REFERENCES contests (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE teams (
  id              BIGINT       NOT NULL AUTO_INCREMENT,
  contest_id      BIGINT       NOT NULL,
  ext_id          VARCHAR(36)  NOT NULL,
  icpc_id         VARCHAR(64)  NOT NULL DEFAULT '',
  name            VARCHAR(255) NOT NULL,
  display_name    VARCHAR(255) NOT NULL DEFAULT '',
  organization_id BIGINT       NULL,
  created_at      DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  UNIQUE KEY uk_teams_ext (contest_id, ext_id),
  KEY ix_teams_organization (organization_id),
  CONSTRAINT fk_teams_contest FOREIGN KEY (contest_id) REFERENCES contests (id) ON DELETE CASCADE,
  CONSTRAINT fk_teams_organization FOREIGN KEY (organization_id) REFERENCES contest_organizations (id) ON DELETE SET NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE team_groups (
  team_id  BIGINT NOT NULL,
  group_id BIGINT NOT NULL,
  PRIMARY KEY (team_id, group_id),
  KEY ix_team_groups_group (group_id),
  CONSTRAINT fk_team_groups_team FOREIGN KEY (team_id) REFERENCES teams (id) ON DELETE CASCADE,
  CONSTRAINT fk_team_groups_group FOREIGN KEY (group_id) REFERENCES contest_groups (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE team_members (
  team_id    BIGINT NOT NULL,
  contest_id BIGINT NOT NULL,
  user_id    BIGINT NOT NULL,
  role       ENUM('contestant','coach') NOT NULL DEFAULT 'contestant',
  PRIMARY KEY (team_id, user_id),
  UNIQUE KEY uk_team_members_user (contest_id, user_id),
  KEY ix_team_members_user (user_id),
  CONSTRAINT fk_team_members_team FOREIGN KEY (team_id) REFERENCES teams (id) ON DELETE CASCADE,
  CONSTRAINT fk_team_members_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
