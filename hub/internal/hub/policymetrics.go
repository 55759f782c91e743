package hub

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/obs"
)

// policyCollector exports what the dispatch policy has learnt of what
// downloads cost and of its judges' speeds (sched.Estimator), read at
// each scrape under the lock that serialises the policy. A policy that
// learns nothing exports nothing; what is not learnt yet is absent.
type policyCollector struct {
	mu     *sync.Mutex
	policy sched.Estimator
}

var (
	policyOverhead = prometheus.NewDesc(obs.HubPolicyOverheadSeconds,
		"The dispatch policy's learnt mean overhead (dispatch → result, less the run) of the tasks it placed, by placement: warm (the judge held the test data) or cold (it lacked it). Absent until learnt.",
		[]string{"placement"}, nil)
	policyFetch = prometheus.NewDesc(obs.HubPolicyFetchSeconds,
		"The download cost the dispatch policy ranks judges by (cold − warm overhead, each problem's own), the mean over the problems it has seen downloaded. Absent until learnt.",
		nil, nil)
	policySpeed = prometheus.NewDesc(obs.HubPolicySpeed,
		"The range of the judges' speeds the dispatch policy assumes (1: the mean judge), by bound: lowest or highest, over the judges it has learnt a speed for. Absent until learnt.",
		[]string{"bound"}, nil)
)

func (c policyCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- policyOverhead
	ch <- policyFetch
	ch <- policySpeed
}

func (c policyCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	e := c.policy.Estimates()
	c.mu.Unlock()
	if e.WarmN > 0 {
		ch <- prometheus.MustNewConstMetric(policyOverhead, prometheus.GaugeValue, e.Warm.Seconds(), "warm")
	}
	if e.ColdN > 0 {
		ch <- prometheus.MustNewConstMetric(policyOverhead, prometheus.GaugeValue, e.Cold.Seconds(), "cold")
	}
	if e.Problems > 0 {
		ch <- prometheus.MustNewConstMetric(policyFetch, prometheus.GaugeValue, e.Fetch.Seconds())
	}
	if e.SpeedHi > 0 {
		ch <- prometheus.MustNewConstMetric(policySpeed, prometheus.GaugeValue, e.SpeedLo, "lowest")
		ch <- prometheus.MustNewConstMetric(policySpeed, prometheus.GaugeValue, e.SpeedHi, "highest")
	}
}
