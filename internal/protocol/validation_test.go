package protocol

import (
	"slices"
	"strings"
	"testing"
)

// TestValidationTask: what an input validation's task must carry, and
// the validator's bounds.
func TestValidationTask(t *testing.T) {
	ok := func() Task {
		return Task{
			TaskRef: TaskRef{SubmissionID: CustomRunIDBase + 1, Attempt: 1}, ProblemID: 7,
			TestData: TestData{Hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}, Language: "cpp17",
			Limits: Limits{TimeMs: 10000, MemoryKiB: 1 << 20, OutputBytes: 1 << 16},
			Mode:   ModeICPC, Checker: Checker{Kind: CheckerDefault}, Priority: PriorityCustom,
			Validation: &InputValidation{Convention: ValidationKattis, Name: ValidatorCPP, Source: "int main(){return 42;}",
				Files: map[string]string{"lim.h": "#define N 9"}},
		}
	}
	for _, tc := range []struct {
		name string
		mut  func(*Task)
		want string // "" valid
	}{
		{"valid", func(*Task) {}, ""},
		{"testlib C", func(t *Task) { t.Validation.Convention, t.Validation.Name = ValidationTestlib, ValidatorC }, ""},
		{"submission id", func(t *Task) { t.SubmissionID = 5 }, "validation id 5"},
		{"no test data", func(t *Task) { t.TestData = TestData{} }, "needs the test data"},
		{"with a custom run", func(t *Task) { t.Custom = &CustomRun{} }, "no custom run"},
		{"convention", func(t *Task) { t.Validation.Convention = "viva" }, `convention "viva"`},
		{"python, several sources", func(t *Task) {
			t.Language, t.Validation.Name, t.Validation.Files = "py3", "validate.py", map[string]string{"util.py": "N = 9"}
		}, ""},
		{"per-case flags", func(t *Task) { t.Validation.Args, t.Validation.CaseArgs = []string{"a"}, map[int][]string{2: {"b"}} }, ""},
		{"case 0 flags", func(t *Task) { t.Validation.CaseArgs = map[int][]string{0: {"b"}} }, "case 0 < 1"},
		{"name a path", func(t *Task) { t.Validation.Name = "../main.py" }, `name "../main.py"`},
		{"no name", func(t *Task) { t.Validation.Name = "" }, `name ""`},
		{"no source", func(t *Task) { t.Validation.Source = "" }, "source is empty"},
		{"a path as a file", func(t *Task) { t.Validation.Files = map[string]string{"../x.h": ""} }, `"../x.h" is not a plain file name`},
		{"the source's name as a file", func(t *Task) { t.Validation.Files = map[string]string{ValidatorCPP: ""} }, "not a plain file name"},
		{"too big", func(t *Task) { t.Validation.Files = map[string]string{"big.h": strings.Repeat("x", MaxValidatorBytes)} }, "bytes of source"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := ok()
			tc.mut(&task)
			err := task.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestCapabilities: a hello without capabilities (an older judge)
// decodes to none; the canonical hello round-trips its own; only an
// input validation needs one.
func TestCapabilities(t *testing.T) {
	old := `{"v":1,"type":"hello","data":{"judge_id":"j","token":"t","agent_version":"0.0.9","cores":2,"memory_bytes":0,"languages":[{"id":"cpp17","version":"g++"}],"cached_data":[],"max_parallel":1}}`
	env, err := Decode(LinkJudge, []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	h, err := DecodeData[Hello](env)
	if err != nil || h.Capabilities != nil {
		t.Fatalf("old hello: %+v, %v", h.Capabilities, err)
	}
	b, err := Marshal(TypeHello, "", Hello{JudgeID: "j", Token: "t", Cores: 1, MaxParallel: 1, Capabilities: []string{CapabilityInputValidation}})
	if err != nil {
		t.Fatal(err)
	}
	if env, err = Decode(LinkJudge, b); err != nil {
		t.Fatal(err)
	}
	if h, err = DecodeData[Hello](env); err != nil || len(h.Capabilities) != 1 || h.Capabilities[0] != CapabilityInputValidation {
		t.Fatalf("round trip: %+v, %v", h.Capabilities, err)
	}
	if _, err := Marshal(TypeHello, "", Hello{JudgeID: "j", Token: "t", Cores: 1, MaxParallel: 1, Capabilities: []string{""}}); err == nil {
		t.Fatal("an empty capability was sent")
	}
	if n := (Task{}).Needs(); n != nil {
		t.Fatalf("a submission needs %v", n)
	}
	if n := (Task{Validation: &InputValidation{}}).Needs(); len(n) != 1 || n[0] != CapabilityInputValidation {
		t.Fatalf("a validation needs %v", n)
	}
	if n := (Task{Validation: &InputValidation{BuildOnly: true}}).Needs(); !slices.Equal(n, []string{CapabilityInputValidation, CapabilityBuildCheck}) {
		t.Fatalf("a build check needs %v", n)
	}
	for _, tc := range []struct {
		name    string
		checker Checker
		want    []string
	}{
		{"C++ special judge", Checker{Kind: CheckerSpecial}, nil},
		{"Python output validator", Checker{Kind: CheckerSpecial, Language: "py3"}, []string{CapabilityProgramLanguages}},
		{"Java interactor, default checker", Checker{Kind: CheckerDefault, Language: "java17"}, []string{CapabilityProgramLanguages}},
		{"ICPC default output validator", Checker{Kind: CheckerICPC}, []string{CapabilityICPCValidator}},
		{"float checker", Checker{Kind: CheckerFloat, Tolerance: 1e-6}, nil},
	} {
		if n := (Task{Checker: tc.checker}).Needs(); !slices.Equal(n, tc.want) {
			t.Errorf("%s: needs %v, want %v", tc.name, n, tc.want)
		}
	}
	// Test data with the ICPC default grader's rules.
	if n := (Task{Checker: Checker{Kind: CheckerICPC}, Grading: true}).Needs(); !slices.Equal(n, []string{CapabilityICPCValidator, CapabilityGrading}) {
		t.Errorf("grading: needs %v", n)
	}
}
