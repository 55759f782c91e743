package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeErrors(t *testing.T) {
	longID := strings.Repeat("x", MaxIDLength+1)
	bigJudge := `{"v":1,"type":"hello","data":{"token":"` + strings.Repeat("a", MaxJudgeMessage) + `"}}`
	bigLive := `{"v":1,"type":"subscribe","data":{"x":"` + strings.Repeat("a", MaxLiveMessage) + `"}}`
	tests := []struct {
		name string
		link Link
		in   string
		want error
	}{
		{"empty input", LinkJudge, ``, ErrMalformed},
		{"not json", LinkJudge, `hello`, ErrMalformed},
		{"truncated", LinkJudge, `{"v":1,"type":"hello","data":{}`, ErrMalformed},
		{"array", LinkJudge, `[1,2]`, ErrMalformed},
		{"null", LinkJudge, `null`, ErrMalformed},
		{"string", LinkLive, `"event"`, ErrMalformed},
		{"missing v", LinkJudge, `{"type":"hello","data":{}}`, ErrMalformed},
		{"null v", LinkJudge, `{"v":null,"type":"hello","data":{}}`, ErrMalformed},
		{"string v", LinkJudge, `{"v":"1","type":"hello","data":{}}`, ErrMalformed},
		{"float v", LinkJudge, `{"v":1.5,"type":"hello","data":{}}`, ErrMalformed},
		{"version 0", LinkJudge, `{"v":0,"type":"hello","data":{}}`, ErrUnsupportedVersion},
		{"version 2", LinkLive, `{"v":2,"type":"event","data":{}}`, ErrUnsupportedVersion},
		{"negative version", LinkLive, `{"v":-1,"type":"event","data":{}}`, ErrUnsupportedVersion},
		{"missing type", LinkJudge, `{"v":1,"data":{}}`, ErrMalformed},
		{"numeric type", LinkJudge, `{"v":1,"type":3,"data":{}}`, ErrMalformed},
		{"empty type", LinkJudge, `{"v":1,"type":"","data":{}}`, ErrEmptyType},
		{"unknown type", LinkJudge, `{"v":1,"type":"bogus","data":{}}`, ErrUnknownType},
		{"type case differs", LinkJudge, `{"v":1,"type":"Hello","data":{}}`, ErrUnknownType},
		{"live type on judge link", LinkJudge, `{"v":1,"type":"subscribe","data":{}}`, ErrUnknownType},
		{"judge type on live link", LinkLive, `{"v":1,"type":"task","data":{}}`, ErrUnknownType},
		{"numeric id", LinkLive, `{"v":1,"type":"subscribe","id":7,"data":{}}`, ErrMalformed},
		{"null id", LinkLive, `{"v":1,"type":"subscribe","id":null,"data":{}}`, ErrMalformed},
		{"long id", LinkLive, `{"v":1,"type":"subscribe","id":"` + longID + `","data":{}}`, ErrMalformed},
		{"missing data", LinkJudge, `{"v":1,"type":"hello"}`, ErrMalformed},
		{"null data", LinkJudge, `{"v":1,"type":"hello","data":null}`, ErrMalformed},
		{"array data", LinkJudge, `{"v":1,"type":"hello","data":[]}`, ErrMalformed},
		{"string data", LinkJudge, `{"v":1,"type":"hello","data":"x"}`, ErrMalformed},
		{"oversize judge", LinkJudge, bigJudge, ErrTooLarge},
		{"oversize live", LinkLive, bigLive, ErrTooLarge},
		{"unknown link", Link(9), `{"v":1,"type":"hello","data":{}}`, ErrUnknownLink},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, err := Decode(tc.link, []byte(tc.in))
			if !errors.Is(err, tc.want) {
				t.Fatalf("Decode error = %v, want %v", err, tc.want)
			}
			if !reflect.DeepEqual(env, Envelope{}) {
				t.Errorf("Decode returned %+v with an error, want the zero Envelope", env)
			}
		})
	}
}

func TestDecodeAccepts(t *testing.T) {
	tests := []struct {
		name string
		link Link
		in   string
		want Envelope
	}{
		{
			"minimal", LinkLive, `{"v":1,"type":"unsubscribe","data":{}}`,
			Envelope{V: 1, Type: TypeUnsubscribe, Data: []byte(`{}`)},
		},
		{
			"unknown envelope fields ignored, data compacted", LinkLive,
			" {\"extra\":[1,2], \"data\": { \"channel\" : {\"kind\":\"queue\"} },\"id\":\"a<b\",\"type\":\"subscribe\",\"v\":1}\n",
			Envelope{V: 1, Type: TypeSubscribe, ID: "a<b", Data: []byte(`{"channel":{"kind":"queue"}}`)},
		},
		{
			"exactly max size", LinkLive, padTo(`{"v":1,"type":"unsubscribe","data":{},"pad":"`, `"}`, MaxLiveMessage),
			Envelope{V: 1, Type: TypeUnsubscribe, Data: []byte(`{}`)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, err := Decode(tc.link, []byte(tc.in))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(env, tc.want) {
				t.Errorf("Decode = %+v (data %s), want %+v (data %s)", env, env.Data, tc.want, tc.want.Data)
			}
		})
	}
}

func padTo(head, tail string, size int) string {
	return head + strings.Repeat("p", size-len(head)-len(tail)) + tail
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name string
		link Link
		env  Envelope
		want error
	}{
		{"zero version", LinkJudge, Envelope{Type: TypeAccept, Data: []byte(`{}`)}, ErrUnsupportedVersion},
		{"empty type", LinkJudge, Envelope{V: 1, Data: []byte(`{}`)}, ErrEmptyType},
		{"wrong link", LinkLive, Envelope{V: 1, Type: TypeAccept, Data: []byte(`{}`)}, ErrUnknownType},
		{"nil data", LinkJudge, Envelope{V: 1, Type: TypeAccept}, ErrMalformed},
		{"invalid data", LinkJudge, Envelope{V: 1, Type: TypeAccept, Data: []byte(`{`)}, ErrMalformed},
		{"array data", LinkJudge, Envelope{V: 1, Type: TypeAccept, Data: []byte(`[]`)}, ErrMalformed},
		{"long id", LinkJudge, Envelope{V: 1, Type: TypeAccept, ID: strings.Repeat("i", MaxIDLength+1), Data: []byte(`{}`)}, ErrMalformed},
		{"too large", LinkLive, Envelope{V: 1, Type: TypeEvent, Data: []byte(`{"b":"` + strings.Repeat("b", MaxLiveMessage) + `"}`)}, ErrTooLarge},
		{"unknown link", Link(0), Envelope{V: 1, Type: TypeAccept, Data: []byte(`{}`)}, ErrUnknownLink},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if b, err := Encode(tc.link, tc.env); !errors.Is(err, tc.want) {
				t.Fatalf("Encode = %q, %v; want error %v", b, err, tc.want)
			}
		})
	}
}

func TestEncodeDoesNotEscapeHTML(t *testing.T) {
	b, err := Encode(LinkLive, Envelope{V: 1, Type: TypeError, ID: "<&>", Data: []byte(`{ "code": "x", "message": "a<b" }`)})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"v":1,"type":"error","id":"<&>","data":{"code":"x","message":"a<b"}}`
	if string(b) != want {
		t.Errorf("Encode = %s, want %s", b, want)
	}
}

func TestMarshalErrors(t *testing.T) {
	valid := Accept{TaskRef{SubmissionID: 1, Attempt: 1}}
	var nilAccept *Accept
	tests := []struct {
		name    string
		typ     Type
		payload any
		want    error
	}{
		{"empty type", "", valid, ErrEmptyType},
		{"unknown type", "nope", valid, ErrUnknownType},
		{"wrong payload struct", TypeReject, valid, ErrPayloadMismatch},
		{"nil payload", TypeAccept, nil, ErrPayloadMismatch},
		{"nil pointer", TypeAccept, nilAccept, ErrPayloadMismatch},
		{"map payload", TypeAccept, map[string]any{"submission_id": 1}, ErrPayloadMismatch},
		{"invalid payload", TypeAccept, Accept{}, ErrInvalidPayload},
		{"too large", TypeTask, Task{
			TaskRef: TaskRef{1, 1}, ProblemID: 1, TestData: TestData{Hash: "h"}, Language: "c",
			Source: strings.Repeat("s", MaxJudgeMessage), Limits: Limits{TimeMs: 1, MemoryKiB: 1, OutputBytes: 1},
			Mode: ModeICPC, Checker: Checker{Kind: CheckerExact},
		}, ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if b, err := Marshal(tc.typ, "", tc.payload); !errors.Is(err, tc.want) {
				t.Fatalf("Marshal = %q, %v; want error %v", b, err, tc.want)
			}
		})
	}
}

func TestMarshalPointerAndValueAgree(t *testing.T) {
	p := Accept{TaskRef{SubmissionID: 5, Attempt: 2}}
	a, err := Marshal(TypeAccept, "x", p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Marshal(TypeAccept, "x", &p)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"v":1,"type":"accept","id":"x","data":{"submission_id":5,"attempt":2}}`
	if string(a) != want || string(b) != want {
		t.Errorf("Marshal value = %s, pointer = %s, want %s", a, b, want)
	}
}

func TestDecodeData(t *testing.T) {
	env := func(typ Type, data string) Envelope { return Envelope{V: 1, Type: typ, Data: []byte(data)} }

	t.Run("ok, unknown fields ignored", func(t *testing.T) {
		got, err := DecodeData[Reject](env(TypeReject, `{"submission_id":3,"attempt":1,"reason":"busy","future":{"x":1}}`))
		if err != nil {
			t.Fatal(err)
		}
		want := Reject{TaskRef: TaskRef{3, 1}, Reason: RejectBusy}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})

	errTests := []struct {
		name string
		run  func() error
		want error
	}{
		{"wrong T", func() error { _, err := DecodeData[Accept](env(TypeReject, `{}`)); return err }, ErrPayloadMismatch},
		{"pointer T", func() error { _, err := DecodeData[*Accept](env(TypeAccept, `{}`)); return err }, ErrPayloadMismatch},
		{"unknown type", func() error { _, err := DecodeData[Accept](env("zzz", `{}`)); return err }, ErrUnknownType},
		{"wrong field type", func() error {
			_, err := DecodeData[Accept](env(TypeAccept, `{"submission_id":"3","attempt":1}`))
			return err
		}, ErrInvalidPayload},
		{"not an object", func() error { _, err := DecodeData[Accept](env(TypeAccept, `[]`)); return err }, ErrInvalidPayload},
		{"fails Validate", func() error {
			_, err := DecodeData[Accept](env(TypeAccept, `{"submission_id":3,"attempt":0}`))
			return err
		}, ErrInvalidPayload},
	}
	for _, tc := range errTests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); !errors.Is(err, tc.want) {
				t.Fatalf("error = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestPayloadValidate(t *testing.T) {
	task := func(mod func(*Task)) Task {
		tk := Task{
			TaskRef: TaskRef{1, 1}, ProblemID: 1, TestData: TestData{Hash: "h", URL: "u"}, Language: "c",
			Limits: Limits{TimeMs: 1000, MemoryKiB: 1024, OutputBytes: 1 << 20},
			Mode:   ModeICPC, Checker: Checker{Kind: CheckerDefault}, Priority: PriorityPractice,
		}
		mod(&tk)
		return tk
	}
	okCase := CaseResult{Case: 1, Verdict: VerdictAC}
	tests := []struct {
		name    string
		payload validator
		ok      bool
	}{
		{"task ok", task(func(*Task) {}), true},
		{"task attempt 0", task(func(t *Task) { t.Attempt = 0 }), false},
		{"task no hash", task(func(t *Task) { t.TestData.Hash = "" }), false},
		{"task zero time", task(func(t *Task) { t.Limits.TimeMs = 0 }), false},
		{"task negative wall", task(func(t *Task) { t.Limits.WallTimeMs = -1 }), false},
		{"task bad mode", task(func(t *Task) { t.Mode = "acm" }), false},
		{"task bad checker", task(func(t *Task) { t.Checker.Kind = "fuzzy" }), false},
		{"task float without tolerance", task(func(t *Task) { t.Checker = Checker{Kind: CheckerFloat} }), false},
		{"task float with tolerance", task(func(t *Task) { t.Checker = Checker{Kind: CheckerFloat, Tolerance: 1e-9} }), true},
		{"task bad priority", task(func(t *Task) { t.Priority = 9 }), false},
		{"task with the hub's times", task(func(t *Task) { t.EnqueuedMs, t.DispatchedMs = 1764950400120, 1764950400185 }), true},
		{"task negative enqueue time", task(func(t *Task) { t.EnqueuedMs = -1 }), false},
		{"task negative dispatch time", task(func(t *Task) { t.DispatchedMs = -5 }), false},
		{"task negative notice time", task(func(t *Task) { t.NoticedMs = -1 }), false},
		{"task held", task(func(t *Task) { t.Held = &Held{Busy: 2, Affinity: 1, AffinityMs: 1764950400130} }), true},
		{"task held negative", task(func(t *Task) { t.Held = &Held{Reserve: -1} }), false},
		{"task held for affinity without its time", task(func(t *Task) { t.Held = &Held{Affinity: 3} }), false},
		{"task affinity time without a hold", task(func(t *Task) { t.Held = &Held{Busy: 1, AffinityMs: 1764950400130} }), false},
		{"hello ok", Hello{JudgeID: "j", Token: "t", Cores: 1, MaxParallel: 1}, true},
		{"hello no token", Hello{JudgeID: "j", Cores: 1, MaxParallel: 1}, false},
		{"hello no cores", Hello{JudgeID: "j", Token: "t", MaxParallel: 1}, false},
		{"hello empty language", Hello{JudgeID: "j", Token: "t", Cores: 1, MaxParallel: 1, Languages: []Language{{}}}, false},
		{"welcome accepted needs interval", Welcome{Accepted: true}, false},
		{"welcome refused", Welcome{Reason: "bad token"}, true},
		{"heartbeat ok", Heartbeat{Cores: 2, Load1: 0.5, MemUsedRatio: 0.5}, true},
		{"heartbeat ratio > 1", Heartbeat{Cores: 2, MemUsedRatio: 1.5}, false},
		{"heartbeat bad task ref", Heartbeat{Cores: 2, Tasks: []TaskRef{{0, 1}}}, false},
		{"heartbeat prefetched", Heartbeat{Cores: 2, Prefetched: []PrefetchOutcome{{Hash: "h"}, {Hash: "g", Error: "404"}}}, true},
		{"heartbeat prefetched without hash", Heartbeat{Cores: 2, Prefetched: []PrefetchOutcome{{Error: "404"}}}, false},
		{"heartbeat evicted", Heartbeat{Cores: 2, Evicted: []string{"h"}}, true},
		{"heartbeat evicted without hash", Heartbeat{Cores: 2, Evicted: []string{""}}, false},
		{"reject no reason", Reject{TaskRef: TaskRef{1, 1}}, false},
		{"cancel ok", Cancel{TaskRef: TaskRef{1, 2}, Reason: CancelLeaseLost}, true},
		{"cancel no reason", Cancel{TaskRef: TaskRef{1, 2}}, false},
		{"cancel attempt 0", Cancel{TaskRef: TaskRef{1, 0}, Reason: CancelLeaseLost}, false},
		{"progress ok", Progress{TaskRef: TaskRef{1, 1}, Status: VerdictJudging, Cases: []CaseResult{okCase}}, true},
		{"progress final status", Progress{TaskRef: TaskRef{1, 1}, Status: VerdictAC}, false},
		{"progress case 0", Progress{TaskRef: TaskRef{1, 1}, Status: VerdictJudging, Cases: []CaseResult{{Verdict: VerdictAC}}}, false},
		{"progress case pending", Progress{TaskRef: TaskRef{1, 1}, Status: VerdictJudging, Cases: []CaseResult{{Case: 1, Verdict: VerdictPending}}}, false},
		{"result ok", Result{TaskRef: TaskRef{1, 1}, Verdict: VerdictCE, CompileMessage: "x", JudgeID: "j"}, true},
		{"result with its sending time", Result{TaskRef: TaskRef{1, 1}, Verdict: VerdictCE, JudgeID: "j", SentMs: 1764950401730}, true},
		{"result negative sending time", Result{TaskRef: TaskRef{1, 1}, Verdict: VerdictCE, JudgeID: "j", SentMs: -1}, false},
		{"result status verdict", Result{TaskRef: TaskRef{1, 1}, Verdict: VerdictJudging, JudgeID: "j"}, false},
		{"result skipped verdict", Result{TaskRef: TaskRef{1, 1}, Verdict: VerdictSkipped, JudgeID: "j"}, false},
		{"result no judge", Result{TaskRef: TaskRef{1, 1}, Verdict: VerdictAC}, false},
		{"evict hash only", Evict{DataHash: "h"}, true},
		{"evict nothing", Evict{}, false},
		{"prefetch no url (the judge's default)", Prefetch{ProblemID: 1, TestData: TestData{Hash: "h"}}, true},
		{"prefetch no hash", Prefetch{ProblemID: 1, TestData: TestData{URL: "u"}}, false},
		{"subscribe queue", Subscribe{Channel: Channel{Kind: ChannelQueue}}, true},
		{"subscribe queue with id", Subscribe{Channel: Channel{Kind: ChannelQueue, ID: 3}}, false},
		{"subscribe contest 0", Subscribe{Channel: Channel{Kind: ChannelContest}}, false},
		{"clarification change ok", ClarificationChange{ContestID: 1, ID: 2, What: "answer", Public: true}, true},
		{"clarification change bad what", ClarificationChange{ContestID: 1, ID: 2, What: "edit"}, false},
		{"clarification change no contest", ClarificationChange{ID: 2, What: "question"}, false},
		{"balloon solved ok", BalloonChange{ContestID: 1, What: "solved", SubmissionID: 9}, true},
		{"balloon delivered ok", BalloonChange{ContestID: 1, What: "delivered", Team: "7", ProblemID: 2}, true},
		{"balloon solved without submission", BalloonChange{ContestID: 1, What: "solved"}, false},
		{"balloon delivered without team", BalloonChange{ContestID: 1, What: "undelivered", ProblemID: 2}, false},
		{"balloon bad what", BalloonChange{ContestID: 1, What: "popped", SubmissionID: 9}, false},
		{"balloon no contest", BalloonChange{What: "solved", SubmissionID: 9}, false},
		{"subscribe unknown kind", Subscribe{Channel: Channel{Kind: "room", ID: 1}}, false},
		{"unsubscribe ok", Unsubscribe{Channel: Channel{Kind: ChannelUser, ID: 5}}, true},
		{"snapshot no state", Snapshot{Channel: Channel{Kind: ChannelUser, ID: 5}}, false},
		{"event seq 0", Event{Channel: Channel{Kind: ChannelUser, ID: 5}, Kind: EventStatus, Body: []byte(`{}`)}, false},
		{"event ok", Event{Channel: Channel{Kind: ChannelUser, ID: 5}, Seq: 1, Kind: EventStatus, Body: []byte(`{}`)}, true},
		{"queue negative", QueueNotice{QueueLength: -1}, false},
		{"error no code", Error{Message: "x"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.payload.Validate()
			if (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestHelloLogValueHidesToken(t *testing.T) {
	h := Hello{JudgeID: "j1", Token: "s3cr3t-token", Cores: 2, MaxParallel: 1}
	if s := h.LogValue().String(); strings.Contains(s, "s3cr3t") || !strings.Contains(s, "j1") {
		t.Errorf("LogValue = %s: want judge id, no token", s)
	}
}

func TestTypesAndLinks(t *testing.T) {
	judge, live := Types(LinkJudge), Types(LinkLive)
	if len(judge) != 13 || len(live) != 6 {
		t.Fatalf("Types: judge %v, live %v", judge, live)
	}
	for _, typ := range append(judge, live...) {
		link, ok := LinkOf(typ)
		if !ok {
			t.Errorf("LinkOf(%q) unknown", typ)
		}
		pt, ok := PayloadOf(typ)
		if !ok || pt.Kind() != reflect.Struct {
			t.Errorf("PayloadOf(%q) = %v, %v", typ, pt, ok)
		}
		if link.Subprotocol() == "" || link.MaxMessageSize() == 0 {
			t.Errorf("link %v has no subprotocol or size", link)
		}
	}
	if LinkJudge.Subprotocol() != "verdict.judge.v1" || LinkLive.Subprotocol() != "verdict.live.v1" {
		t.Error("subprotocol names changed")
	}
	if Link(7).Subprotocol() != "" || Link(7).MaxMessageSize() != 0 {
		t.Error("unknown link has a subprotocol or size")
	}
}

func TestMarshalSnapshotSameBytes(t *testing.T) {
	ch := Channel{Kind: ChannelContest, ID: 7}
	for _, state := range []string{
		`{"rule":"icpc","rows":[{"user":"a \"q\" b","problems":{"A":{"attempts":1}}}]}`,
		`{}`,
		`{"x":"with spaces inside a string","y":[1,2,3]}`,
		"{ \"not\": \"compact\" }", // the slow path
	} {
		got, err := MarshalSnapshot("s1", ch, 42, json.RawMessage(state))
		if err != nil {
			t.Fatal(err)
		}
		want, err := Marshal(TypeSnapshot, "s1", Snapshot{Channel: ch, Seq: 42, State: json.RawMessage(state)})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("state %s:\n got %s\nwant %s", state, got, want)
		}
		// The trusted path gives the same bytes for what CompactJSON
		// accepts (the hub checks a board once, not per subscriber).
		if CompactJSON(json.RawMessage(state)) {
			fast, err := MarshalCompactSnapshot("s1", ch, 42, json.RawMessage(state))
			if err != nil || string(fast) != string(want) {
				t.Errorf("compact state %s: %s, %v; want %s", state, fast, err, want)
			}
		} else if strings.HasPrefix(state, "{\"") {
			t.Errorf("CompactJSON refused %s", state)
		}
	}
	for _, bad := range []string{"{ \"a\": 1 }", "[1]", "{\"a\":", ""} {
		if CompactJSON(json.RawMessage(bad)) {
			t.Errorf("CompactJSON accepted %q", bad)
		}
	}
	big := `{"pad":"` + strings.Repeat("x", MaxLiveMessage) + `"}`
	if _, err := MarshalSnapshot("s1", ch, 1, json.RawMessage(big)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("an oversized state: %v, want ErrTooLarge", err)
	}
}

func TestCustomRunTaskValidate(t *testing.T) {
	ok := Task{
		TaskRef: TaskRef{SubmissionID: CustomRunIDBase + 1, Attempt: 1}, ProblemID: 7, Language: "py3", Source: "print(1)",
		Limits: Limits{TimeMs: 1000, MemoryKiB: 1024, OutputBytes: 1024}, Mode: ModeICPC,
		Checker: Checker{Kind: CheckerDefault}, Priority: PriorityCustom, Custom: &CustomRun{Input: "1\n"},
	}
	tests := []struct {
		name string
		mut  func(*Task)
		ok   bool
	}{
		{"ok", func(*Task) {}, true},
		{"test data given", func(t *Task) { t.TestData = TestData{Hash: "h"} }, false},
		{"submission id", func(t *Task) { t.SubmissionID = 5 }, false},
		{"special checker", func(t *Task) { t.Checker.Kind = CheckerSpecial }, false},
		{"practice priority", func(t *Task) { t.Priority = PriorityPractice }, false},
		{"input too big", func(t *Task) { t.Custom = &CustomRun{Input: string(make([]byte, MaxCustomInput+1))} }, false},
		{"too many samples", func(t *Task) { t.Custom = &CustomRun{Samples: make([]SampleCase, MaxCustomSamples+1)} }, false},
		{"sample without case", func(t *Task) { t.Custom = &CustomRun{Samples: []SampleCase{{Input: "1"}}} }, false},
	}
	for _, tc := range tests {
		tk := ok
		c := *ok.Custom
		tk.Custom = &c
		tc.mut(&tk)
		if err := tk.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	r := Result{TaskRef: ok.TaskRef, Verdict: VerdictAC, JudgeID: "j",
		Custom: []CustomOutput{{Verdict: VerdictAC, Stdout: string(make([]byte, MaxCustomOutput+1))}}}
	if r.Validate() == nil {
		t.Error("a result with stdout beyond MaxCustomOutput validates")
	}
}

// BenchmarkSnapshot3000 is one contest snapshot of a 3,000-row board
// (about the rehearsal's) for one subscriber: checked per subscriber
// (MarshalSnapshot) or checked once when stored (MarshalCompactSnapshot).
func BenchmarkSnapshot3000(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"rule":"icpc","full":true,"rows":[`)
	for i := range 3000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"rank":%d,"user":"c%05d","user_id":%d,"solved":3,"penalty":412,"problems":{"A":{"solved":true,"attempts":1,"time":23},"B":{"attempts":2},"C":{"solved":true,"attempts":3,"time":190},"D":{"solved":true,"attempts":1,"time":95}}}`, i+1, i, i+1)
	}
	sb.WriteString(`]}`)
	state := json.RawMessage(sb.String())
	ch := Channel{Kind: ChannelContest, ID: 1}
	b.Logf("board: %d KiB", len(state)/1024)
	for _, m := range []struct {
		name string
		f    func(string, Channel, uint64, json.RawMessage) ([]byte, error)
	}{{"checked-per-subscriber", MarshalSnapshot}, {"checked-once", MarshalCompactSnapshot}} {
		b.Run(m.name, func(b *testing.B) {
			b.SetBytes(int64(len(state)))
			for b.Loop() {
				if _, err := m.f("s", ch, 9, state); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
