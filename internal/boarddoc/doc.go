// Package boarddoc owns the scoreboard document: the shape web nodes
// publish as a contest channel's state (and answer GET
// /api/contests/{slug}/scoreboard with), hubs push to browsers, and the
// browser reads (frontend/src/scoreboard.ts). It also owns the delta the
// hub pushes instead of the whole board when only some rows or the freeze
// changed (Delta, on boards read by ParseRaw without decoding their rows):
// the rows whose content changed, rank aside, since the browser ranks a
// merged board itself, and the frozen flag.
package boarddoc
