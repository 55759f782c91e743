package localsvc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisClusterConfig configures a local Redis Cluster of masters only (no
// replicas): enough to prove that a client and its key layout work in
// cluster mode, not a highly available deployment.
type RedisClusterConfig struct {
	// Dir holds one subdirectory per node. Required.
	Dir string
	// Nodes is the number of masters. Default 3 (the least Redis accepts
	// for a cluster that can vote).
	Nodes int
	// ReadyTimeout bounds the wait for cluster_state:ok. Default 30 s.
	ReadyTimeout time.Duration
	// Log receives the servers' output. Default io.Discard.
	Log io.Writer
}

// RedisCluster is a running local Redis Cluster.
type RedisCluster struct {
	nodes []*Redis
	buses []int
}

// Addrs returns every node's host:port.
func (c *RedisCluster) Addrs() []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.Addr()
	}
	return out
}

// Stop stops every node.
func (c *RedisCluster) Stop() error {
	var errs []error
	for _, n := range c.nodes {
		errs = append(errs, n.Stop())
	}
	return errors.Join(errs...)
}

// StartRedisCluster starts cfg.Nodes redis-server processes in cluster mode
// on free loopback ports (OnFreePort), joins them (CLUSTER MEET), splits the 16384 hash
// slots between them (CLUSTER ADDSLOTSRANGE) and waits until every node
// reports cluster_state:ok.
func StartRedisCluster(ctx context.Context, cfg RedisClusterConfig) (_ *RedisCluster, err error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("redis cluster: Dir is required")
	}
	if cfg.Nodes == 0 {
		cfg.Nodes = 3
	}
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 30 * time.Second
	}
	c := &RedisCluster{}
	defer func() {
		if err != nil {
			_ = c.Stop()
		}
	}()
	for i := range cfg.Nodes {
		dir := filepath.Join(cfg.Dir, "node"+strconv.Itoa(i))
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("redis cluster: %w", err)
		}
		// The node binds two ports, its own and its cluster bus: either
		// taken, both are chosen again.
		_, err := OnFreePort(nil, func(port int) error {
			bus, err := FreePort()
			if err != nil {
				return err
			}
			n, err := StartRedis(ctx, RedisConfig{Dir: dir, Port: port, Databases: 1, Log: cfg.Log, Args: []string{
				"--cluster-enabled", "yes",
				"--cluster-config-file", filepath.Join(dir, "nodes.conf"),
				"--cluster-port", strconv.Itoa(bus),
				"--cluster-node-timeout", "5000",
			}})
			if err != nil {
				return err
			}
			c.nodes = append(c.nodes, n)
			c.buses = append(c.buses, bus)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("redis cluster node %d: %w", i, err)
		}
	}
	clients := make([]*redis.Client, len(c.nodes))
	for i, n := range c.nodes {
		clients[i] = redis.NewClient(&redis.Options{Addr: n.Addr()})
		defer clients[i].Close()
	}
	const slots = 16384
	for i, cl := range clients {
		if i > 0 {
			// The bus port is not port+10000 here, so MEET must name it.
			if err := cl.Do(ctx, "CLUSTER", "MEET", "127.0.0.1", c.nodes[0].cfg.Port, c.buses[0]).Err(); err != nil {
				return nil, fmt.Errorf("redis cluster: meet: %w", err)
			}
		}
		lo, hi := i*slots/len(clients), (i+1)*slots/len(clients)-1
		if err := cl.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", lo, hi).Err(); err != nil {
			return nil, fmt.Errorf("redis cluster: add slots %d-%d: %w", lo, hi, err)
		}
	}
	for i, cl := range clients {
		err := waitFor(ctx, c.nodes[i].proc, cfg.ReadyTimeout, func(ctx context.Context) error {
			info, err := cl.ClusterInfo(ctx).Result()
			if err != nil {
				return err
			}
			if !strings.Contains(info, "cluster_state:ok") {
				return errors.New("cluster state not ok")
			}
			// Every node must know every other, or a redirect can fail.
			nodes, err := cl.ClusterNodes(ctx).Result()
			if err != nil {
				return err
			}
			if got := strings.Count(nodes, "master"); got < len(clients) {
				return fmt.Errorf("node knows %d of %d masters", got, len(clients))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("redis cluster: node %d: %w", i, err)
		}
	}
	return c, nil
}

// SentinelConfig configures a local Redis Sentinel watching one master.
type SentinelConfig struct {
	// Dir holds the sentinel's config file (Sentinel rewrites it). Required.
	Dir string
	// Port is the sentinel's loopback port. Required (OnFreePort).
	Port int
	// MasterName is the name clients ask for. Required.
	MasterName string
	// MasterAddr is the master's host:port. Required.
	MasterAddr string
	// ReadyTimeout bounds the wait for the sentinel to name the master.
	// Default 20 s.
	ReadyTimeout time.Duration
	// Log receives the sentinel's output. Default io.Discard.
	Log io.Writer
}

// Sentinel is a running Redis Sentinel.
type Sentinel struct {
	cfg  SentinelConfig
	proc *Proc
}

// Addr returns host:port.
func (s *Sentinel) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.cfg.Port) }

// Stop stops the sentinel.
func (s *Sentinel) Stop() error { return s.proc.Stop(5 * time.Second) }

// StartSentinel starts redis-server in sentinel mode with a quorum of one
// and waits until it answers SENTINEL GET-MASTER-ADDR-BY-NAME.
func StartSentinel(ctx context.Context, cfg SentinelConfig) (*Sentinel, error) {
	if cfg.Dir == "" || cfg.Port == 0 || cfg.MasterName == "" || cfg.MasterAddr == "" {
		return nil, fmt.Errorf("sentinel: Dir, Port, MasterName and MasterAddr are required")
	}
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 20 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	host, port, ok := strings.Cut(cfg.MasterAddr, ":")
	if !ok {
		return nil, fmt.Errorf("sentinel: master address %q is not host:port", cfg.MasterAddr)
	}
	bin, err := lookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("sentinel: %w", err)
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("sentinel: %w", err)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("sentinel: %w", err)
	}
	conf := filepath.Join(dir, "sentinel.conf")
	body := fmt.Sprintf("port %d\nbind 127.0.0.1\nprotected-mode no\ndir %s\nsentinel monitor %s %s %s 1\n",
		cfg.Port, dir, cfg.MasterName, host, port)
	if err := os.WriteFile(conf, []byte(body), 0o640); err != nil {
		return nil, fmt.Errorf("sentinel: %w", err)
	}
	s := &Sentinel{cfg: cfg}
	bind := &BindWatch{}
	s.proc, err = StartProcess("sentinel", io.MultiWriter(cfg.Log, bind), dir, nil, bin, conf, "--sentinel")
	if err != nil {
		return nil, err
	}
	c := redis.NewSentinelClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer c.Close()
	err = waitFor(ctx, s.proc, cfg.ReadyTimeout, func(ctx context.Context) error {
		return c.GetMasterAddrByName(ctx, cfg.MasterName).Err()
	})
	if err != nil {
		_ = s.proc.Stop(2 * time.Second)
		if bind.Seen() {
			return nil, fmt.Errorf("sentinel: port %d: %w (%w)", cfg.Port, ErrPortInUse, err)
		}
		return nil, fmt.Errorf("sentinel: %w", err)
	}
	return s, nil
}
