// Package rehearsal is `verdict-stack rehearse` (make rehearsal): one
// complete contest driven through the real stack the way a contest is run.
//
// It starts the whole stack on free loopback ports (MariaDB, Redis, nginx
// through the edge, the hub, two or more web nodes) with simulated judges
// (package simjudge) speaking the real judge protocol, imports the
// contestants by CSV, and then plays a plan (Plan, pure and seeded): each
// contestant logs in during the arrival window before the start — a lab of
// them from one source address, as behind a campus NAT, the rest from
// addresses of their own in 127.0.0.0/8 — opens the contest, its problems
// and the scoreboard, keeps a browser WebSocket subscribed to the
// scoreboard and its own submissions, submits in a real contest's shape (a
// flash on the easy problem, a steady middle, a rush at the end), and
// reloads pages now and then. Staff rejudge a problem mid-contest, answer
// clarifications and post an announcement; the board freezes for the last
// hour and is unfrozen after the end. With Faults, a web node and a judge
// are killed during the rush and Redis is restarted once.
//
// Every request is measured open loop from its due time, every failure is
// counted by endpoint and status, and at the end the rehearsal checks in
// MySQL and the results stream that every submission got exactly one final
// verdict per attempt, and that every checked browser's board equals the
// board rebuilt from MySQL. Report prints the figures and writes them as
// Markdown (docs/rehearsal.md).
package rehearsal
