// Package teamfmt reads and writes a contest's teams, organisations and
// groups in the ICPC formats and in CSV (docs/icpc.md, "Teams"):
//
//	groups.json         CLICS groups: [{"id", "icpc_id", "name", "hidden", "sortorder"}]
//	groups.tsv          DOMjudge legacy: "File_Version\t1", then id \t name
//	organizations.json  CLICS organizations: [{"id", "icpc_id", "name", "formal_name", "country"}]
//	institutions.tsv    "File_Version\t1" (or "institutions\t1"), then id \t formal name \t short name \t country
//	teams.json          CLICS teams: [{"id", "icpc_id", "name", "display_name", "organization_id", "group_ids"}]
//	                    plus Verdict's "members": usernames who submit for the team
//	teams.tsv           DOMjudge legacy: "File_Version\t2" (or "teams\t1|2"), then team id \t icpc id \t
//	                    group id \t team name \t institution formal name \t institution short name \t
//	                    country \t institution id
//	csv                 header id,name,display_name,organization_id,groups,members (columns in any order;
//	                    groups and members separated by ";" or spaces)
//
// Parsing is pure and checks each line on its own (ids, lengths,
// countries); what depends on the contest (a group or organisation
// that must exist, a username that must name a user) is checked by the
// store when it applies the data, naming the same lines. Every error
// names its line (1-based; for JSON the array index counts from 1 as
// "item") and field.
package teamfmt
