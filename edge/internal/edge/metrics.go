package edge

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	servers    *prometheus.GaugeVec
	reloads    *prometheus.CounterVec
	reads      *prometheus.CounterVec
	pruned     *prometheus.CounterVec
	lastReload prometheus.Gauge
	held       *prometheus.GaugeVec
}

func newMetrics() metrics {
	return metrics{
		servers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "verdict_edge_upstream_servers",
			Help: "Live servers in the last registry read, by nginx upstream.",
		}, []string{"upstream"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_edge_reloads_total",
			Help: "Config changes: ok (validated and reloaded), invalid (rejected by nginx -t), error (reload failed).",
		}, []string{"result"}),
		reads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_edge_registry_reads_total",
			Help: "Registry reads by result (ok, error).",
		}, []string{"result"}),
		pruned: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_edge_registry_pruned_total",
			Help: "Dead registry members deleted, by role.",
		}, []string{"role"}),
		lastReload: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "verdict_edge_last_reload_timestamp_seconds",
			Help: "Unix time of the last successful nginx reload.",
		}),
		held: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "verdict_edge_upstream_held",
			Help: "Members of a role that left the registry and stay in the upstream (HoldLast): one that comes back costs no reload.",
		}, []string{"role"}),
	}
}

func (m metrics) register(r prometheus.Registerer) error {
	return errors.Join(
		r.Register(m.servers), r.Register(m.reloads), r.Register(m.reads),
		r.Register(m.pruned), r.Register(m.lastReload), r.Register(m.held),
	)
}
