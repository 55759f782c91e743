// Package bench is `verdict-stack bench` (make bench): the measurements of
// issue 9 that need more than one component, each bounded in time and
// sending traffic only to 127.0.0.1 —
//
//   - E2E (item 2): judging end to end through nginx, submit → final
//     verdict on the owner's browser WebSocket, at fractions of a measured
//     capacity, against the physical limit of compiling and running the
//     same work bare (MeasureLimit);
//   - Push (item 3): thousands of browser WebSockets on one contest
//     scoreboard: memory per connection, result → delivery;
//   - Web (item 4): the problem list and a submission page through nginx
//     with and without upstream keepalive, against a static file of the
//     same bytes;
//   - Queue and Sched (item 5): the Redis queue under a backlog, and the
//     hub's scheduling policies.
//
// Items 2–4 run against a stack started by package harness, with the data
// Setup creates through the admin API. The package owns the pure parts
// they share: latency percentiles, the open-loop constant-rate pacer
// (latency counted from the intended send time, so a slow server cannot
// hide its queueing by slowing the load down: no coordinated omission),
// throughput and capacity arithmetic, and the tables the results print as.
package bench
