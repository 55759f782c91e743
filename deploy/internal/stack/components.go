package stack

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-oj/verdict/internal/uidlock"
)

// components returns the Verdict processes in start order, with their
// command lines. These command lines are the contract between the local
// stack and each component's flags (docs/running.md lists them). It
// depends on nothing but the configuration: the stack builds them again
// after choosing another port.
func (s *Stack) components() ([]component, error) {
	dsn, err := s.MySQLAppDSN()
	if err != nil {
		return nil, err
	}
	bin := func(name string) string { return filepath.Join(s.cfg.BinDir, name) }
	addr := func(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
	env := append([]string{"VERDICT_LOG_FORMAT=text"}, s.cfg.Env...)
	hubEnv := serviceEnv(env, os.Getenv("GOGC"))
	var out []component

	hashSlots := strconv.Itoa(webHashSlots(len(affinity()), len(s.cfg.WebPorts)))
	for i, port := range s.cfg.WebPorts {
		c := component{
			name: "web-" + strconv.Itoa(i+1),
			argv: []string{bin("webapp"),
				"--listen", addr(port),
				"--redis", s.RedisAddr(),
				"--blob-dir", filepath.Join(s.cfg.Dir, "blobs"),
				"--hash-slots", hashSlots,
			},
			// The DSN holds the MySQL password: in the environment, never
			// on the command line (which every local user can read).
			env:       append(slices.Clone(env), "VERDICT_WEBAPP_MYSQL="+dsn),
			ready:     "http://" + addr(port) + "/readyz",
			listeners: []handover{{"--listen-fd", port}},
		}
		if i == len(s.cfg.WebPorts)-1 && s.cfg.Demo {
			c.then = s.loadDemo
		}
		out = append(out, c)
	}
	out = append(out, component{
		name: "hub",
		argv: []string{bin("hub"),
			"--listen", addr(s.cfg.HubPort),
			"--redis", s.RedisAddr(),
			// Every process of the local stack shares this machine's cores,
			// so load1 counts the judges' own work, the databases and the
			// web nodes: it says nothing about a judge's foreign load. Off.
			"--overload", "1000",
		},
		env:       hubEnv,
		ready:     "http://" + addr(s.cfg.HubPort) + "/readyz",
		listeners: []handover{{"--listen-fd", s.cfg.HubPort}},
	})
	edge := []string{bin("edge"),
		"--redis", s.RedisAddr(),
		"--listen", addr(s.cfg.HTTPPort),
		"--runtime-dir", filepath.Join(s.cfg.Dir, "nginx"),
		"--static-dir", s.cfg.StaticDir,
		"--admin", addr(s.cfg.AdminPort),
	}
	if os.Geteuid() == 0 {
		// nginx's workers would run as nobody and could not read a
		// checkout under /root: run them as the user who owns the tree.
		edge = append(edge, "--nginx-user", "root")
	}
	if s.cfg.NginxWorkerConnections > 0 {
		edge = append(edge, "--worker-connections", strconv.Itoa(s.cfg.NginxWorkerConnections))
	}
	ec := component{
		name:      "edge",
		argv:      edge,
		env:       env,
		ready:     "http://" + addr(s.cfg.AdminPort) + "/readyz",
		listeners: []handover{{"--admin-fd", s.cfg.AdminPort}},
		nice:      EdgeNice,
	}
	if s.httpChosen {
		// nginx binds its port itself.
		ec.ownPort = &s.cfg.HTTPPort
	}
	out = append(out, ec)
	for i := 1; i <= s.cfg.Judges; i++ {
		id := "judge-" + strconv.Itoa(i)
		dir := filepath.Join(s.cfg.Dir, id)
		argv := []string{bin("judge"), "agent",
			"--hub", "ws://" + addr(s.cfg.HTTPPort) + "/judge",
			"--id", id,
			"--token-file", filepath.Join(dir, "token"),
			"--dir", dir,
			"--admin", addr(s.cfg.AdminPort + i),
		}
		if !setsEnv(s.cfg.Env, "VERDICT_JUDGE_PARALLEL", "VERDICT_JUDGE_CPUS") {
			// One machine, several judges: each on its own share of the
			// CPUs (the highest first), or they would all pin their runs
			// to the same ones and halve the throughput.
			argv = append(argv, "--cpus", judgeCPUs(i, s.cfg.Judges, affinity()))
		}
		if !setsEnv(s.cfg.Env, "VERDICT_JUDGE_UID_BASE") {
			// Each judge its own uids (s.uidBase): two judges sharing a
			// range would share per-uid limits (RLIMIT_NPROC: execve fails
			// with EAGAIN in the other's run) and could signal each
			// other's runs.
			argv = append(argv, "--uid-base", strconv.Itoa(s.uidBase+(i-1)*judgeUIDStride))
		}
		out = append(out, component{
			name:      id,
			argv:      argv,
			env:       env,
			probe:     []string{bin("judge"), "agent", "--help"},
			ready:     "http://" + addr(s.cfg.AdminPort+i) + "/readyz",
			listeners: []handover{{"--admin-fd", s.cfg.AdminPort + i}},
		})
	}
	return out, nil
}

// loadDemo runs `webapp demo`, which idempotently creates the demo logins,
// problems, contest and judge tokens, and writes the logins to a file that
// is printed on every start.
func (s *Stack) loadDemo(ctx context.Context) error {
	dsn, err := s.MySQLAppDSN()
	if err != nil {
		return err
	}
	web := filepath.Join(s.cfg.BinDir, "webapp")
	logins := filepath.Join(s.cfg.Dir, "demo-logins.txt")
	args := []string{"demo",
		"--redis", s.RedisAddr(),
		"--blob-dir", filepath.Join(s.cfg.Dir, "blobs"),
		"--logins", logins,
		"--judge-token-dir", s.cfg.Dir, // writes <dir>/judge-N/token
		"--judges", strconv.Itoa(s.cfg.Judges + s.cfg.SpareJudges),
	}
	cmd := exec.CommandContext(ctx, web, args...)
	cmd.Env = append(os.Environ(), "VERDICT_LOG_FORMAT=text", "VERDICT_WEBAPP_MYSQL="+dsn)
	cmd.Stdout = s.con.prefixed("demo", s.next())
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("stack: loading demo data: %w", err)
	}
	b, err := os.ReadFile(logins)
	if err != nil {
		return fmt.Errorf("stack: demo logins: %w", err)
	}
	s.demoLogins = string(b)
	return nil
}

// judgeUIDStride is the room each local judge gets for its sandbox's uid
// range (two per slot: interactive runs take a second one).
const judgeUIDStride = 256

// freeUIDBase picks the first uid of a block of judges×judgeUIDStride
// uids that no sandbox on this machine holds (internal/uidlock), so that
// stacks running side by side (the test packages do) never share a judge's
// uids: the search starts at a block chosen from the stack's directory
// and takes the first free one. A judge that loses a race for it refuses
// to start with a clear error.
func freeUIDBase(dir string, judges int) int {
	const first, blocks = 60000, 64
	size := max(judges, 1) * judgeUIDStride
	h := fnv.New32a()
	h.Write([]byte(dir))
	start := int(h.Sum32() % blocks)
	for k := range blocks {
		base := first + ((start+k)%blocks)*size
		if uidlock.Free(base, size) {
			return base
		}
	}
	return first + start*size
}

// judgeCPUs is the --cpus of judge i (from 1) of judges on this machine:
// an equal share of the CPUs this process may use, the highest first,
// wrapping around when there are more judges than CPUs.
func judgeCPUs(i, judges int, cpus []int) string {
	n := len(cpus)
	per := max(1, n/max(judges, 1))
	var out []string
	for k := range per {
		idx := ((n-(i-1)*per-1-k)%n + n) % n
		out = append(out, strconv.Itoa(cpus[idx]))
	}
	slices.Reverse(out)
	return strings.Join(out, ",")
}

// webHashSlots is the --hash-slots of each of webNodes web nodes sharing
// cpus cores: a share of the cores, at least one. A node's default is its
// GOMAXPROCS, right for a node with the machine to itself; nodes sharing
// one would together run more hashes than there are cores, which only
// makes each hash slower, and in a login storm bcrypt would hold every
// core, while the pages, submissions and results queue behind it.
func webHashSlots(cpus, webNodes int) int {
	return max(1, cpus/max(webNodes, 1))
}

// affinity lists the CPUs this process may run on.
func affinity() []int {
	out := allowedCPUs()
	if len(out) == 0 {
		for c := range runtime.NumCPU() {
			out = append(out, c)
		}
	}
	return out
}

// serviceEnv is env for the hub: with GOGC set to
// ServiceGOGC unless env sets it or the stack's own environment does
// (inherited, its GOGC: the components inherit it).
func serviceEnv(env []string, inherited string) []string {
	if inherited != "" || setsEnv(env, "GOGC") {
		return env
	}
	return append(slices.Clone(env), "GOGC="+ServiceGOGC)
}

// setsEnv reports whether env sets any of the variables.
func setsEnv(env []string, names ...string) bool {
	for _, kv := range env {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				return true
			}
		}
	}
	return false
}
