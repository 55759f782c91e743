package bench

import (
	"slices"
	"time"
)

// Throughput is the completion rate seen in done (times since a common
// start, any order) within [from, to]: the completions after the first
// one in the window divided by the time from the first to the last, so
// that neither the empty pipeline before the first completion nor the
// work left after the last counts. n is how many completions fell in the
// window; with fewer than two the rate is 0.
func Throughput(done []time.Duration, from, to time.Duration) (rate float64, n int) {
	var in []time.Duration
	for _, d := range done {
		if d >= from && d <= to {
			in = append(in, d)
		}
	}
	if len(in) < 2 {
		return 0, len(in)
	}
	slices.Sort(in)
	span := in[len(in)-1] - in[0]
	if span <= 0 {
		return 0, len(in)
	}
	return float64(len(in)-1) / span.Seconds(), len(in)
}

// Rates returns the offered rate of each phase: capacity × fraction.
func Rates(capacity float64, fractions []float64) []float64 {
	out := make([]float64, len(fractions))
	for i, f := range fractions {
		out[i] = capacity * f
	}
	return out
}

// Below returns a round rate at most frac of the smallest positive max:
// the open-loop rate for comparing several targets below the saturation
// of every one. Rounded down to two significant digits; 0 if none.
func Below(maxes []float64, frac float64) float64 {
	least := 0.0
	for _, m := range maxes {
		if m > 0 && (least == 0 || m < least) {
			least = m
		}
	}
	r := least * frac
	if r <= 0 {
		return 0
	}
	scale := 1.0
	for r >= 100 {
		r /= 10
		scale *= 10
	}
	for r < 10 {
		r *= 10
		scale /= 10
	}
	return float64(int(r)) * scale
}
