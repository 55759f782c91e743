package protocol

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden is one canonical message per type: the golden files are these,
// marshalled and indented.
type golden struct {
	typ     Type
	id      string
	payload any
	// name, when set, names the golden file instead of the type: a
	// second canonical message of a type (a custom run's task and result).
	name string
}

func (g golden) file() string {
	if g.name != "" {
		return g.name
	}
	return string(g.typ)
}

func goldenMessages() []golden {
	cases := []CaseResult{
		{Case: 1, Verdict: VerdictAC, CPUMs: 12, WallMs: 15, MemoryKiB: 3120, Score: 10},
		{Case: 2, Verdict: VerdictWA, CPUMs: 8, WallMs: 9, MemoryKiB: 3088, Score: 0, Message: "line 1: expected 3, found 4"},
	}
	ref := TaskRef{SubmissionID: 1042, Attempt: 1}
	data := TestData{
		Hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		URL:  "https://web.verdict.example/api/judge/testdata/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	}
	sub := Channel{Kind: ChannelSubmission, ID: 1042}
	var out []golden
	for _, g := range []struct {
		typ     Type
		id      string
		payload any
	}{
		{TypeHello, "", Hello{
			JudgeID: "judge-a1", Token: "example-token-not-a-secret", AgentVersion: "0.1.0",
			Cores: 8, MemoryBytes: 17179869184,
			Languages:    []Language{{ID: "c11", Version: "gcc 12.2.0"}, {ID: "cpp17", Version: "g++ 12.2.0"}, {ID: "py3", Version: "Python 3.11.2"}},
			CachedData:   []string{data.Hash},
			MaxParallel:  4,
			Capabilities: []string{CapabilityInputValidation, CapabilityProgramLanguages},
		}},
		{TypeWelcome, "", Welcome{Accepted: true, HubID: "hub-1", HeartbeatIntervalMs: 3000, ResultAcks: true}},
		{TypeHeartbeat, "", Heartbeat{Running: 2, Queued: 1, Load1: 1.75, MemUsedRatio: 0.42, Cores: 8,
			Tasks:      []TaskRef{ref, {SubmissionID: 1043, Attempt: 2}},
			Prefetched: []PrefetchOutcome{{Hash: data.Hash}, {Hash: "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752", Error: "download: 404 Not Found"}},
			Evicted:    []string{"2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"}}},
		{TypeTask, "", Task{
			TaskRef: ref, ProblemID: 7, TestData: data, Language: "cpp17",
			Source: "#include <cstdio>\nint main(){int a,b;scanf(\"%d%d\",&a,&b);printf(\"%d\\n\",a+b);}\n",
			Limits: Limits{TimeMs: 1000, WallTimeMs: 3000, MemoryKiB: 262144, OutputBytes: 67108864},
			Mode:   ModeIOI, Checker: Checker{Kind: CheckerFloat, Tolerance: 1e-6}, Priority: PriorityContest,
			EnqueuedMs: 1764950400120, DispatchedMs: 1764950400185, NoticedMs: 1764950400124,
			Held: &Held{Busy: 1, Affinity: 2, AffinityMs: 1764950400131},
		}},
		{TypeAccept, "", Accept{TaskRef: ref}},
		{TypeResultAck, "", ResultAck{TaskRef: ref, SlotMs: 412.5}},
		{TypeReject, "", Reject{TaskRef: ref, Reason: RejectLanguage, Message: "language py3 is not installed"}},
		{TypeProgress, "", Progress{TaskRef: ref, Status: VerdictJudging, Cases: cases}},
		{TypeResult, "", Result{TaskRef: ref, Verdict: VerdictWA, Score: 10, Cases: cases, JudgeID: "judge-a1", SentMs: 1764950401730}},
		{TypeCancel, "", Cancel{TaskRef: ref, Reason: CancelLeaseLost}},
		{TypeEvict, "", Evict{ProblemID: 7, DataHash: data.Hash}},
		{TypePrefetch, "", Prefetch{ProblemID: 7, TestData: data}},
		{TypeDrain, "", Drain{Reason: "hub restarting", RetryAfterMs: 2000}},

		{TypeSubscribe, "s1", Subscribe{Channel: sub, SinceSeq: 3}},
		{TypeUnsubscribe, "s2", Unsubscribe{Channel: sub}},
		{TypeSnapshot, "s1", Snapshot{Channel: sub, Seq: 3,
			State: mustJSON(SubmissionState{SubmissionID: 1042, Status: VerdictJudging, Score: 10, Cases: cases[:1]})}},
		{TypeEvent, "", Event{Channel: sub, Seq: 4, Kind: EventCases,
			Body: mustJSON(SubmissionState{SubmissionID: 1042, Status: VerdictJudging, Score: 10, Cases: cases[1:]})}},
		{TypeQueue, "", QueueNotice{QueueLength: 120, Position: 17, ETASeconds: 45, Overloaded: true}},
		{TypeError, "s3", Error{Code: ErrorForbidden, Message: "not your submission", Channel: &Channel{Kind: ChannelSubmission, ID: 99}}},
	} {
		out = append(out, golden{typ: g.typ, id: g.id, payload: g.payload})
	}
	return append(out, []golden{
		// Custom runs (customrun.go).
		{typ: TypeTask, payload: Task{
			TaskRef: customRef, ProblemID: 7, Language: "py3",
			Source: "print(int(input()) * 2)\n",
			Limits: Limits{TimeMs: 1000, MemoryKiB: 262144, OutputBytes: 67108864},
			Mode:   ModeICPC, Checker: Checker{Kind: CheckerDefault}, Priority: PriorityCustom,
			Custom: &CustomRun{Input: "21\n", Samples: []SampleCase{{Case: 1, Input: "1\n", Answer: "2\n"}}},
		}, name: "task_custom_run"},
		{typ: TypeResult, payload: Result{TaskRef: customRef, Verdict: VerdictAC, Cases: []CaseResult{}, JudgeID: "judge-a1",
			Custom: customRuns}, name: "result_custom_run"},
		// File I/O and output-only problems (problemio.go).
		{typ: TypeTask, payload: Task{
			TaskRef: TaskRef{SubmissionID: 1044, Attempt: 1}, ProblemID: 8, TestData: TestData{Hash: outputsHash},
			Language: "cpp17", Source: "#include <cstdio>\nint main(){freopen(\"input.txt\",\"r\",stdin);freopen(\"output.txt\",\"w\",stdout);}\n",
			Limits: Limits{TimeMs: 1000, MemoryKiB: 262144, OutputBytes: 67108864},
			Mode:   ModeICPC, Checker: Checker{Kind: CheckerDefault}, Priority: PriorityContest,
			IO: &FileIO{InputFile: "input.txt", OutputFile: "output.txt"},
		}, name: "task_file_io"},
		{typ: TypeTask, payload: Task{
			TaskRef: TaskRef{SubmissionID: 1045, Attempt: 1}, ProblemID: 9, TestData: TestData{Hash: outputsHash},
			Language: LanguageOutputs, Source: mustOutputs(Outputs{Files: []OutputFile{{Case: 1, Data: []byte("3\n")}, {Case: 2, Data: []byte("7\n")}}}),
			Limits: Limits{TimeMs: 1000, MemoryKiB: 262144, OutputBytes: 67108864},
			Mode:   ModeIOI, Checker: Checker{Kind: CheckerSpecial}, Priority: PriorityContest,
		}, name: "task_output_only"},
		// A package whose output validator is written in Python (needs
		// CapabilityProgramLanguages).
		{typ: TypeTask, payload: Task{
			TaskRef: TaskRef{SubmissionID: 1046, Attempt: 1}, ProblemID: 10, TestData: data,
			Language: "cpp17", Source: "#include <cstdio>\nint main(){int n;scanf(\"%d\",&n);printf(\"%d\\n\",n*2);}\n",
			Limits: Limits{TimeMs: 1000, MemoryKiB: 262144, OutputBytes: 67108864},
			Mode:   ModeICPC, Checker: Checker{Kind: CheckerSpecial, Language: "py3"}, Priority: PriorityContest,
		}, name: "task_checker_language"},
		{typ: TypeEvent, payload: Event{Channel: Channel{Kind: ChannelUser, ID: 5}, Seq: 12, Kind: EventCustomRun,
			Body: mustJSON(CustomRunState{RunID: customRef.SubmissionID, ProblemID: 7, Status: VerdictAC, Runs: customRuns})},
			name: "event_custom_run"},
		// Input validation at import (validation.go).
		{typ: TypeTask, payload: Task{
			TaskRef: TaskRef{SubmissionID: CustomRunIDBase + 18, Attempt: 1}, ProblemID: 7, TestData: data, Language: "cpp17",
			Limits: Limits{TimeMs: 10000, MemoryKiB: 1048576, OutputBytes: 65536},
			Mode:   ModeICPC, Checker: Checker{Kind: CheckerDefault}, Priority: PriorityCustom,
			Validation: &InputValidation{Convention: ValidationKattis, Name: ValidatorCPP,
				Source: "#include \"check.h\"\nint main(){return valid() ? 42 : 43;}\n",
				Files:  map[string]string{"check.h": "bool valid();\n"}, Args: []string{"--max", "100"},
				CaseArgs: map[int][]string{2: {"--max", "1000"}}},
		}, name: "task_validation"},
		{typ: TypeResult, payload: Result{TaskRef: TaskRef{SubmissionID: CustomRunIDBase + 18, Attempt: 1}, Verdict: VerdictWA,
			Cases: []CaseResult{}, JudgeID: "judge-a1", Custom: []CustomOutput{
				{Case: 1, Verdict: VerdictAC, CPUMs: 1, WallMs: 2, MemoryKiB: 1024, ExitCode: 42},
				{Case: 2, Verdict: VerdictWA, CPUMs: 1, WallMs: 2, MemoryKiB: 1024, ExitCode: 43, Message: "n = 101 > 100"},
			}}, name: "result_validation"},
		// Balloons (balloons.go).
		{typ: TypeEvent, payload: Event{Channel: Channel{Kind: ChannelBalloons, ID: 3}, Seq: 7, Kind: EventBalloon,
			Body: mustJSON(BalloonChange{ContestID: 3, What: "delivered", Team: "42", ProblemID: 7})}, name: "event_balloon"},
	}...)
}

var (
	customRef  = TaskRef{SubmissionID: CustomRunIDBase + 17, Attempt: 1}
	customRuns = []CustomOutput{
		{Case: 0, Verdict: VerdictAC, CPUMs: 9, WallMs: 14, MemoryKiB: 8200, Stdout: "42\n", Stderr: "debug\n"},
		{Case: 1, Verdict: VerdictAC, CPUMs: 8, WallMs: 12, MemoryKiB: 8192, Stdout: "2\n"},
	}
)

const outputsHash = "3a6eb0790f39ac87c94f3856b2dd2c5d110e6811602261a9a923d3bb23adc8b7"

func mustOutputs(o Outputs) string {
	s, err := EncodeOutputs(o)
	if err != nil {
		panic(err)
	}
	return s
}

func mustJSON(v any) json.RawMessage {
	b, err := marshalNoEscape(v)
	if err != nil {
		panic(err)
	}
	return b
}

func goldenPath(g golden) string {
	link, _ := LinkOf(g.typ)
	return filepath.Join("testdata", link.String(), g.file()+".json")
}

func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		t.Fatalf("indent: %v", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

func TestGoldenCoversEveryType(t *testing.T) {
	seen := map[Type]bool{}
	for _, g := range goldenMessages() {
		if g.name != "" {
			continue // a second message of its type
		}
		if seen[g.typ] {
			t.Errorf("type %q has two golden messages", g.typ)
		}
		seen[g.typ] = true
	}
	for typ := range registry {
		if !seen[typ] {
			t.Errorf("type %q has no golden message", typ)
		}
	}
}

func TestGolden(t *testing.T) {
	for _, g := range goldenMessages() {
		t.Run(g.file(), func(t *testing.T) {
			b, err := Marshal(g.typ, g.id, g.payload)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			got := indent(t, b)
			path := goldenPath(g)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden (run with -update to create): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from Marshal output (run with -update if intended)\ngot:\n%s\nwant:\n%s", path, got, want)
			}

			// The file decodes back to the canonical value.
			link, _ := LinkOf(g.typ)
			env, err := Decode(link, want)
			if err != nil {
				t.Fatalf("Decode(%s): %v", path, err)
			}
			if env.Type != g.typ || env.ID != g.id || env.V != Version {
				t.Errorf("envelope = v%d %q %q, want v%d %q %q", env.V, env.Type, env.ID, Version, g.typ, g.id)
			}
			payload, err := decodePayload(env)
			if err != nil {
				t.Fatalf("decode payload: %v", err)
			}
			if !reflect.DeepEqual(payload, g.payload) {
				t.Errorf("decoded payload\n%#v\nwant\n%#v", payload, g.payload)
			}
		})
	}
}

func TestGoldenCloseCodes(t *testing.T) {
	b, err := json.Marshal(CloseCodes())
	if err != nil {
		t.Fatal(err)
	}
	got := indent(t, b)
	path := filepath.Join("testdata", "close_codes.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update if intended)\ngot:\n%s", path, got)
	}
	var back []CloseCodeInfo
	if err := json.Unmarshal(want, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, CloseCodes()) {
		t.Errorf("%s decodes to %v, want %v", path, back, CloseCodes())
	}
}

// TestGoldenFilesHaveNoStrays fails if a golden file exists for a type that
// no longer does, so the frontend does not test against a dead message.
func TestGoldenFilesHaveNoStrays(t *testing.T) {
	for _, link := range []Link{LinkJudge, LinkLive} {
		files, err := filepath.Glob(filepath.Join("testdata", link.String(), "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			name := filepath.Base(f[:len(f)-len(".json")])
			typ := Type(name)
			for _, g := range goldenMessages() {
				if g.name == name {
					typ = g.typ
				}
			}
			if l, ok := LinkOf(typ); !ok || l != link {
				t.Errorf("stray golden file %s: no %s message type %q", f, link, typ)
			}
		}
	}
}
