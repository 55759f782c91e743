// Package tokens owns judge tokens as they cross processes: how a token
// is hashed (what MySQL's judges.token_hash stores), and the Redis hash
// rkeys.JudgeTokens that the web nodes fill from MySQL and the hubs (and
// the web nodes) check tokens against: field = hex SHA-256 of the token
// text, value = the judge's name, plus the field rkeys.JudgeTokensSynced
// (unix ms) that marks a loaded table, so that readers can tell "this
// token is not valid" (ErrUnknown) from "the table is not loaded"
// (ErrNotLoaded, a Redis that restarted empty).
//
// webapp/internal/judgetokens decides when to write the table (Replace);
// every reader goes through Lookup, Loaded and Judges.
package tokens
