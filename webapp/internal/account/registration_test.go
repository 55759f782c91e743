package account

import (
	"errors"
	"slices"
	"testing"
)

func TestRegistrationNormalize(t *testing.T) {
	p := Registration{Mode: RegistrationDomains, Domains: []string{" Uni.EDU ", "@cs.uni.edu", "uni.edu.", "school.org"}}
	if err := p.Normalize(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"cs.uni.edu", "school.org", "uni.edu"}; !slices.Equal(p.Domains, want) {
		t.Fatalf("domains %v, want %v", p.Domains, want)
	}
	for _, tc := range []struct {
		name  string
		p     Registration
		field string
	}{
		{"unknown mode", Registration{Mode: "sometimes"}, "mode"},
		{"empty mode", Registration{}, "mode"},
		{"domains without any", Registration{Mode: RegistrationDomains}, "domains"},
		{"one label", Registration{Mode: RegistrationOpen, Domains: []string{"localhost"}}, "domains"},
		{"bad character", Registration{Mode: RegistrationDomains, Domains: []string{"uni_edu.org"}}, "domains"},
		{"leading hyphen", Registration{Mode: RegistrationDomains, Domains: []string{"-uni.edu"}}, "domains"},
		{"empty label", Registration{Mode: RegistrationDomains, Domains: []string{"uni..edu"}}, "domains"},
		{"too many", Registration{Mode: RegistrationDomains, Domains: make([]string, MaxRegistrationDomains+1)}, "domains"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Normalize()
			fe, ok := errors.AsType[*FieldError](err)
			if !ok || fe.Field != tc.field || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want a field error on %s", err, tc.field)
			}
		})
	}
}

func TestRegistrationAdmits(t *testing.T) {
	dom := Registration{Mode: RegistrationDomains, Domains: []string{"uni.edu"}}
	for _, tc := range []struct {
		name  string
		p     Registration
		email string
		want  string // "", "closed" or the field
	}{
		{"open, no address", DefaultRegistration(), "", ""},
		{"open, any address", DefaultRegistration(), "a@example.org", ""},
		{"closed", Registration{Mode: RegistrationClosed}, "a@uni.edu", "closed"},
		{"domain", dom, "a@uni.edu", ""},
		{"domain, upper case", dom, "a@UNI.Edu", ""},
		{"subdomain", dom, "a@cs.uni.edu", ""},
		{"other domain", dom, "a@example.org", "email"},
		{"suffix that is not a subdomain", dom, "a@evil-uni.edu", "email"},
		{"domain as a prefix", dom, "a@uni.edu.evil.org", "email"},
		{"no address", dom, "", "email"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Admits(tc.email)
			switch {
			case tc.want == "" && err != nil, tc.want == "closed" && !errors.Is(err, ErrRegistrationClosed):
				t.Fatalf("err = %v, want %q", err, tc.want)
			case tc.want == "email":
				if fe, ok := errors.AsType[*FieldError](err); !ok || fe.Field != "email" {
					t.Fatalf("err = %v, want a field error on email", err)
				}
			}
		})
	}
}
