-- 0012: problem types (issue 17, docs/problems.md).
--
-- problems.input_file / output_file: a problem whose program reads its
-- input from a named file and/or writes its output to one (CMS / OI
-- style input.txt, output.txt); '' keeps stdin / stdout.
-- problems.output_only: the contestant uploads one output per case (no
-- program); their submissions have language 'outputs'.
ALTER TABLE problems
  ADD COLUMN input_file  VARCHAR(64) NOT NULL DEFAULT '',
  ADD COLUMN output_file VARCHAR(64) NOT NULL DEFAULT '',
  ADD COLUMN output_only BOOLEAN     NOT NULL DEFAULT FALSE;

-- A problem's reference solutions, from its package (ICPC submissions/,
-- Polygon solutions with their tags): staff run them against the problem
-- and see whether each got its expected verdict. last_submission_id is
-- the submission of the latest run (a practice submission of the staff
-- member who ran it; submissions is partitioned, so no foreign key).
CREATE TABLE problem_solutions (
  id                 BIGINT       NOT NULL AUTO_INCREMENT,
  problem_id         BIGINT       NOT NULL,
  name               VARCHAR(255) NOT NULL,
  language           VARCHAR(32)  NOT NULL,
  source             MEDIUMTEXT   NOT NULL,
  expected           VARCHAR(16)  NOT NULL,
  last_submission_id BIGINT       NULL,
  created_at         DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  UNIQUE KEY uk_problem_solutions_name (problem_id, name),
  CONSTRAINT fk_problem_solutions_problem FOREIGN KEY (problem_id) REFERENCES problems (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
