package testpkg

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func interactivePkg() Package {
	return Package{
		Cases: []Case{{In: []byte("1 100 37\n"), Ans: []byte("37\n")}, {In: []byte("1 10 1\n"), Ans: []byte("1\n")}},
		Interactor: &Interactor{Source: []byte("#include \"testlib.h\"\nint main(){}\n"),
			Files: map[string][]byte{"testlib.h": []byte("// tiny\n")}},
	}
}

// TestInteractiveRoundTrip: an interactive package builds, reads back
// with the same manifest on the web node's side (CheckBytes) and unpacks
// with its interactor's files on the judge's.
func TestInteractiveRoundTrip(t *testing.T) {
	p := interactivePkg()
	b, m, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	if !m.Interactive || m.Interactor != InteractorCPP || m.InteractorConvention != ConventionTestlib || !slices.Equal(m.InteractorFiles, []string{"testlib.h"}) {
		t.Fatalf("manifest %+v", m)
	}
	b2, _, _ := p.Build()
	if !bytes.Equal(b, b2) {
		t.Fatal("not deterministic")
	}
	for name, read := range map[string]func() (Manifest, error){
		"Read":       func() (Manifest, error) { return Read(b) },
		"CheckBytes": func() (Manifest, error) { return CheckBytes(b, DefaultLimits()) },
	} {
		got, err := read()
		if err != nil || !got.Interactive || got.Interactor != InteractorCPP || !slices.Equal(got.InteractorFiles, m.InteractorFiles) {
			t.Fatalf("%s: %v %+v", name, err, got)
		}
	}
	dir := t.TempDir()
	if _, err := Unpack(bytes.NewReader(b), int64(len(b)), dir, UnpackLimits{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{InteractorCPP, "testlib.h", "1.in", "2.ans"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}

	// Kattis convention, in C, with flags.
	p.Interactor = &Interactor{Name: InteractorC, Convention: ConventionKattis, Source: []byte("int main(){return 42;}"), Args: []string{"float_tolerance", "1e-6"}}
	b, _, err = p.Build()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(b)
	if err != nil || got.InteractorConvention != ConventionKattis || got.Interactor != InteractorC || !slices.Equal(got.InteractorArgs, []string{"float_tolerance", "1e-6"}) {
		t.Fatalf("kattis: %v %+v", err, got)
	}
}

// TestInteractiveRejects: every malformed interactive manifest is refused
// (by the same code on both sides), naming what is wrong.
func TestInteractiveRejects(t *testing.T) {
	base := map[string]string{"1.in": "1\n", "1.ans": "1\n"}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no interactor", with(map[string]string{ManifestName: `{"interactive":true}`}), "needs its interactor"},
		{"bad interactor name", with(map[string]string{ManifestName: `{"interactive":true,"interactor":"x.py"}`, "x.py": ""}), `interactor "x.py"`},
		{"missing source", with(map[string]string{ManifestName: `{"interactive":true,"interactor":"interactor.cpp"}`}), "names interactor.cpp, which the package lacks"},
		{"source without manifest", with(map[string]string{InteractorCPP: "int main(){}"}), "interactor.cpp: unexpected file"},
		{"fields without interactive", with(map[string]string{ManifestName: `{"interactor_convention":"kattis"}`}), `without "interactive"`},
		{"bad convention", with(map[string]string{ManifestName: `{"interactive":true,"interactor":"interactor.cpp","interactor_convention":"polygon"}`, InteractorCPP: ""}), `interactor_convention "polygon"`},
		{"kattis with checker", with(map[string]string{ManifestName: `{"interactive":true,"interactor":"interactor.cpp","interactor_convention":"kattis","checker":"checker.cpp"}`, InteractorCPP: "", CheckerName: ""}), "cannot also have checker.cpp"},
		{"unlisted header", with(map[string]string{ManifestName: `{"interactive":true,"interactor":"interactor.cpp"}`, InteractorCPP: "", "testlib.h": ""}), "testlib.h: unexpected file"},
		{"listed header missing", with(map[string]string{ManifestName: `{"interactive":true,"interactor":"interactor.cpp","interactor_files":["validate.h"]}`, InteractorCPP: ""}), "names validate.h, which the package lacks"},
		{"case file as header", with(map[string]string{ManifestName: `{"interactive":true,"interactor":"interactor.cpp","interactor_files":["1.in"]}`, InteractorCPP: ""}), `"1.in" is not a plain top-level file name`},
		{"header path", with(map[string]string{ManifestName: `{"interactive":true,"interactor":"interactor.cpp","interactor_files":["../h"]}`, InteractorCPP: ""}), `"../h" is not a plain`},
		{"arg with NUL", with(map[string]string{ManifestName: `{"interactive":true,"interactor":"interactor.cpp","interactor_args":["a\u0000b"]}`, InteractorCPP: ""}), "NUL byte"},
		{"too large", with(map[string]string{ManifestName: `{"interactive":true,"interactor":"interactor.cpp"}`, InteractorCPP: strings.Repeat("x", MaxCheckerSize+1)}), "limit"},
	} {
		b := mkzip(t, tc.files)
		for name, read := range map[string]func() (Manifest, error){
			"Read":       func() (Manifest, error) { return Read(b) },
			"CheckBytes": func() (Manifest, error) { return CheckBytes(b, DefaultLimits()) },
			"Unpack": func() (Manifest, error) {
				return Unpack(bytes.NewReader(b), int64(len(b)), t.TempDir(), UnpackLimits{})
			},
		} {
			_, err := read()
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %s: %v, want %q", tc.name, name, err, tc.want)
			}
		}
	}
	// Build refuses what Read would.
	p := interactivePkg()
	p.Interactor.Files["2.ans"] = nil
	if _, _, err := p.Build(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Build with a case name as a header: %v", err)
	}
	p = interactivePkg()
	p.Checker = []byte("int main(){}")
	p.Interactor.Convention = ConventionKattis
	if _, _, err := p.Build(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Build kattis with a checker: %v", err)
	}
}
