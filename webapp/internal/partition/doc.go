// Package partition keeps the RANGE-partitioned tables (submissions and
// submission_cases, partitioned by submission id) ahead of their ids.
//
// Each table ends with a catch-all partition (VALUES LESS THAN MAXVALUE,
// "pmax") so that an insert never fails. Rows that land there defeat the
// point of partitioning (old ranges go cold and can be archived or dropped
// whole), so the Job splits the catch-all — ALTER TABLE … REORGANIZE
// PARTITION pmax INTO (the next ranges, pmax) — while it is still empty:
// whenever the highest id in use comes within Headroom ids of the last
// bounded partition. A table without a catch-all gets ADD PARTITION
// instead.
//
// Every web node runs the Job; each run takes a MySQL named lock
// (GET_LOCK, per database, without waiting) so that one node at a time
// reads INFORMATION_SCHEMA.PARTITIONS and alters, and a node that finds
// the lock taken skips the round. A run that finds nothing to do changes
// nothing. The ALTER waits at most DDLLockTimeout for the table's metadata
// lock, so a long transaction cannot make it queue every insert behind it
// for long.
//
// Plan, which decides the new partitions, is pure and tested without a
// database.
package partition
