package testpkg

import (
	"slices"
	"testing"
)

// TestProgramManifest: a language checker's and interactor's manifest
// fields are checked (a language the judges cannot run, a main source of
// another ending or a reserved name) and read back.
func TestProgramManifest(t *testing.T) {
	// An interactor in Python: its language read back.
	ip := Package{Cases: []Case{{In: []byte("1 2\n"), Ans: []byte("3\n")}},
		Interactor: &Interactor{Name: "guess.py", Language: "py3", Convention: ConventionKattis, Source: []byte("print()"),
			Files: map[string][]byte{"util.py": []byte("")}}}
	b, _, err := ip.Build()
	if err != nil {
		t.Fatal(err)
	}
	if m, err := CheckBytes(b, DefaultLimits()); err != nil || m.Interactor != "guess.py" || m.InteractorLanguage != "py3" ||
		m.ProgramLanguage() != "py3" || !slices.Equal(m.InteractorFiles, []string{"util.py"}) {
		t.Errorf("interactor read back %v %+v", err, m)
	}
	ip.Interactor.Name = "interactor.cpp"
	if _, _, err := ip.Build(); err == nil {
		t.Error("a Python interactor named interactor.cpp was built")
	}

	for _, tc := range []struct {
		name string
		opt  CheckerOptions
		ok   bool
	}{
		{"python", CheckerOptions{Name: "v.py", Language: "py3", Convention: ConventionKattis}, true},
		{"java", CheckerOptions{Name: "Main.java", Language: "java17"}, true},
		{"go", CheckerOptions{Name: "main.go", Language: "go"}, false},
		{"wrong ending", CheckerOptions{Name: "v.cpp", Language: "py3"}, false},
		{"main among its files", CheckerOptions{Name: "v.py", Language: "py3", Files: map[string][]byte{"v.py": nil}}, false},
	} {
		p := Package{Cases: []Case{{In: []byte("1 2\n"), Ans: []byte("3\n")}}}
		p.Checker, p.CheckerOptions = []byte("print()"), tc.opt
		b, _, err := p.Build()
		if (err == nil) != tc.ok {
			t.Errorf("%s: build: %v, want ok %v", tc.name, err, tc.ok)
			continue
		}
		if err != nil {
			continue
		}
		m, err := CheckBytes(b, DefaultLimits())
		if err != nil || m.Checker != tc.opt.Name || m.CheckerLanguage != tc.opt.Language || m.ProgramLanguage() != tc.opt.Language ||
			!slices.Equal(m.CheckerFiles, nil) {
			t.Errorf("%s: read back %v %+v", tc.name, err, m)
		}
	}
}
