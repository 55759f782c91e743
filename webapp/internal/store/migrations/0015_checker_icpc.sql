-- 0015: the checker kind icpc, the ICPC problem package format's default
-- output validator with the flags its test data carries (issue 17,
-- docs/problems.md "ICPC problem packages").
ALTER TABLE problems
  MODIFY checker ENUM('exact','default','float','special','icpc') NOT NULL DEFAULT 'default';
