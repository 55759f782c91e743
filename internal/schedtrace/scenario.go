package schedtrace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// ScenarioOptions shape the scenario file Scenario writes.
type ScenarioOptions struct {
	// Name and Title of the scenario; Name defaults to "trace".
	Name, Title string
	// ScaleToLoad stretches the arrivals so that they offer the grid's
	// load (the lab's ρ column); false replays them at their recorded
	// times (run the grid at one load: its value is only a label).
	ScaleToLoad bool
	// ExtraJudges adds judges shaped like the trace's most common one
	// ("what if I had four more judges").
	ExtraJudges int
	// HeartbeatSeconds, if > 0, is the scenario's heartbeat interval.
	HeartbeatSeconds float64
}

// The scenario file of the scheduling lab (hub/internal/sched/sim's
// ParseScenario, documented in docs/scheduling.md, "Scenario files"), the
// part a trace fills. The simulator's tests parse what Scenario writes,
// so the two stay in step.
type (
	scenarioFile struct {
		Name      string       `json:"name"`
		Title     string       `json:"title,omitempty"`
		Heartbeat float64      `json:"heartbeat_s,omitempty"`
		Cluster   scenarioCl   `json:"cluster"`
		Workload  scenarioWl   `json:"workload"`
		Arrivals  scenarioArrs `json:"arrivals"`
	}
	scenarioCl struct {
		Judges []scenarioJudge `json:"judges"`
	}
	scenarioJudge struct {
		ID    string  `json:"id"`
		Slots int     `json:"slots"`
		Speed float64 `json:"speed"`
		Join  float64 `json:"join_s,omitempty"`
		Leave float64 `json:"leave_s,omitempty"`
	}
	scenarioWl struct {
		Problems int `json:"problems"`
	}
	scenarioArrs struct {
		Trace scenarioTrace `json:"trace"`
	}
	scenarioTrace struct {
		ScaleToLoad bool          `json:"scale_to_load"`
		Jobs        []scenarioJob `json:"jobs"`
	}
	scenarioJob struct {
		At       float64   `json:"at_s"`
		Problem  int       `json:"problem"`
		Work     float64   `json:"work_s"`
		Compile  float64   `json:"compile_s,omitempty"`
		Language string    `json:"language"`
		Class    string    `json:"class"`
		Cases    []float64 `json:"cases_s,omitempty"`
		Verdict  string    `json:"verdict,omitempty"`
		Judge    string    `json:"judge,omitempty"`
		TTV      float64   `json:"recorded_ttv_s,omitempty"`
	}
)

// className is the scenario file's class of a priority.
func className(p protocol.Priority) string {
	switch p {
	case protocol.PriorityContest:
		return "contest"
	case protocol.PriorityCustom:
		return "custom"
	case protocol.PriorityRejudge:
		return "rejudge"
	}
	return "practice"
}

// Scenario writes t as a scenario file of the scheduling lab, anonymised:
// judges become judge-01, judge-02, … (a judge that reconnected is one
// judge from its first connection to its last; the gap is not kept),
// problems become indexes in order of first arrival, and submission ids,
// data hashes, the start time and what the hub did are dropped. What stays:
// each task's arrival (s since the first), problem index, work at speed 1
// (s), language and priority class; each judge's slots, speed, join and
// leave; and, where the trace recorded the result, the compile time, each
// case's run time at speed 1 (s: the recorded time × the speed of the
// judge that ran it), the verdict, that judge (anonymised as above) and
// the recorded time to verdict (s). The test data model (sizes and
// downloads) is the lab's default: a trace does not record it.
func Scenario(t Trace, o ScenarioOptions) ([]byte, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("schedtrace: scenario: %w", err)
	}
	if len(t.Tasks) == 0 {
		return nil, fmt.Errorf("schedtrace: scenario: %w: no tasks", ErrInvalid)
	}
	if o.ExtraJudges < 0 || o.HeartbeatSeconds < 0 || math.IsInf(o.HeartbeatSeconds, 0) || math.IsNaN(o.HeartbeatSeconds) {
		return nil, fmt.Errorf("schedtrace: scenario: negative or non-finite option")
	}
	f := scenarioFile{Name: o.Name, Title: o.Title, Heartbeat: o.HeartbeatSeconds}
	if f.Name == "" {
		f.Name = "trace"
	}
	if strings.ContainsAny(f.Name, " ,/\\\t\n") {
		return nil, fmt.Errorf("schedtrace: scenario: name %q: no spaces, commas or slashes", f.Name)
	}
	if f.Title == "" {
		f.Title = fmt.Sprintf("a recorded run: %d tasks on %d judges", len(t.Tasks), len(t.Judges))
	}

	// Judges, one per id, in order of first connection.
	type span struct {
		first, last Judge
	}
	var order []string
	spans := map[string]*span{}
	for _, j := range t.Judges {
		s := spans[j.ID]
		if s == nil {
			order = append(order, j.ID)
			spans[j.ID] = &span{first: j, last: j}
			continue
		}
		if j.JoinMs < s.first.JoinMs {
			s.first = j
		}
		if s.last.LeaveMs != 0 && (j.LeaveMs == 0 || j.LeaveMs > s.last.LeaveMs) {
			s.last = j
		}
	}
	slices.SortStableFunc(order, func(a, b string) int {
		return int(spans[a].first.JoinMs - spans[b].first.JoinMs)
	})
	shapes := map[[2]float64]int{}
	var common scenarioJudge
	anon := map[string]string{}
	for i, id := range order {
		anon[id] = fmt.Sprintf("judge-%02d", i+1)
		s := spans[id]
		j := scenarioJudge{ID: fmt.Sprintf("judge-%02d", i+1), Slots: s.first.Slots, Speed: s.first.Speed,
			Join: float64(s.first.JoinMs) / 1000, Leave: float64(s.last.LeaveMs) / 1000}
		f.Cluster.Judges = append(f.Cluster.Judges, j)
		k := [2]float64{float64(j.Slots), j.Speed}
		if shapes[k]++; shapes[k] > shapes[[2]float64{float64(common.Slots), common.Speed}] || common.Slots == 0 {
			common = scenarioJudge{Slots: j.Slots, Speed: j.Speed}
		}
	}
	for i := range o.ExtraJudges {
		f.Cluster.Judges = append(f.Cluster.Judges, scenarioJudge{ID: fmt.Sprintf("extra-%02d", i+1), Slots: common.Slots, Speed: common.Speed})
	}

	// Tasks in arrival order, times from the first.
	tasks := slices.Clone(t.Tasks)
	slices.SortStableFunc(tasks, func(a, b Task) int { return int(a.AtMs - b.AtMs) })
	index := map[int64]int{}
	t0 := tasks[0].AtMs
	for _, k := range tasks {
		p, ok := index[k.ProblemID]
		if !ok {
			p = len(index)
			index[k.ProblemID] = p
		}
		job := scenarioJob{At: float64(k.AtMs-t0) / 1000, Problem: p, Work: float64(k.WorkMs) / 1000,
			Compile: float64(k.CompileMs) / 1000, Language: k.Language, Class: className(protocol.Priority(k.Priority)),
			Verdict: k.Verdict, Judge: anon[k.RanOn]}
		if k.CasesMs != nil {
			speed := 1.0
			if k.RanOn != "" {
				speed = spans[k.RanOn].first.Speed
			}
			job.Cases = make([]float64, len(k.CasesMs))
			for c, ms := range k.CasesMs {
				job.Cases[c] = math.Round(float64(ms)*speed) / 1000
			}
		}
		if k.VerdictMs > k.AtMs {
			job.TTV = float64(k.VerdictMs-k.AtMs) / 1000
		}
		f.Arrivals.Trace.Jobs = append(f.Arrivals.Trace.Jobs, job)
	}
	f.Workload.Problems = len(index)
	f.Arrivals.Trace.ScaleToLoad = o.ScaleToLoad

	// One judge and one job per line, like Write.
	var b bytes.Buffer
	field := func(name string, v any, comma bool) error {
		x, err := json.Marshal(v)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "  %q: %s", name, x)
		if comma {
			b.WriteString(",")
		}
		b.WriteString("\n")
		return nil
	}
	list := func(open string, n int, item func(int) any, close string) error {
		b.WriteString(open + "\n")
		for i := range n {
			x, err := json.Marshal(item(i))
			if err != nil {
				return err
			}
			b.WriteString("    ")
			b.Write(x)
			if i < n-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(close + "\n")
		return nil
	}
	b.WriteString("{\n")
	err := errors.Join(
		field("name", f.Name, true),
		field("title", f.Title, true),
		func() error {
			if f.Heartbeat > 0 {
				return field("heartbeat_s", f.Heartbeat, true)
			}
			return nil
		}(),
		list(`  "cluster": {"judges": [`, len(f.Cluster.Judges), func(i int) any { return f.Cluster.Judges[i] }, "  ]},"),
		field("workload", f.Workload, true),
		list(fmt.Sprintf(`  "arrivals": {"trace": {"scale_to_load": %v, "jobs": [`, f.Arrivals.Trace.ScaleToLoad),
			len(f.Arrivals.Trace.Jobs), func(i int) any { return f.Arrivals.Trace.Jobs[i] }, "  ]}}"),
	)
	if err != nil {
		return nil, fmt.Errorf("schedtrace: scenario: %w", err)
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}
