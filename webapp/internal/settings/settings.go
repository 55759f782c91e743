package settings

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// DefaultTTL is how long a node trusts its cached settings.
const DefaultTTL = 5 * time.Second

// NameRegistration is the settings row of the registration policy.
const NameRegistration = "registration"

// Config configures New.
type Config struct {
	Store  *store.Store // required
	TTL    time.Duration
	Now    func() time.Time
	Logger *slog.Logger
}

// Service reads and writes the settings.
type Service struct {
	cfg Config

	mu  sync.Mutex
	reg account.Registration
	at  time.Time // when reg was read; zero: never
}

// New returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil {
		return nil, errors.New("settings: Store is required")
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg}, nil
}

// Registration is the current registration policy (account.Registration;
// DefaultRegistration until an admin sets one).
func (s *Service) Registration(ctx context.Context) (account.Registration, error) {
	now := s.cfg.Now()
	s.mu.Lock()
	if !s.at.IsZero() && now.Sub(s.at) < s.cfg.TTL {
		r := s.reg
		s.mu.Unlock()
		return r, nil
	}
	s.mu.Unlock()
	r := account.DefaultRegistration()
	b, err := s.cfg.Store.Setting(ctx, NameRegistration)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return account.Registration{}, fmt.Errorf("settings: read registration: %w", err)
	default:
		err := json.Unmarshal(b, &r)
		if err == nil {
			err = r.Normalize()
		}
		if err != nil {
			// Written only through SetRegistration, which normalizes: a
			// bad row is an edit by hand. Closed is the safe reading.
			s.cfg.Logger.Error("stored registration policy is invalid; treating registration as closed", "value", string(b), "err", err)
			r = account.Registration{Mode: account.RegistrationClosed, Domains: []string{}}
		}
	}
	s.mu.Lock()
	s.reg, s.at = r, now
	s.mu.Unlock()
	return r, nil
}

// SetRegistration validates p (a *account.FieldError on "mode" or
// "domains"), stores it as set by the user by, and returns it normalized.
func (s *Service) SetRegistration(ctx context.Context, p account.Registration, by int64) (account.Registration, error) {
	if err := p.Normalize(); err != nil {
		return account.Registration{}, err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return account.Registration{}, fmt.Errorf("settings: encode registration: %w", err)
	}
	if err := s.cfg.Store.PutSetting(ctx, NameRegistration, b, by); err != nil {
		return account.Registration{}, err
	}
	s.mu.Lock()
	s.reg, s.at = p, s.cfg.Now()
	s.mu.Unlock()
	s.cfg.Logger.Info("registration policy changed", "mode", p.Mode, "domains", p.Domains, "user_id", by)
	return p, nil
}
