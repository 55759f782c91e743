package testpkg

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestSubtaskDependsChecked: a dependency must name another subtask; the
// field survives Build and Read.
func TestSubtaskDependsChecked(t *testing.T) {
	cases := []Case{{In: []byte("1"), Ans: []byte("1")}, {In: []byte("2"), Ans: []byte("2")}}
	good := []Subtask{{Name: "a", Points: 40, Cases: []int{1}}, {Name: "b", Points: 60, Cases: []int{2}, Depends: []string{"a"}}}
	b, _, err := Build(cases, good)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Subtasks) != 2 || len(m.Subtasks[1].Depends) != 1 || m.Subtasks[1].Depends[0] != "a" {
		t.Fatalf("subtasks %+v", m.Subtasks)
	}
	for _, deps := range [][]string{{"nope"}, {"b"}} {
		bad := []Subtask{{Name: "a", Points: 40, Cases: []int{1}}, {Name: "b", Points: 60, Cases: []int{2}, Depends: deps}}
		if _, _, err := Build(cases, bad); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "depends on") {
			t.Fatalf("depends %q: err %v", deps, err)
		}
	}
}

func TestDependsMet(t *testing.T) {
	for _, tc := range []struct {
		name    string
		names   []string
		depends [][]string
		own     []bool
		want    []bool
	}{
		{"none", []string{"a", "b"}, [][]string{nil, nil}, []bool{false, true}, []bool{true, true}},
		{"direct", []string{"a", "b"}, [][]string{nil, {"a"}}, []bool{false, true}, []bool{true, false}},
		{"transitive", []string{"a", "b", "c"}, [][]string{nil, {"a"}, {"b"}}, []bool{false, true, true}, []bool{true, false, false}},
		{"forward reference", []string{"c", "a"}, [][]string{{"a"}, nil}, []bool{true, true}, []bool{true, true}},
		{"cycle", []string{"a", "b"}, [][]string{{"b"}, {"a"}}, []bool{true, true}, []bool{false, false}},
		{"unknown", []string{"a"}, [][]string{{"x"}}, []bool{true}, []bool{false}},
	} {
		got := DependsMet(tc.names, tc.depends, tc.own)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
