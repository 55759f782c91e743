package blob

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// ErrS3Config reports an unusable S3Config or s3:// URL.
var ErrS3Config = errors.New("blob: invalid S3 configuration")

// Defaults of S3Config.
const (
	// DefaultS3Endpoint is Amazon S3's global endpoint.
	DefaultS3Endpoint = "s3.amazonaws.com"
	// DefaultS3MaxRetries: a request is tried this often (with backoff)
	// before its error is returned; a judge download waits on it, and the
	// judge retries on its own.
	DefaultS3MaxRetries = 3
)

// S3Config configures NewS3.
type S3Config struct {
	// Endpoint is the host[:port] of the S3 API. Default
	// DefaultS3Endpoint.
	Endpoint string
	// Bucket holds the blobs; it must exist. Required.
	Bucket string
	// Prefix is put before every key: a blob is <Prefix>sha256/<hash>.
	// Empty, or ending in "/".
	Prefix string
	// Region of the bucket; empty lets the client ask the server.
	Region string
	// Insecure speaks plain HTTP (a MinIO on the same host, say). Default
	// HTTPS.
	Insecure bool
	// PathStyle sends path-style requests (https://endpoint/bucket/key),
	// which MinIO and most self-hosted stores need; false lets the client
	// choose (virtual-host style on Amazon S3).
	PathStyle bool
	// AccessKey, SecretKey and SessionToken are static credentials. When
	// AccessKey is empty the credentials come, at each request, from the
	// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
	// AWS_SESSION_TOKEN; or MINIO_ROOT_USER, MINIO_ROOT_PASSWORD) or the
	// shared credentials file (AWS_SHARED_CREDENTIALS_FILE, default
	// ~/.aws/credentials, profile AWS_PROFILE); with none of them the
	// requests are anonymous.
	AccessKey, SecretKey, SessionToken string
	// Transport carries the HTTP requests. Default: minio-go's.
	Transport http.RoundTripper
	// MaxRetries is how often a request is tried. Default
	// DefaultS3MaxRetries.
	MaxRetries int
	// TempDir is where Put spools a blob while hashing it (the key is the
	// hash, known only at the end). Default os.TempDir().
	TempDir string
}

// ParseS3URL reads the --blob-s3 form of an S3Config:
//
//	s3://BUCKET[/PREFIX][?endpoint=HOST[:PORT]][&region=REGION][&insecure=true][&path-style=true]
//
// Credentials never go in the URL (they come from the environment, see
// S3Config).
func ParseS3URL(raw string) (S3Config, error) {
	bad := func(format string, a ...any) (S3Config, error) {
		return S3Config{}, fmt.Errorf("%w: %q: "+format, append([]any{ErrS3Config, raw}, a...)...)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("%v", err)
	}
	if u.Scheme != "s3" {
		return bad("want s3://bucket/prefix")
	}
	if u.User != nil {
		return bad("credentials do not belong in the URL: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	c := S3Config{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}
	if c.Prefix != "" {
		c.Prefix += "/"
	}
	for k, v := range u.Query() {
		if len(v) != 1 {
			return bad("%s given %d times", k, len(v))
		}
		switch k {
		case "endpoint":
			c.Endpoint = v[0]
		case "region":
			c.Region = v[0]
		case "insecure", "path-style":
			b, err := strconv.ParseBool(v[0])
			if err != nil {
				return bad("%s=%q: want true or false", k, v[0])
			}
			if k == "insecure" {
				c.Insecure = b
			} else {
				c.PathStyle = b
			}
		default:
			return bad("unknown parameter %q (endpoint, region, insecure, path-style)", k)
		}
	}
	if err := c.check(); err != nil {
		return S3Config{}, err
	}
	return c, nil
}

func (c *S3Config) check() error {
	if c.Endpoint == "" {
		c.Endpoint = DefaultS3Endpoint
	}
	if !validBucket(c.Bucket) {
		return fmt.Errorf("%w: bucket %q: want 3 to 63 of a-z 0-9 . -", ErrS3Config, c.Bucket)
	}
	if strings.ContainsAny(c.Endpoint, "/?#@ ") {
		return fmt.Errorf("%w: endpoint %q: want host[:port]", ErrS3Config, c.Endpoint)
	}
	if c.Prefix != "" && (!strings.HasSuffix(c.Prefix, "/") || strings.HasPrefix(c.Prefix, "/") || strings.Contains(c.Prefix, "//")) {
		return fmt.Errorf("%w: prefix %q: want empty or a/b/ (no leading slash, a trailing one)", ErrS3Config, c.Prefix)
	}
	return nil
}

func validBucket(b string) bool {
	if len(b) < 3 || len(b) > 63 {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// S3 stores blobs as objects <Prefix>sha256/<hash> of one bucket of an
// S3-compatible store. It is a Store.
type S3 struct {
	cfg    S3Config
	client *minio.Client
	core   minio.Core // the single-request PUT that takes the payload's hash
}

// NewS3 connects to the store and checks that the bucket exists (ctx bounds
// that check).
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	creds := credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{}, &credentials.EnvMinio{}, &credentials.FileAWSCredentials{},
	})
	if cfg.AccessKey != "" {
		creds = credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)
	}
	if cfg.MaxRetries <= 0 {
		cfg.MaxRetries = DefaultS3MaxRetries
	}
	opt := &minio.Options{Creds: creds, Secure: !cfg.Insecure, Region: cfg.Region, Transport: cfg.Transport,
		MaxRetries: cfg.MaxRetries}
	if cfg.PathStyle {
		opt.BucketLookup = minio.BucketLookupPath
	}
	cl, err := minio.New(cfg.Endpoint, opt)
	if err != nil {
		return nil, fmt.Errorf("blob s3 %s: %w", cfg.Endpoint, err)
	}
	ok, err := cl.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("blob s3: bucket %s at %s: %w", cfg.Bucket, cfg.Endpoint, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w: bucket %s does not exist at %s", ErrS3Config, cfg.Bucket, cfg.Endpoint)
	}
	return &S3{cfg: cfg, client: cl, core: minio.Core{Client: cl}}, nil
}

// Key is the object key of the blob named h.
func (s *S3) Key(h string) string { return s.cfg.Prefix + "sha256/" + h }

// Bucket is the bucket the blobs are in.
func (s *S3) Bucket() string { return s.cfg.Bucket }

// notFound reports whether err is S3's answer for a missing object (not a
// missing bucket, which is a configuration error).
func notFound(err error) bool {
	r := minio.ToErrorResponse(err)
	return r.Code == minio.NoSuchKey || (r.StatusCode == http.StatusNotFound && r.Code != minio.NoSuchBucket)
}

// Put spools r to a temporary file while hashing it, then uploads it
// under its hash unless the object exists, in one PUT signed with that
// hash (x-amz-content-sha256), so the store itself rejects bytes that
// changed on the way. An S3 PUT is atomic: readers never see a partial
// blob. One PUT holds at most 5 GiB, above any test data limit.
func (s *S3) Put(ctx context.Context, r io.Reader) (hash string, size int64, err error) {
	tmp, err := os.CreateTemp(s.cfg.TempDir, "verdict-blob-*")
	if err != nil {
		return "", 0, fmt.Errorf("blob s3 put: %w", err)
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	h := sha256.New()
	size, err = io.Copy(io.MultiWriter(tmp, h), ctxReader{ctx, r})
	if err != nil {
		return "", 0, fmt.Errorf("blob s3 put: %w", err)
	}
	hash = hex.EncodeToString(h.Sum(nil))
	if ok, err := s.Has(ctx, hash); err != nil {
		return "", 0, fmt.Errorf("blob s3 put: %w", err)
	} else if ok {
		return hash, size, nil
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return "", 0, fmt.Errorf("blob s3 put: %w", err)
	}
	// DisableContentSha256 turns off minio-go's chunked streaming
	// signature (its default over plain HTTP), so the hash given here is
	// what the request is signed with.
	_, err = s.core.PutObject(ctx, s.cfg.Bucket, s.Key(hash), tmp, size, "", hash,
		minio.PutObjectOptions{ContentType: "application/octet-stream", DisableContentSha256: true})
	if err != nil {
		return "", 0, fmt.Errorf("blob s3 put %s: %w", hash, err)
	}
	return hash, size, nil
}

// PutBytes stores b.
func (s *S3) PutBytes(ctx context.Context, b []byte) (string, error) {
	h, _, err := s.Put(ctx, bytes.NewReader(b))
	return h, err
}

// Open returns the blob named h, or ErrNotFound. Reading streams the
// object (a Seek makes the next Read ask for a range); ctx bounds the
// whole read.
func (s *S3) Open(ctx context.Context, h string) (*Object, error) {
	if !ValidHash(h) {
		return nil, fmt.Errorf("blob open %q: %w", h, ErrBadHash)
	}
	obj, err := s.client.GetObject(ctx, s.cfg.Bucket, s.Key(h), minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("blob s3 open %s: %w", h, err)
	}
	info, err := obj.Stat()
	if err != nil {
		obj.Close()
		if notFound(err) {
			return nil, fmt.Errorf("blob s3 open %s: %w", h, ErrNotFound)
		}
		return nil, fmt.Errorf("blob s3 open %s: %w", h, err)
	}
	return &Object{rsc: obj, Size: info.Size, ModTime: info.LastModified}, nil
}

// Has reports whether the blob named h exists.
func (s *S3) Has(ctx context.Context, h string) (bool, error) {
	if !ValidHash(h) {
		return false, fmt.Errorf("blob has %q: %w", h, ErrBadHash)
	}
	_, err := s.client.StatObject(ctx, s.cfg.Bucket, s.Key(h), minio.StatObjectOptions{})
	if notFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("blob s3 has %s: %w", h, err)
	}
	return true, nil
}
