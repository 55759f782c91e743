// Package store owns the webapp's MySQL schema and every SQL statement the
// webapp runs: versioned migrations embedded from migrations/*.sql (applied
// under a MySQL named lock so that N nodes starting together migrate once,
// checksummed, each file sent whole over a multiStatements connection),
// opening the pool with the session settings the schema relies on (UTC
// times), and typed queries for users, problems, test data versions,
// contests and their participants, submissions and judges. The partition
// job that extends the submission tables lives in webapp/internal/partition.
//
// MySQL is the system of record; caches in Redis are derived from it and
// owned by the packages that serve them.
package store
