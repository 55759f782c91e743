// Package judging is the web nodes' side of judging: which languages the
// live judges offer, turning a submission into a queued task
// (internal/queue), the reconciler that re-enqueues submissions whose task
// was lost, the consumer of the hub's results stream that writes verdicts
// to MySQL exactly once, and the contest scoreboards those results update
// (internal scoreboard) and publish to the live channel. It also keeps the
// warm plan (internal/warmplan) in Redis, so the hubs have the judges
// fetch a contest's test data before it starts, and reads the hubs' warm
// status back for the admin judges page.
//
// Everything here runs on every web node; the reconciler is led by one node
// at a time (a Redis lock), and the consumer group shares the stream's
// entries among the nodes.
package judging
