// Package ccs maps Verdict's contests onto the ICPC CCS Contest API
// (CLICS), version 2023-06 (https://ccs-specs.icpc.io/2023-06/contest_api):
// the object shapes, ids and time formats (this file's siblings, pure), and
// the event feed's stream of facts in Redis (feed.go).
//
// Ids: a contest's is its slug when that is a CLICS identifier (else its
// numeric id); problems, teams (users: Verdict has no teams yet, so every
// registered user is a team of one) and submissions use their numeric ids;
// a judgement is "<submission>-<attempt>", a run
// "<submission>-<attempt>-<case>". Times are ABSTIME in UTC with
// milliseconds and RELTIME h:mm:ss.uuu. docs/icpc.md says what is
// implemented and what not.
package ccs
