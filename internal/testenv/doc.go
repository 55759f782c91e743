// Package testenv gives integration tests real MariaDB and Redis, isolated
// per test.
//
// Services are started once per `go test` run and shared by every test:
//
//   - Under `make test`, the stack supervisor starts one MariaDB and one
//     Redis for the whole run (deploy: `verdict-stack with-services`) and
//     passes them in VERDICT_TEST_MYSQL_DSN and VERDICT_TEST_REDIS_ADDR.
//   - Without those variables (a plain `go test ./some/pkg`), the first test
//     that asks for a service starts a private one in a temporary directory
//     for that test binary, and Main stops it when the binary's tests end.
//
// Each test gets its own MySQL database (CREATE DATABASE t_<random>, dropped
// at cleanup) and its own Redis logical database (flushed before and after)
// plus its own rkeys prefix — Redis pub/sub is server-wide, so the prefix is
// what keeps two tests' channels apart. Two tests writing the same table or
// the same key never see each other's data.
//
// A package that uses testenv declares
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//
// or, to also fail the binary when its tests leave goroutines running,
//
//	func TestMain(m *testing.M) { testenv.Main(m, leakcheck.Goroutines) }
//
// A test that needs a service and cannot get it fails with the reason; it
// never skips.
package testenv
