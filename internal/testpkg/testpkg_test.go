package testpkg

import (
	"archive/zip"
	"bytes"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

func mkzip(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	// Sorted, so that a test naming the first bad file sees the same order
	// every run.
	for _, name := range slices.Sorted(maps.Keys(files)) {
		body := files[name]
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestBuildDeterministicAndReadable(t *testing.T) {
	cases := []Case{{[]byte("1 2\n"), []byte("3\n")}, {[]byte("2 2\n"), []byte("4\n")}, {[]byte("0 0\n"), []byte("0\n")}}
	subs := []Subtask{{Name: "small", Points: 40, Cases: []int{1}}, {Name: "all", Points: 60, Cases: []int{2, 3}}}
	a, m, err := Build(cases, subs)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Build(cases, subs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("Build is not deterministic")
	}
	got, err := Read(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cases) != 3 || len(got.Subtasks) != 2 || got.Subtasks[1].Points != 60 || len(m.Cases) != 3 {
		t.Fatalf("Read = %+v", got)
	}
}

func TestBuildRejects(t *testing.T) {
	one := []Case{{[]byte("1"), []byte("1")}}
	for _, tc := range []struct {
		name  string
		cases []Case
		subs  []Subtask
		want  string
	}{
		{"no cases", nil, nil, "no test cases"},
		{"case out of range", one, []Subtask{{Name: "s", Points: 1, Cases: []int{2}}}, "names case 2"},
		{"case twice", []Case{one[0], one[0]}, []Subtask{{Name: "a", Cases: []int{1}}, {Name: "b", Cases: []int{1}}}, "case 1 is in subtasks"},
		{"empty subtask", one, []Subtask{{Name: "a"}}, "has no cases"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Build(tc.cases, tc.subs)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalid containing %q", err, tc.want)
			}
		})
	}
}

func TestReadNamesBadFile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // substring naming the file
	}{
		{"missing ans", map[string]string{"1.in": "", "2.in": "", "1.ans": ""}, "2.ans"},
		{"gap", map[string]string{"1.in": "", "1.ans": "", "3.in": "", "3.ans": ""}, "2.in"},
		{"stray file", map[string]string{"1.in": "", "1.ans": "", "notes.txt": ""}, "notes.txt"},
		{"nested", map[string]string{"1.in": "", "1.ans": "", "data/2.in": ""}, "data/2.in"},
		{"leading zero", map[string]string{"01.in": "", "01.ans": ""}, "01.ans"},
		{"bad manifest", map[string]string{"1.in": "", "1.ans": "", "manifest.json": "{"}, "manifest.json"},
		{"unknown manifest field", map[string]string{"1.in": "", "1.ans": "", "manifest.json": `{"checker":"x"}`}, "manifest.json"},
		{"empty", map[string]string{}, "no test cases"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(mkzip(t, tc.files))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalid naming %q", err, tc.want)
			}
		})
	}
	if _, err := Read([]byte("not a zip")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Read(garbage) = %v", err)
	}
}

func FuzzRead(f *testing.F) {
	good, _, _ := Build([]Case{{[]byte("1"), []byte("1")}}, []Subtask{{Name: "a", Points: 1, Cases: []int{1}}})
	f.Add(good)
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Read(b)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		if len(m.Cases) == 0 {
			t.Fatal("valid package without cases")
		}
	})
}

func TestBuildWithChecker(t *testing.T) {
	p := Package{Cases: []Case{{[]byte("1\n"), []byte("1\n")}}, Checker: []byte("int main(){}\n")}
	a, m, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := p.Build()
	if !bytes.Equal(a, b) {
		t.Fatal("Build with a checker is not deterministic")
	}
	if m.Checker != CheckerName {
		t.Fatalf("manifest checker = %q", m.Checker)
	}
	got, err := Read(a)
	if err != nil || got.Checker != CheckerName {
		t.Fatalf("Read = %+v, %v", got, err)
	}
	// Without a checker the bytes are what they always were.
	plain, _, _ := Build(p.Cases, nil)
	if got, _ := Read(plain); got.Checker != "" {
		t.Fatalf("plain package has checker %q", got.Checker)
	}
	// A manifest naming a checker the zip lacks is invalid.
	_, err = Read(mkzip(t, map[string]string{"1.in": "", "1.ans": "", "manifest.json": `{"checker":"checker.cpp"}`}))
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "lacks") {
		t.Fatalf("err = %v", err)
	}
	// A checker without a manifest entry is still found.
	got, err = Read(mkzip(t, map[string]string{"1.in": "", "1.ans": "", "checker.cpp": "x"}))
	if err != nil || got.Checker != CheckerName {
		t.Fatalf("Read = %+v, %v", got, err)
	}
}

// TestSamplesInManifest: sample cases are marked in the manifest, read
// back by Read, and a sample index outside the package is refused.
func TestSamplesInManifest(t *testing.T) {
	cases := []Case{{In: []byte("1\n"), Ans: []byte("1\n")}, {In: []byte("2\n"), Ans: []byte("2\n")}}
	zip, m, err := Package{Cases: cases, Samples: []int{1}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Samples(); len(got) != 1 || got[0] != 1 {
		t.Fatalf("built samples %v", got)
	}
	read, err := Read(zip)
	if err != nil {
		t.Fatal(err)
	}
	if !read.Cases[0].Sample || read.Cases[1].Sample {
		t.Fatalf("read cases %+v", read.Cases)
	}
	if _, _, err := (Package{Cases: cases, Samples: []int{3}}).Build(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("sample 3 of 2: %v", err)
	}
}
