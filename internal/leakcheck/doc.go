// Package leakcheck fails a test binary whose tests leave goroutines
// running (go.uber.org/goleak): every goroutine a component starts must be
// joined by the time its Run returns (see internal/lifecycle). It is for
// tests only; no binary imports it.
//
// With internal/testenv:
//
//	func TestMain(m *testing.M) { testenv.Main(m, leakcheck.Goroutines) }
package leakcheck
