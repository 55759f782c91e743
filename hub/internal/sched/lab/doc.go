// Package lab holds the scheduling lab's baselines: the balancers the
// simulator (package sim) compares the hub's policies against — random,
// "wrr" (LVS weighted round robin by cores), "swrr" (nginx smooth WRR),
// "least_conn" (nginx), "p2c", "least_request" (Envoy, bias 1),
// "peak_ewma" (Finagle/Linkerd P2C), "adaptive" (Dubbo 3), "chbl"
// (consistent hashing with bounded loads on the problem id) — push
// balancers that never hold a task — and "pull" (join-idle-queue: the
// longest-idle free slot takes the head of the queue) and "window_swrr"
// (the guide's dynamic weights as statistics per window → weights →
// smooth WRR, with its overload protection; WindowSWRR).
//
// They are real sched.Policy types over the same sched.Judge view the hub
// builds, plain Go with no I/O. Only the simulator and its command import
// this package: the hub ships sched's policies (sched.Names) and refuses
// these names.
//
// New and Names cover every policy the simulator runs: the hub's (by way
// of sched.NewWith) and the baselines. The default policy's ablation
// variants stay BoundedConfig settings in sched (its code branches on
// them); the simulator names and builds them.
package lab
