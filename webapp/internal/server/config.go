package server

import (
	"errors"
	"github.com/verdict-oj/verdict/webapp/internal/admission"
	"net/netip"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/rkeys"
	sharedsession "github.com/verdict-oj/verdict/internal/session"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/partition"
	"github.com/verdict-oj/verdict/webapp/internal/readcache"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// The node's configuration. This is the one file of the package that
// names the Redis client's type: the handlers reach Redis only through
// the services that own its keys (judging, catalog, judgetokens, session,
// ratelimit).

// ErrConfig reports an unusable Config.
var ErrConfig = errors.New("server: invalid config")

// Defaults of Config.
const (
	DefaultListen       = "127.0.0.1:8081"
	DefaultSessionTTL   = 7 * 24 * time.Hour
	DefaultMaxBodyBytes = 1 << 20
	DefaultDrainDelay   = 2 * time.Second
	// DefaultRequestTimeout bounds the work of one API request (they take
	// milliseconds), so a database that stops answering costs a user a
	// prompt 503, not a hang.
	DefaultRequestTimeout = 5 * time.Second
	// DefaultConnTimeout is Config.ConnTimeout's default.
	DefaultConnTimeout = 60 * time.Second
	// DefaultUploadTimeout bounds a test data or user import upload, body
	// transfer included.
	DefaultUploadTimeout   = 5 * time.Minute
	DefaultShutdownTimeout = 15 * time.Second
	DefaultMaxSourceBytes  = 64 << 10
	// DefaultMaxTestdataBytes matches nginx's client_max_body_size.
	DefaultMaxTestdataBytes = 64 << 20
	// DefaultMaxImportRows bounds a user import: every new user costs a
	// bcrypt hash (~0.1 s of one core at the default cost).
	DefaultMaxImportRows = 500
)

// SessionCookie is the name of the session cookie (internal/session owns
// it: the hub reads the same cookie).
const SessionCookie = sharedsession.CookieName

// Config configures New. Zero values take the documented defaults.
type Config struct {
	Store *store.Store          // required
	Redis redis.UniversalClient // required
	Names rkeys.Names
	Obs   *obs.Obs // required: logger, metrics registry, readiness checks

	// Listen is the TCP address Run listens on. Default DefaultListen.
	Listen string
	// Advertise is the host:port the edge reaches this node at, put in the
	// registry. Default: the listener's address.
	Advertise string
	// RegistryInterval is the registry heartbeat. Default
	// registry.DefaultInterval.
	RegistryInterval time.Duration
	// DrainDelay: on shutdown, time between leaving the registry (and
	// failing /readyz) and closing the listener, so the edge stops routing
	// here first. Default DefaultDrainDelay.
	DrainDelay time.Duration
	// ShutdownTimeout bounds in-flight requests after the listener closes.
	ShutdownTimeout time.Duration

	// RequestTimeout is the deadline of every API request's context.
	// Default DefaultRequestTimeout.
	RequestTimeout time.Duration
	// ConnTimeout is the read and write timeout of a connection (the
	// request body in, the answer out); uploads get UploadTimeout
	// instead. Default DefaultConnTimeout.
	ConnTimeout time.Duration
	// UploadTimeout replaces it for file uploads. Default
	// DefaultUploadTimeout.
	UploadTimeout time.Duration

	SessionTTL   time.Duration // default DefaultSessionTTL
	MaxBodyBytes int64         // default DefaultMaxBodyBytes
	// TrustedProxies are the peers whose X-Forwarded-For/-Proto headers are
	// believed. Default: loopback.
	TrustedProxies []netip.Prefix
	// Limits holds the login throttles, the registration and submission
	// rates and the password hashing admission (limits.go,
	// docs/limits.md).
	Limits
	// PasswordCost is the bcrypt cost of new passwords (0: the default).
	PasswordCost int
	// Now is the clock. Default time.Now.
	Now func() time.Time

	// Blobs is the test data blob store judges download from (a blob.Dir
	// or a blob.S3). Required.
	Blobs blob.Store
	// MaxSourceBytes caps a submission's source. Default
	// DefaultMaxSourceBytes.
	MaxSourceBytes int
	// MaxTestdataBytes caps an uploaded test data zip. Default
	// DefaultMaxTestdataBytes.
	MaxTestdataBytes int64
	// MaxImportRows caps the rows of one user import. Default
	// DefaultMaxImportRows.
	MaxImportRows int
	// Judging configures the judging machinery (results consumer,
	// reconciler, scoreboards); Store, Redis, Names, Logger, Metrics and
	// Now are filled in from this Config.
	Judging judging.Config
	// Partitions configures the job that adds submission partitions before
	// ids reach the catch-all; DB, Logger and Metrics are filled in from
	// this Config.
	Partitions partition.Config
	// SettingsTTL is how long the node caches the site settings (the
	// registration mode): a change reaches every node within it. Default
	// settings.DefaultTTL.
	SettingsTTL time.Duration
	// ReadCache is the cache the Store's hot reads go through (nil:
	// none); the server purges it, here and on every node, after each
	// request that may change what it keeps (readcache.go).
	ReadCache *readcache.Cache
	// Admission bounds the requests the node works on at once and how
	// long one waits for its turn (admission.go); zero values take the
	// package's defaults. AdmissionOff lets every request in.
	Admission    admission.Config
	AdmissionOff bool
	// CCSKeepAlive is the longest the Contest API event feed stays
	// silent before a keep-alive newline. Default DefaultCCSKeepAlive.
	CCSKeepAlive time.Duration
	// NoBackground: Serve does not run the consumer, reconciler,
	// publisher and partition job (tests drive them).
	NoBackground bool
}
