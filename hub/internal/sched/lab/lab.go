package lab

import (
	"fmt"
	"strings"

	"github.com/verdict-oj/verdict/hub/internal/sched"
)

// Names of the lab's baselines (NewWith). The hub's own policies keep
// theirs in sched (sched.NameDefault, sched.NameGuide).
const (
	NameRandom       = "random"
	NameWRR          = "wrr"
	NameSmoothWRR    = "swrr"
	NameLeastConn    = "least_conn"
	NameP2C          = "p2c"
	NameLeastRequest = "least_request"
	NamePeakEWMA     = "peak_ewma"
	NameAdaptive     = "adaptive"
	NameCHBL         = "chbl"
	NamePull         = "pull"
	NameWindowSWRR   = "window_swrr"
)

// Baselines lists the lab's baselines, in the order the lab reports them.
func Baselines() []string {
	return []string{NameRandom, NameWRR, NameSmoothWRR, NameLeastConn, NameP2C,
		NameLeastRequest, NamePeakEWMA, NameAdaptive, NameCHBL, NamePull, NameWindowSWRR}
}

// Names lists every policy NewWith knows: the hub's (sched.Names, the
// default first), then the baselines.
func Names() []string { return append(sched.Names(), Baselines()...) }

// Options are the settings NewWith passes to a policy. Zero values take
// the documented defaults.
type Options struct {
	// Seed seeds the policies that draw random numbers (random, p2c,
	// least_request, peak_ewma, adaptive). Default 1.
	Seed uint64
	// Bounded configures the default policy.
	Bounded sched.BoundedConfig
	// LoadFactor is c of chbl. Default sched.DefaultLoadFactor (1.25).
	LoadFactor float64
}

// New returns the policy called name with its default settings.
func New(name string) (sched.Policy, error) { return NewWith(name, Options{}) }

// NewWith returns the policy called name with o: one of the hub's
// (sched.NewWith) or a baseline. An unknown name is sched.ErrUnknownPolicy.
func NewWith(name string, o Options) (sched.Policy, error) {
	if o.Seed == 0 {
		o.Seed = 1
	}
	switch name {
	case NameRandom:
		return NewRandom(o.Seed), nil
	case NameWRR:
		return &WRR{}, nil
	case NameSmoothWRR:
		return NewSmoothWRR(), nil
	case NameLeastConn:
		return &LeastConn{}, nil
	case NameP2C:
		return NewP2C(o.Seed), nil
	case NameLeastRequest:
		return NewLeastRequest(o.Seed), nil
	case NamePeakEWMA:
		return NewPeakEWMA(o.Seed), nil
	case NameAdaptive:
		return NewAdaptive(o.Seed), nil
	case NameCHBL:
		return NewCHBL(o.LoadFactor), nil
	case NamePull:
		return NewPull(), nil
	case NameWindowSWRR:
		return NewWindowSWRR(0), nil
	}
	if p, err := sched.NewWith(name, sched.Options{Bounded: o.Bounded}); err == nil {
		return p, nil
	}
	return nil, fmt.Errorf("%w: %q (known: %s)", sched.ErrUnknownPolicy, name, strings.Join(Names(), ", "))
}
