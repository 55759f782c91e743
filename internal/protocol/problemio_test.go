package protocol

import (
	"strings"
	"testing"
)

func TestValidIOFileName(t *testing.T) {
	for name, want := range map[string]bool{
		"input.txt": true, "OUTPUT.TXT": true, "sum_1-a.in": true, strings.Repeat("a", 64): true,
		"": false, ".hidden": false, "..": false, "a/b": false, `a\b`: false, "in put": false, "é.txt": false,
		strings.Repeat("a", 65): false, "a\x00": false,
	} {
		if got := ValidIOFileName(name); got != want {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
	if err := (FileIO{InputFile: "a.txt", OutputFile: "a.txt"}).Validate(); err == nil {
		t.Error("the same file for input and output")
	}
	if err := (FileIO{OutputFile: "out.txt"}).Validate(); err != nil {
		t.Error(err)
	}
}

// TestOutputs: the outputs document round-trips and refuses what a judge
// must not take: cases out of order or repeated, too many bytes or files,
// unknown fields, trailing data.
func TestOutputs(t *testing.T) {
	o := Outputs{Files: []OutputFile{{Case: 1, Data: []byte("3\n")}, {Case: 4, Data: []byte{0, 0xff}}}}
	src, err := EncodeOutputs(o)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeOutputs(src)
	if err != nil || !equalOutputs(o, back) {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	if b, ok := back.Of(4); !ok || len(b) != 2 {
		t.Errorf("case 4: %v %v", b, ok)
	}
	if _, ok := back.Of(2); ok {
		t.Error("case 2 has no output")
	}
	big := make([]byte, MaxOutputsBytes+1)
	for name, bad := range map[string]Outputs{
		"case 0":     {Files: []OutputFile{{Case: 0}}},
		"repeated":   {Files: []OutputFile{{Case: 2}, {Case: 2}}},
		"descending": {Files: []OutputFile{{Case: 3}, {Case: 2}}},
		"too big":    {Files: []OutputFile{{Case: 1, Data: big}}},
		"too many":   {Files: make([]OutputFile, MaxOutputFiles+1)},
	} {
		if _, err := EncodeOutputs(bad); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
	for _, src := range []string{``, `{}x`, `{"files":[{"case":1,"data":"!!"}]}`, `{"files":[],"more":1}`, `{"files":[{"case":2},{"case":1}]}`, `[]`} {
		if _, err := DecodeOutputs(src); err == nil {
			t.Errorf("%q: decoded", src)
		}
	}
	// A task with outputs: validated, and never a custom run or file I/O.
	task := Task{TaskRef: TaskRef{SubmissionID: 1, Attempt: 1}, ProblemID: 1, TestData: TestData{Hash: "h"}, Language: LanguageOutputs,
		Source: src, Limits: Limits{TimeMs: 1, MemoryKiB: 1, OutputBytes: 1}, Mode: ModeIOI, Checker: Checker{Kind: CheckerDefault}, Priority: PriorityContest}
	if err := task.Validate(); err != nil {
		t.Fatal(err)
	}
	task.IO = &FileIO{InputFile: "in.txt"}
	if err := task.Validate(); err == nil {
		t.Error("output-only task with file I/O")
	}
	task.IO, task.Source = nil, "print(1)"
	if err := task.Validate(); err == nil {
		t.Error("output-only task with a program as its source")
	}
}

func FuzzDecodeOutputs(f *testing.F) {
	f.Add(`{"files":[{"case":1,"data":"Mwo="}]}`)
	f.Add(`{"files":[]}`)
	f.Fuzz(func(t *testing.T, src string) {
		o, err := DecodeOutputs(src)
		if err != nil {
			return
		}
		if err := o.Validate(); err != nil {
			t.Fatalf("decoded an invalid document: %v", err)
		}
		again, err := EncodeOutputs(o)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeOutputs(again)
		if err != nil || !equalOutputs(o, back) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
