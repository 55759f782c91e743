// Package judgelink is the judge's side of the judge link: dial the hub,
// say hello, read the welcome (or the refusal and the close code that
// decides), send heartbeats, read the hub's messages, and reconnect with
// jittered exponential backoff until the hub says stop (*StopError) or the
// judge's own drain ends. The judge agent (judge/internal/agent) and the
// simulated judges (deploy/internal/simjudge) both use it, so a simulated
// judge meets the hub exactly as a real one does. The connection itself is
// internal/wsconn's; what a judge does with each message stays its own.
package judgelink
