package agent

import (
	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	tasks      *prometheus.CounterVec
	verdicts   *prometheus.CounterVec
	connected  prometheus.Gauge
	reconnects prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, a *Agent) *metrics {
	m := &metrics{
		tasks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_judge_tasks_total", Help: "Tasks by what became of them (accepted, judged, rejected_<reason>, abandoned)."}, []string{"outcome"}),
		verdicts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_judge_verdicts_total", Help: "Final verdicts of judged tasks."}, []string{"verdict"}),
		connected: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "verdict_judge_connected", Help: "1 while connected to the hub."}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_judge_reconnects_total", Help: "Connections to the hub lost (each followed by a reconnect attempt)."}),
	}
	if reg == nil {
		return m
	}
	reg.MustRegister(m.tasks, m.verdicts, m.connected, m.reconnects,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "verdict_judge_running", Help: "Tasks compiling or running."},
			func() float64 { _, r, _ := a.heldRefs(); return float64(r) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "verdict_judge_queued", Help: "Accepted tasks waiting for a slot."},
			func() float64 { _, _, q := a.heldRefs(); return float64(q) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "verdict_judge_undelivered_results", Help: "Results in the outbox."},
			func() float64 { return float64(a.outbox.len()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "verdict_judge_cache_bytes", Help: "Unpacked test data held."},
			func() float64 { return float64(a.cache.Size()) }),
	)
	return m
}
