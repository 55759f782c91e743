package account

import (
	"errors"
	"slices"
	"strings"
)

// Registration modes: who may create an account on POST /api/users.
const (
	// RegistrationOpen: anyone (the default of a new deployment).
	RegistrationOpen = "open"
	// RegistrationClosed: nobody; admins create accounts (POST /api/users
	// as an admin, or the CSV import).
	RegistrationClosed = "closed"
	// RegistrationDomains: only with an e-mail address at one of Domains
	// (or a subdomain of one).
	RegistrationDomains = "domains"
)

// MaxRegistrationDomains bounds the domain list.
const MaxRegistrationDomains = 100

// ErrRegistrationClosed: self-registration is switched off.
var ErrRegistrationClosed = errors.New("account: registration is closed")

// Registration is the self-registration policy, set by admins at run time.
type Registration struct {
	Mode    string   `json:"mode"`
	Domains []string `json:"domains"`
}

// DefaultRegistration is the policy before an admin sets one: open.
func DefaultRegistration() Registration {
	return Registration{Mode: RegistrationOpen, Domains: []string{}}
}

// Normalize validates p and puts its domains in one form (lower case, no
// leading "@" or trailing ".", sorted, without duplicates). A failure is a
// *FieldError naming "mode" or "domains". Domains are kept in every mode
// (switching to closed and back keeps the list) but must be given for
// RegistrationDomains.
func (p *Registration) Normalize() error {
	switch p.Mode {
	case RegistrationOpen, RegistrationClosed, RegistrationDomains:
	default:
		return fieldErr("mode", "must be open, closed or domains")
	}
	if len(p.Domains) > MaxRegistrationDomains {
		return fieldErr("domains", "at most %d domains", MaxRegistrationDomains)
	}
	out := make([]string, 0, len(p.Domains))
	for _, d := range p.Domains {
		d = strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(d)), "@"), ".")
		if !validDomain(d) {
			return fieldErr("domains", "%q is not a domain name like example.edu", d)
		}
		out = append(out, d)
	}
	slices.Sort(out)
	p.Domains = slices.Compact(out)
	if p.Mode == RegistrationDomains && len(p.Domains) == 0 {
		return fieldErr("domains", "list at least one domain when the mode is domains")
	}
	return nil
}

// validDomain accepts a DNS name of at least two labels of a-z 0-9 -.
func validDomain(d string) bool {
	if len(d) > 253 {
		return false
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// Admits decides a self-registration with the (already validated) e-mail
// address: nil, ErrRegistrationClosed, or a *FieldError on "email" when
// the address is missing or at another domain.
func (p Registration) Admits(email string) error {
	switch p.Mode {
	case RegistrationOpen:
		return nil
	case RegistrationDomains:
		list := strings.Join(p.Domains, ", ")
		if email == "" {
			return fieldErr("email", "is required: registration is open to e-mail addresses at %s", list)
		}
		domain := strings.ToLower(email[strings.LastIndexByte(email, '@')+1:])
		for _, d := range p.Domains {
			if domain == d || strings.HasSuffix(domain, "."+d) {
				return nil
			}
		}
		return fieldErr("email", "registration is open only to e-mail addresses at %s", list)
	}
	return ErrRegistrationClosed
}
