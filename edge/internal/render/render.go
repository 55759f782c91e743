package render

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/verdict-oj/verdict/internal/httpsec"
	"github.com/verdict-oj/verdict/nginx"
)

// Errors returned by this package.
var (
	// ErrInvalidParam reports a setting that cannot be rendered safely.
	ErrInvalidParam = errors.New("render: invalid parameter")
	// ErrInvalidMember reports a registry member that is not host:port.
	ErrInvalidMember = errors.New("render: invalid registry member")
)

// Params are the edge's nginx settings. The zero value of each field means
// its documented default (see WithDefaults).
type Params struct {
	// Listen is the address nginx serves on. Default "127.0.0.1:8080".
	Listen string
	// ListenReusePort adds "reuseport" to the listen directive. Default false.
	ListenReusePort bool
	// ListenBacklog is the listen socket's accept queue (the listen
	// directive's backlog=): connections the kernel has completed while
	// every worker is busy. Default DefaultListenBacklog; the kernel caps
	// it at net.core.somaxconn.
	ListenBacklog int
	// RuntimeDir holds the pid file, logs and every temp dir. Required,
	// absolute.
	RuntimeDir string
	// StaticDir is the built frontend (index.html, assets/). Required,
	// absolute.
	StaticDir string
	// User is nginx's "user" directive (only meaningful when the master runs
	// as root). Default: omitted.
	User string
	// WorkerProcesses: default "auto".
	WorkerProcesses string
	// WorkerConnections per worker. Default 4096.
	WorkerConnections int
	// WorkerOpenFiles is worker_rlimit_nofile: the open-file limit nginx
	// sets for its workers. Default twice WorkerConnections (a proxied
	// request holds the client's connection and the upstream's) plus
	// room for logs and temp files, so that worker_connections holds
	// under a login shell's limit of 1024; capped at OpenFilesCeiling.
	WorkerOpenFiles int
	// OpenFilesCeiling caps WorkerOpenFiles's default: the hard open-file
	// limit nginx inherits, which it cannot raise without
	// CAP_SYS_RESOURCE (it logs an alert at every start and keeps the
	// old limit). 0: no cap. A WorkerOpenFiles given is not capped.
	OpenFilesCeiling int
	// WorkerShutdownTimeout bounds how long an old worker keeps open
	// connections (WebSockets) after a reload. Default 10s.
	WorkerShutdownTimeout time.Duration
	// ErrorLog path, or "stderr". Default RuntimeDir/error.log.
	ErrorLog string
	// ErrorLogLevel: default "warn".
	ErrorLogLevel string
	// AccessLog path, or "off". Default RuntimeDir/access.log.
	AccessLog string
	// ClientMaxBodySize is nginx's client_max_body_size (test data uploads).
	// Default "65m": the web nodes accept test data up to 64 MiB, plus the
	// multipart framing around it.
	ClientMaxBodySize string
	// The per-address limits are a coarse flood guard: a contest room of
	// hundreds shares one campus NAT address, so they are sized for 300
	// contestants behind one address (see docs/limits.md); per-user limits
	// are the web nodes' job. Rates are as nginx writes them ("600r/m",
	// "10r/s"); a burst is how many requests above the rate pass at once.
	//
	// LoginRate is the per-address rate of POST /api/login and
	// /api/session (one shared zone). Default "600r/m"; LoginBurst default
	// 300: a room of 300 logs in at once, then 10 attempts a second.
	LoginRate  string
	LoginBurst int
	// SubmitRate is the per-address rate of POST /api/submissions. Default
	// "600r/m"; SubmitBurst default 300: the whole room submitting in the
	// same second at the end of a contest.
	SubmitRate  string
	SubmitBurst int
	// RegisterRate is the per-address rate of POST /api/users
	// (self-registration). Default "60r/m"; RegisterBurst default 300: a
	// room registers at the start of a class, a script cannot create more
	// than one account a second.
	RegisterRate  string
	RegisterBurst int
	// TrustedNetworks are CIDRs (a campus, a contest hall) exempt from the
	// per-address limits above. Matched against the client address after
	// RealIPFrom. Default none.
	TrustedNetworks []string
	// MaxFails and FailTimeout are the passive health check of every
	// upstream server. Defaults 2 and 10s.
	MaxFails    int
	FailTimeout time.Duration
	// Keepalive is the number of idle connections to web nodes each worker
	// keeps. Default 32.
	Keepalive int
	// ConnectTimeout to an upstream server. Default DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// APIReadTimeout for /api. Default 60s.
	APIReadTimeout time.Duration
	// UploadReadTimeout for the uploads (test data, ICPC packages, user
	// imports), which the web node gives its UploadTimeout (5 min) to
	// arrive and be processed: hashing 500 imported passwords takes about
	// a minute on two cores. Default 330s.
	UploadReadTimeout time.Duration
	// WSReadTimeout for /ws and /judge; must exceed the hub's ping interval.
	// Default 75s.
	WSReadTimeout time.Duration
	// RealIPFrom lists trusted proxies (CIDR or address) in front of the
	// edge whose X-Forwarded-For is believed. Default none: the edge is the
	// outermost hop.
	RealIPFrom []string
}

// Defaults of the per-address limits (see Params).
const (
	DefaultLoginRate     = "600r/m"
	DefaultLoginBurst    = 300
	DefaultSubmitRate    = "600r/m"
	DefaultSubmitBurst   = 300
	DefaultRegisterRate  = "60r/m"
	DefaultRegisterBurst = 300
)

// WithDefaults returns p with every zero field set to its default.
func (p Params) WithDefaults() Params {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	defInt := func(n *int, v int) {
		if *n == 0 {
			*n = v
		}
	}
	defDur := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&p.Listen, "127.0.0.1:8080")
	def(&p.WorkerProcesses, "auto")
	defInt(&p.WorkerConnections, 4096)
	if p.WorkerOpenFiles == 0 {
		p.WorkerOpenFiles = 2*p.WorkerConnections + 256
		if c := p.OpenFilesCeiling; c > 0 {
			p.WorkerOpenFiles = min(p.WorkerOpenFiles, c)
		}
	}
	defInt(&p.ListenBacklog, DefaultListenBacklog)
	defDur(&p.WorkerShutdownTimeout, 10*time.Second)
	if p.RuntimeDir != "" {
		def(&p.ErrorLog, filepath.Join(p.RuntimeDir, "error.log"))
		def(&p.AccessLog, filepath.Join(p.RuntimeDir, "access.log"))
	}
	def(&p.ErrorLogLevel, "warn")
	def(&p.ClientMaxBodySize, "65m")
	def(&p.LoginRate, DefaultLoginRate)
	defInt(&p.LoginBurst, DefaultLoginBurst)
	def(&p.SubmitRate, DefaultSubmitRate)
	defInt(&p.SubmitBurst, DefaultSubmitBurst)
	def(&p.RegisterRate, DefaultRegisterRate)
	defInt(&p.RegisterBurst, DefaultRegisterBurst)
	defInt(&p.MaxFails, 2)
	defDur(&p.FailTimeout, 10*time.Second)
	defInt(&p.Keepalive, 32)
	defDur(&p.ConnectTimeout, DefaultConnectTimeout)
	defDur(&p.APIReadTimeout, 60*time.Second)
	defDur(&p.UploadReadTimeout, DefaultUploadReadTimeout)
	defDur(&p.WSReadTimeout, 75*time.Second)
	return p
}

// Upstreams are the live servers, as "host:port" with host an IP literal
// (see Member). Order and duplicates do not matter: Render sorts and
// deduplicates so equal sets render equal bytes.
type Upstreams struct {
	Web []string
	Hub []string
}

// data is what the template sees: every value already in nginx syntax.
type data struct {
	Listen                string
	ListenReusePort       bool
	ListenBacklog         int
	RuntimeDir            string
	StaticDir             string
	User                  string
	WorkerProcesses       string
	WorkerConnections     int
	WorkerOpenFiles       int
	WorkerShutdownTimeout string
	PidFile               string
	ErrorLog              string
	ErrorLogLevel         string
	AccessLog             string
	ClientMaxBodySize     string
	LoginRate             string
	LoginBurst            int
	LoginRetryAfter       int
	SubmitRate            string
	SubmitBurst           int
	SubmitRetryAfter      int
	RegisterRate          string
	RegisterBurst         int
	RegisterRetryAfter    int
	TrustedNetworks       []string
	MaxFails              int
	FailTimeout           string
	Keepalive             int
	ConnectTimeout        string
	APIReadTimeout        string
	UploadReadTimeout     string
	WSReadTimeout         string
	RealIPFrom            []string
	Web                   []string
	Hub                   []string
	// Security are the headers of every answer, HSTS the value of
	// Strict-Transport-Security over HTTPS (internal/httpsec).
	Security []httpsec.Header
	HSTS     string
	// DocumentCSP is the app shell's policy, with nginx's $request_id as
	// the nonce that replaces NoncePlaceholder in it.
	DocumentCSP      string
	NoncePlaceholder string
	// AssetCSP is the policy of a problem's statement images and
	// attachments (httpsec.AssetPolicy), in place of the page's.
	AssetCSP string
}

// DefaultConnectTimeout is ConnectTimeout's default. A connect to a live
// node on the same network completes in well under a millisecond; what
// times out is nginx's own worker, short of CPU, coming back to the
// connect late. At 2 s (the default until 2026-12-05) a 3,000-contestant
// rehearsal saw 655–1,447 connects to live nodes time out, each one
// counted against the node (max_fails) and, after three, answered 504. A
// node that is gone refuses the connect at once; one that is black-holed
// costs the few requests before max_fails skips it this long.
const DefaultConnectTimeout = 5 * time.Second

// DefaultListenBacklog is ListenBacklog's default: Linux's default
// net.core.somaxconn since 5.4. nginx's own default, 511, filled in the
// first seconds of a 3,000-contestant rehearsal's start (every browser
// opening its pages at once, nginx's workers short of CPU): the kernel
// dropped the new connections' handshakes (ListenOverflows), and the
// browsers waited out SYN retransmits of 1, 3 and 7 s or gave up.
const DefaultListenBacklog = 4096

// DefaultUploadReadTimeout is UploadReadTimeout's default: above the web
// node's server.DefaultUploadTimeout (5 min), so the web node's own answer
// (or its deadline's 503) comes back rather than nginx's 504.
const DefaultUploadReadTimeout = 330 * time.Second

// ForUpload is d with the upload read timeout in place of the API's, for
// the upload locations ({{template "api" .ForUpload}}).
func (d data) ForUpload() data {
	d.APIReadTimeout = d.UploadReadTimeout
	return d
}

var tmpl = template.Must(template.New("nginx.conf").Option("missingkey=error").Parse(nginx.Template))

// PidFile is where nginx writes its pid for the given runtime directory.
func PidFile(runtimeDir string) string { return filepath.Join(runtimeDir, "nginx.pid") }

// Render returns the complete nginx.conf for p (defaults applied) and u.
func Render(p Params, u Upstreams) ([]byte, error) {
	p = p.WithDefaults()
	if err := validate(p); err != nil {
		return nil, err
	}
	web, err := canonical(u.Web)
	if err != nil {
		return nil, fmt.Errorf("render web upstream: %w", err)
	}
	hub, err := canonical(u.Hub)
	if err != nil {
		return nil, fmt.Errorf("render hub upstream: %w", err)
	}
	trusted, err := networks(p.TrustedNetworks)
	if err != nil {
		return nil, err
	}
	d := data{
		Listen:                p.Listen,
		ListenReusePort:       p.ListenReusePort,
		ListenBacklog:         p.ListenBacklog,
		RuntimeDir:            p.RuntimeDir,
		StaticDir:             p.StaticDir,
		User:                  p.User,
		WorkerProcesses:       p.WorkerProcesses,
		WorkerConnections:     p.WorkerConnections,
		WorkerOpenFiles:       p.WorkerOpenFiles,
		WorkerShutdownTimeout: Duration(p.WorkerShutdownTimeout),
		PidFile:               PidFile(p.RuntimeDir),
		ErrorLog:              p.ErrorLog,
		ErrorLogLevel:         p.ErrorLogLevel,
		AccessLog:             p.AccessLog,
		ClientMaxBodySize:     p.ClientMaxBodySize,
		LoginRate:             p.LoginRate,
		LoginBurst:            p.LoginBurst,
		LoginRetryAfter:       RetryAfter(p.LoginRate),
		SubmitRate:            p.SubmitRate,
		SubmitBurst:           p.SubmitBurst,
		SubmitRetryAfter:      RetryAfter(p.SubmitRate),
		RegisterRate:          p.RegisterRate,
		RegisterBurst:         p.RegisterBurst,
		RegisterRetryAfter:    RetryAfter(p.RegisterRate),
		TrustedNetworks:       trusted,
		MaxFails:              p.MaxFails,
		FailTimeout:           Duration(p.FailTimeout),
		Keepalive:             max(p.Keepalive, 0),
		ConnectTimeout:        Duration(p.ConnectTimeout),
		APIReadTimeout:        Duration(p.APIReadTimeout),
		UploadReadTimeout:     Duration(p.UploadReadTimeout),
		WSReadTimeout:         Duration(p.WSReadTimeout),
		RealIPFrom:            p.RealIPFrom,
		Web:                   web,
		Hub:                   hub,
		Security:              httpsec.Always,
		HSTS:                  httpsec.StrictTransportSecurity,
		DocumentCSP:           httpsec.DocumentPolicy("$request_id"),
		NoncePlaceholder:      httpsec.NoncePlaceholder,
		AssetCSP:              httpsec.AssetPolicy,
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("render nginx.conf: %w", err)
	}
	return b.Bytes(), nil
}

// Duration writes d in nginx time syntax: whole seconds as "10s", anything
// else in milliseconds ("1500ms"). Negative durations render as "0s".
func Duration(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	ms := d.Milliseconds()
	if ms == 0 {
		ms = 1
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

var (
	// safeToken is what may appear unquoted in a directive argument: no
	// whitespace, quotes, semicolons, braces, '$' (variables) or '#'.
	safeToken = regexp.MustCompile(`^[A-Za-z0-9_./:@+,=%~\[\]-]+$`)
	rateRe    = regexp.MustCompile(`^[0-9]+r/[sm]$`)
	sizeRe    = regexp.MustCompile(`^[0-9]+[kKmMgG]?$`)
	levelRe   = regexp.MustCompile(`^(debug|info|notice|warn|error|crit|alert|emerg)$`)
	userRe    = regexp.MustCompile(`^[a-z_][a-z0-9_-]*(\s[a-z_][a-z0-9_-]*)?$`)
	workersRe = regexp.MustCompile(`^(auto|[1-9][0-9]*)$`)
)

func invalid(field, val, why string) error {
	return fmt.Errorf("%w: %s=%q: %s", ErrInvalidParam, field, val, why)
}

func validate(p Params) error {
	if _, err := netip.ParseAddrPort(p.Listen); err != nil {
		if h, port, err2 := net.SplitHostPort(p.Listen); err2 != nil || h != "" && h != "*" || !validPort(port) {
			return invalid("Listen", p.Listen, "want ip:port, [ip6]:port or *:port")
		}
	}
	for _, f := range []struct{ name, val string }{
		{"RuntimeDir", p.RuntimeDir}, {"StaticDir", p.StaticDir},
	} {
		if f.val == "" || !filepath.IsAbs(f.val) {
			return invalid(f.name, f.val, "want an absolute path")
		}
		if !safeToken.MatchString(f.val) {
			return invalid(f.name, f.val, "unsafe character for nginx.conf")
		}
	}
	for _, f := range []struct{ name, val string }{
		{"ErrorLog", p.ErrorLog}, {"AccessLog", p.AccessLog},
	} {
		if !safeToken.MatchString(f.val) {
			return invalid(f.name, f.val, "unsafe character for nginx.conf")
		}
	}
	if p.User != "" && !userRe.MatchString(p.User) {
		return invalid("User", p.User, "want user [group]")
	}
	if !workersRe.MatchString(p.WorkerProcesses) {
		return invalid("WorkerProcesses", p.WorkerProcesses, "want auto or a positive number")
	}
	if !levelRe.MatchString(p.ErrorLogLevel) {
		return invalid("ErrorLogLevel", p.ErrorLogLevel, "want an nginx log level")
	}
	if !sizeRe.MatchString(p.ClientMaxBodySize) {
		return invalid("ClientMaxBodySize", p.ClientMaxBodySize, "want a size like 64m")
	}
	for _, f := range []struct{ name, val string }{
		{"LoginRate", p.LoginRate}, {"SubmitRate", p.SubmitRate}, {"RegisterRate", p.RegisterRate},
	} {
		if !rateRe.MatchString(f.val) || strings.HasPrefix(f.val, "0") {
			return invalid(f.name, f.val, "want a rate like 10r/m")
		}
	}
	for _, f := range []struct {
		name string
		val  int
	}{
		{"WorkerConnections", p.WorkerConnections}, {"WorkerOpenFiles", p.WorkerOpenFiles},
		{"ListenBacklog", p.ListenBacklog}, {"LoginBurst", p.LoginBurst},
		{"SubmitBurst", p.SubmitBurst}, {"RegisterBurst", p.RegisterBurst}, {"MaxFails", p.MaxFails},
	} {
		if f.val < 0 {
			return invalid(f.name, strconv.Itoa(f.val), "must not be negative")
		}
	}
	for _, c := range p.RealIPFrom {
		if _, err := netip.ParsePrefix(c); err != nil {
			if _, err := netip.ParseAddr(c); err != nil {
				return invalid("RealIPFrom", c, "want a CIDR or an IP address")
			}
		}
	}
	return nil
}

// networks checks every trusted network is a CIDR and writes it in one
// canonical form (host bits cleared, IPv4-mapped prefixes as IPv4), sorted
// and deduplicated.
func networks(cidrs []string) ([]string, error) {
	out := make([]string, 0, len(cidrs))
	for _, c := range cidrs {
		pfx, err := netip.ParsePrefix(c)
		if err != nil {
			return nil, fmt.Errorf("%w: TrustedNetworks=%q: want a CIDR like 10.20.0.0/16: %w", ErrInvalidParam, c, err)
		}
		if a := pfx.Addr(); a.Is4In6() && pfx.Bits() >= 96 {
			pfx = netip.PrefixFrom(a.Unmap(), pfx.Bits()-96)
		}
		out = append(out, pfx.Masked().String())
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// RetryAfter is the Retry-After, in whole seconds (at least 1), of a 429
// from a limit of the given nginx rate ("600r/m"): once the burst is spent
// one request passes every 1/rate. An unparsable rate gives 1.
func RetryAfter(rate string) int {
	n, unit, ok := strings.Cut(rate, "r/")
	r, err := strconv.Atoi(n)
	if !ok || err != nil || r <= 0 {
		return 1
	}
	period := 1
	if unit == "m" {
		period = 60
	}
	return max(1, (period+r-1)/r)
}

func validPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0 && n <= 65535 && strconv.Itoa(n) == s
}

// canonical checks every address is an IP:port, writes it in one canonical
// form, sorts and deduplicates.
func canonical(addrs []string) ([]string, error) {
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		ap, err := netip.ParseAddrPort(a)
		if err != nil || ap.Port() == 0 || !ap.Addr().IsValid() || ap.Addr().Zone() != "" {
			return nil, fmt.Errorf("%w: %q is not ip:port", ErrInvalidMember, a)
		}
		out = append(out, netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()).String())
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// hostRe is a DNS name as a registry member may carry it.
var hostRe = regexp.MustCompile(`^(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$`)

// Member is a parsed registry member: either Addr is set (the host was an
// IP literal) or Host is a DNS name that still needs resolving.
type Member struct {
	Addr netip.AddrPort
	Host string
	Port uint16
}

// ParseMember parses a registry member "host:port" (host an IP literal,
// [IPv6] or a DNS name). Anything else — empty, no port, port 0, spaces,
// nginx syntax — is ErrInvalidMember, so nothing a process writes into the
// registry can inject configuration.
func ParseMember(s string) (Member, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil || !validPort(port) {
		return Member{}, fmt.Errorf("%w: %q", ErrInvalidMember, s)
	}
	p, _ := strconv.Atoi(port)
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return Member{}, fmt.Errorf("%w: %q: zoned address", ErrInvalidMember, s)
		}
		return Member{Addr: netip.AddrPortFrom(a.Unmap(), uint16(p))}, nil
	}
	if len(host) > 253 || !hostRe.MatchString(host) {
		return Member{}, fmt.Errorf("%w: %q", ErrInvalidMember, s)
	}
	return Member{Host: strings.TrimSuffix(strings.ToLower(host), "."), Port: uint16(p)}, nil
}
