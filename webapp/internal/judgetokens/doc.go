// Package judgetokens keeps the hub's view of judge tokens true.
//
// MySQL's judges table is the system of record (token hashes only). The hub
// never reads MySQL: it checks a judge's hello against the Redis hash
// rkeys.JudgeTokens, whose shape internal/tokens owns. Sync rewrites that
// hash from MySQL in one MULTI/EXEC (tokens.Replace), so a revoked token
// disappears and a Redis that lost its data is refilled. Web nodes call it
// at start, periodically, and after issuing or revoking a token.
package judgetokens
