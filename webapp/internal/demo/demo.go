package demo

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/tokens"
	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// ErrConfig reports an unusable Config.
var ErrConfig = errors.New("demo: invalid config")

// ContestSlug is the demo contest's slug.
const ContestSlug = "demo"

// Contest timing: the demo contest is running whenever the demo is loaded.
const (
	ContestStartedAgo = 10 * time.Minute
	ContestLength     = 5 * time.Hour
)

// Invalidator is told after the problem list changed (the catalog cache).
type Invalidator interface {
	InvalidateProblems(ctx context.Context) error
}

// Config configures Load.
type Config struct {
	Store *store.Store // required
	Blobs blob.Store   // required
	// Cache is invalidated when problems were created. Optional.
	Cache Invalidator
	// LoginsFile records the demo logins; required.
	LoginsFile string
	// JudgeTokenDir receives <dir>/judge-N/token for N = 1..Judges.
	JudgeTokenDir string
	Judges        int
	// PasswordCost is the bcrypt cost of new passwords; 0 means
	// account.BcryptCost.
	PasswordCost int
	// Now is the clock. Default time.Now.
	Now    func() time.Time
	Logger *slog.Logger // default: discard
}

// Login is a demo account and its password.
type Login struct {
	Username string
	Password string
	Label    string // "administrator", "student"
}

// Result says what Load found or made.
type Result struct {
	Logins     []Login
	Problems   []string // slugs
	ContestID  int64
	JudgeNames []string
}

type demoUser struct {
	name, display, role, label string
}

var demoUsers = []demoUser{
	{"admin", "Administrator", store.RoleAdmin, "administrator"},
	{"student", "Demo Student", store.RoleStudent, "student"},
}

// Load creates whatever demo data is missing and keeps what exists.
//
// Logins: a user that exists and whose password in the logins file still
// matches is kept; a user that exists without a matching recorded password
// gets a new random one; a missing user is created (with the recorded
// password if the file has one). The file is rewritten (mode 0600) only
// when its content changes.
func Load(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Store == nil || cfg.Blobs == nil || cfg.LoginsFile == "" {
		return Result{}, fmt.Errorf("%w: Store, Blobs and LoginsFile are required", ErrConfig)
	}
	if cfg.Judges > 0 && cfg.JudgeTokenDir == "" {
		return Result{}, fmt.Errorf("%w: JudgeTokenDir is required with Judges > 0", ErrConfig)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	l := &loader{cfg: cfg, log: cfg.Logger}
	var res Result
	var err error
	if res.Logins, err = l.logins(ctx); err != nil {
		return res, err
	}
	admin, err := cfg.Store.UserByUsername(ctx, "admin")
	if err != nil {
		return res, fmt.Errorf("demo: %w", err)
	}
	ids := map[string]int64{}
	for _, s := range samples() {
		id, err := l.problem(ctx, s, admin.ID)
		if err != nil {
			return res, err
		}
		ids[s.problem.Slug] = id
		res.Problems = append(res.Problems, s.problem.Slug)
	}
	if l.problemsChanged && cfg.Cache != nil {
		if err := cfg.Cache.InvalidateProblems(ctx); err != nil {
			l.log.Warn("demo: cannot invalidate the problem cache", "err", err)
		}
	}
	if res.ContestID, err = l.contest(ctx, admin.ID, ids); err != nil {
		return res, err
	}
	for i := 1; i <= cfg.Judges; i++ {
		name := "judge-" + strconv.Itoa(i)
		if err := l.judge(ctx, name); err != nil {
			return res, err
		}
		res.JudgeNames = append(res.JudgeNames, name)
	}
	return res, nil
}

type loader struct {
	cfg             Config
	log             *slog.Logger
	problemsChanged bool
}

func (l *loader) logins(ctx context.Context) ([]Login, error) {
	recorded, old, err := readLogins(l.cfg.LoginsFile)
	if err != nil {
		return nil, err
	}
	var out []Login
	for _, du := range demoUsers {
		pw, inFile := recorded[du.name]
		u, err := l.cfg.Store.UserByUsername(ctx, du.name)
		switch {
		case errors.Is(err, store.ErrNotFound):
			if !inFile || account.ValidatePassword(pw) != nil {
				pw = account.RandomPassword()
			}
			hash, err := account.HashPassword(pw, l.cfg.PasswordCost)
			if err != nil {
				return nil, err
			}
			if _, err := l.cfg.Store.CreateUser(ctx, store.User{Username: du.name, DisplayName: du.display,
				Role: du.role, PasswordHash: hash}); err != nil {
				return nil, fmt.Errorf("demo: create %s: %w", du.name, err)
			}
			l.log.Info("demo: created login", "username", du.name)
		case err != nil:
			return nil, fmt.Errorf("demo: %w", err)
		case inFile && account.CheckPassword(u.PasswordHash, pw):
			// Kept.
		default:
			pw = account.RandomPassword()
			hash, err := account.HashPassword(pw, l.cfg.PasswordCost)
			if err != nil {
				return nil, err
			}
			if err := l.cfg.Store.SetPasswordHash(ctx, u.ID, hash); err != nil {
				return nil, fmt.Errorf("demo: reset %s: %w", du.name, err)
			}
			l.log.Info("demo: reset the password of a login missing from the logins file", "username", du.name)
		}
		out = append(out, Login{Username: du.name, Password: pw, Label: du.label})
	}
	content := formatLogins(out)
	if !bytes.Equal(content, old) {
		if err := writeFileAtomic(l.cfg.LoginsFile, content, 0o600); err != nil {
			return nil, fmt.Errorf("demo: write logins: %w", err)
		}
	}
	return out, nil
}

func formatLogins(ls []Login) []byte {
	var b bytes.Buffer
	b.WriteString("# Verdict demo logins, written by `webapp demo`. Delete this file to get new passwords.\n")
	for _, l := range ls {
		fmt.Fprintf(&b, "%-8s %s   (%s)\n", l.Username, l.Password, l.Label)
	}
	return b.Bytes()
}

// readLogins parses a logins file: "username password (label)" lines,
// '#' comments. A missing file is empty.
func readLogins(path string) (map[string]string, []byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("demo: read logins: %w", err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 2 {
			out[f[0]] = f[1]
		}
	}
	return out, b, nil
}

// problem makes sure the sample problem exists with its test data, and
// returns its id. An existing problem's metadata is left as it is (an admin
// may have edited it); its test data is set only when it has none.
func (l *loader) problem(ctx context.Context, s sample, adminID int64) (int64, error) {
	slug := s.problem.Slug
	p, err := l.cfg.Store.ProblemBySlug(ctx, slug)
	switch {
	case errors.Is(err, store.ErrNotFound):
		np := s.problem
		np.CreatedBy.Int64, np.CreatedBy.Valid = adminID, true
		if _, err := l.cfg.Store.CreateProblem(ctx, np); err != nil && !errors.Is(err, store.ErrDuplicate) {
			return 0, fmt.Errorf("demo: %w", err)
		}
		if p, err = l.cfg.Store.ProblemBySlug(ctx, slug); err != nil {
			return 0, fmt.Errorf("demo: %w", err)
		}
		l.problemsChanged = true
		l.log.Info("demo: created problem", "slug", slug)
	case err != nil:
		return 0, fmt.Errorf("demo: %w", err)
	}
	pkg, manifest, err := s.pkg().Build()
	if err != nil {
		return 0, fmt.Errorf("demo: %s: %w", slug, err)
	}
	// The blob is stored even when the version is known: the blob dir may
	// have been wiped while MySQL kept its rows.
	hash, err := l.cfg.Blobs.PutBytes(ctx, pkg)
	if err != nil {
		return 0, fmt.Errorf("demo: %s: %w", slug, err)
	}
	if p.TestdataHash.Valid && p.TestdataHash.String != "" {
		return p.ID, nil
	}
	mj, err := json.Marshal(manifest)
	if err != nil {
		return 0, fmt.Errorf("demo: %s: %w", slug, err)
	}
	v := store.TestdataVersion{ProblemID: p.ID, Hash: hash, SizeBytes: int64(len(pkg)),
		CaseCount: len(manifest.Cases), Manifest: mj}
	v.UploadedBy.Int64, v.UploadedBy.Valid = adminID, true
	if err := l.cfg.Store.AddTestdataVersion(ctx, v); err != nil {
		return 0, fmt.Errorf("demo: %s: %w", slug, err)
	}
	l.log.Info("demo: stored test data", "slug", slug, "hash", hash, "cases", len(manifest.Cases), "bytes", len(pkg))
	return p.ID, nil
}

func (l *loader) contest(ctx context.Context, adminID int64, problems map[string]int64) (int64, error) {
	now := l.cfg.Now().UTC().Truncate(time.Second)
	start, end := now.Add(-ContestStartedAgo), now.Add(-ContestStartedAgo+ContestLength)
	c, err := l.cfg.Store.ContestBySlug(ctx, ContestSlug)
	switch {
	case errors.Is(err, store.ErrNotFound):
		nc := store.Contest{
			Slug:  ContestSlug,
			Title: "Demo Contest",
			Description: "A practice contest under ICPC rules: solved problems rank first, " +
				"then penalty time (minutes to acceptance plus 20 per rejected try before it).",
			Rule: store.ModeICPC, StartAt: start, EndAt: end, FreezeMinutes: 60,
			Registration: store.RegistrationOpen, Visible: true,
		}
		nc.CreatedBy.Int64, nc.CreatedBy.Valid = adminID, true
		if _, err := l.cfg.Store.CreateContest(ctx, nc); err != nil && !errors.Is(err, store.ErrDuplicate) {
			return 0, fmt.Errorf("demo: %w", err)
		}
		if c, err = l.cfg.Store.ContestBySlug(ctx, ContestSlug); err != nil {
			return 0, fmt.Errorf("demo: %w", err)
		}
		l.log.Info("demo: created contest", "slug", ContestSlug)
	case err != nil:
		return 0, fmt.Errorf("demo: %w", err)
	case !now.Before(c.EndAt):
		// An ended demo contest is useless to someone trying the stack.
		if err := l.cfg.Store.SetContestWindow(ctx, c.ID, start, end); err != nil {
			return 0, fmt.Errorf("demo: %w", err)
		}
		l.log.Info("demo: the demo contest had ended; restarted it", "slug", ContestSlug)
	}
	for _, cp := range []struct {
		label, slug string
	}{{"A", "a-plus-b"}, {"B", "circle-area"}} {
		if err := l.cfg.Store.AddContestProblem(ctx, c.ID, problems[cp.slug], cp.label, 100); err != nil {
			return 0, fmt.Errorf("demo: %w", err)
		}
	}
	student, err := l.cfg.Store.UserByUsername(ctx, "student")
	if err != nil {
		return 0, fmt.Errorf("demo: %w", err)
	}
	if err := l.cfg.Store.AddParticipant(ctx, c.ID, student.ID); err != nil {
		return 0, fmt.Errorf("demo: %w", err)
	}
	return c.ID, nil
}

// judge keeps the token file of judge name if its hash is the judge's
// (unrevoked) hash, or records it when the judge is new; otherwise it
// issues a new token and writes it.
func (l *loader) judge(ctx context.Context, name string) error {
	path := filepath.Join(l.cfg.JudgeTokenDir, name, "token")
	var token string
	if b, err := os.ReadFile(path); err == nil {
		token = strings.TrimSpace(string(b))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("demo: judge %s: %w", name, err)
	}
	validFile := len(token) == 64 && blob.ValidHash(token)
	j, err := l.cfg.Store.JudgeByName(ctx, name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if validFile {
			l.log.Info("demo: registered an existing judge token", "judge", name)
			return l.cfg.Store.SetJudgeToken(ctx, name, tokens.Hash(token))
		}
	case err != nil:
		return fmt.Errorf("demo: %w", err)
	case validFile && !j.RevokedAt.Valid && subtle.ConstantTimeCompare(j.TokenHash, tokens.Hash(token)) == 1:
		return nil
	}
	token = tokens.New()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("demo: judge %s: %w", name, err)
	}
	// File first: a crash between the two leaves a file the next run
	// registers (judge absent) or replaces (hash mismatch), never a judge
	// row whose token nobody has.
	if err := writeFileAtomic(path, []byte(token+"\n"), 0o600); err != nil {
		return fmt.Errorf("demo: judge %s: %w", name, err)
	}
	if err := l.cfg.Store.SetJudgeToken(ctx, name, tokens.Hash(token)); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	l.log.Info("demo: issued a judge token", "judge", name, "file", path)
	return nil
}

func writeFileAtomic(path string, b []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
