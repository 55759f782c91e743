// Package scoreboard keeps contest scoreboards in Redis, updated
// incrementally per judged submission, and builds the scoreboard document
// the API and the live contest channel serve.
//
// The unit of state is a cell: one user on one problem (in a team
// contest one team on one problem: every member's submissions go into
// the team's cell, so tries and penalty count across members; CellKey,
// AssembleTeams). A cell remembers
// every submission of that user on that problem as an entry (submission id,
// attempt, submission time, verdict or pending, score). Entries merge
// attempt-aware and commutatively — a later attempt replaces an earlier
// one, a final verdict replaces pending of the same attempt, anything else
// is a no-op — so results applied in any order, twice, or late give the
// same cell. From its entries a cell's view is derived (Derive, pure Go):
// the live view (every result) and the public view (results of submissions
// made after the freeze shown as pending). Views are stored beside the
// entries; a page view or a live push reads the views only, never the
// submissions.
//
// Rules: ICPC — a problem is solved by its first accepted submission (in
// submission order); its time is the minutes from the contest start; each
// rejected submission before it adds 20 minutes of penalty; compile errors
// and system errors are not tries; the first accepted submission of a
// problem across all users is marked first to solve. IOI — the best score
// of any submission per problem, summed.
//
// Recompute derives the same views from a list of entries (the submissions
// in MySQL): the reference for tests and the way to rebuild a board lost
// with Redis (Board.Rebuild).
package scoreboard
