// Package judgestate owns the hash rkeys.Judge(name): one judge's last
// reported state, written by the hub that holds the judge's connection on
// every heartbeat (with a TTL of a few heartbeats, so it expires on its
// own once the judge goes silent) and read by the web nodes (the judges
// page, the languages judges offer, whether any judge is live).
//
// State is the hash's content; Fields writes it and Decode reads it, so
// the two sides cannot disagree on a field name or format.
package judgestate
