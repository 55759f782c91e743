// Package warmplan is the warm plan and its status: what crosses from the
// web nodes to the hubs (and back) so that judges hold a contest's test
// data before the contest starts, never fetching it at the start.
//
// The web nodes (system of record: MySQL) write the Plan to
// rkeys.WarmPlan: every contest that has not ended and starts within
// Horizon, with its problems' current test data exactly as tasks carry it
// (hash and URL). They rewrite it when contests, problems or test data
// change (and publish on rkeys.WarmPlanChanged) and periodically, so a
// Redis that lost its data heals within one interval; the key expires
// after TTL when no web node writes it.
//
// Every hub reads the plan (periodically and on the nudge), has each of its
// judges prefetch the data of the contests that start within its
// --warm-before window (default DefaultBefore) or are running, and writes
// a HubStatus per hub to rkeys.WarmStatus: per contest, how many of its
// judges are warm (hold every problem's current data) out of how many.
// The web nodes Merge the hubs' statuses for the admin judges page.
//
// Both shapes are JSON; Encode/Decode and EncodeStatus/DecodeStatus are the
// only way either side reads or writes them.
package warmplan
