package sim

// docScenarios is the report's section on scenario files, load
// calibration and the queueing-theory check (WriteDoc writes it after
// docReplay; TestDocCarriesTheScenarioSection keeps docs/scheduling.md
// equal to it).
const docScenarios = "\n## Scenario files\n\n" +
	"Every scenario is a JSON file: the cluster, the workload, the arrivals and the faults. The built-in ones are\n" +
	"`hub/internal/sched/sim/scenarios/*.json`, embedded in the simulator (go:embed); they give exactly the runs the\n" +
	"Go-coded scenarios gave before, seed for seed (`TestBuiltinScenarioFilesMatchTheGoScenarios`). Run your own\n" +
	"cluster through every policy, at every load of the grid:\n\n" +
	"    make sim SCENARIO=mine.json            # or SCENARIO=a.json,b.json; make sim-quick SCENARIO=… for short runs\n" +
	"    go run ./hub/internal/sched/sim/cmd/sim -scenario mine.json [-quick] [-loads 0.5,0.9] [-policies default,pull]\n" +
	"    go run ./hub/internal/sched/sim/cmd/sim -show-scenario crash > mine.json   # start from a built-in one\n\n" +
	"With `-scenario` the lab prints its tables and writes no report unless `-out` is given. Decoding is strict: an\n" +
	"unknown field (names are exact, case included), a value of the wrong type, an out-of-range value or a fault on a\n" +
	"judge the cluster lacks is an error naming the field, e.g.\n" +
	"`scenario mine.json: cluster.judges[2].speed: 0: want > 0` or\n" +
	"`scenario mine.json: faults[0].judge: \"j9\": no such judge in the cluster`.\n\n" +
	"**Times.** A time (`at`) is seconds from the start of the run, or `\"event\"`, `\"event+N\"`, `\"event-N\"`: the\n" +
	"timeline's event moment (10 min into the full run, 5 min into the quick one) plus or minus N seconds, so one\n" +
	"file serves both. The run is a warm-up (5 min full, 2 min quick) and a measured window (20 min, 10 min); a\n" +
	"fault running past the end is cut there. Durations are `…_s` fields, in seconds.\n\n" +
	"**Fields.** Every field but `name` is optional; an absent one takes the built-in value (the cluster and workload\n" +
	"under Method).\n\n" +
	"| field | meaning |\n" +
	"|---|---|\n" +
	"| `name`, `title` | the scenario's name (no spaces, commas or slashes) and a line for the tables |\n" +
	"| `heartbeat_s` | the judges' heartbeat interval (default 3); leases last 4 heartbeats, a judge silent for 3 is closed |\n" +
	"| `hub` | `{hubs, pass_latency_s, decision_cost_s, reserve}`: how many hubs share the queue (judge i connects to hub i mod hubs; each has its own policy, passes and view; default 1), how long a dispatch pass takes from its decisions to its leases and pushes (default 0.005; 0: instantaneous), what each decision adds to it (default 0.00002) and the share of the judges' slots rejudges leave free for the other classes (the hub's `--dispatch-reserve`; default 0.125; 0: none) |\n" +
	"| `cluster.cache_problems` | how many problems' test data each judge keeps (LRU; default 100) |\n" +
	"| `cluster.judges[]` | `id`, `slots` (parallel tasks), `speed` (per slot, 1 = the reference), `cache_problems` (this judge's cache), `join_s` (connects then, cache empty; 0: from the start), `leave_s` (killed then, for good; 0: never), `languages` (what it runs; absent: every language) |\n" +
	"| `workload.sizes` | `\"heavy\"` (the model below, default) or `\"exponential\"` (mean-1 sizes, no test data: queueing-theory checks) |\n" +
	"| `workload.problems`, `popularity_zipf` | the practice catalogue and its Zipf exponent (over a random permutation) |\n" +
	"| `workload.cases` | `{min, max}` cases per problem (uniform) |\n" +
	"| `workload.case_time_s` | `{median, sigma}`: a problem's per-case run time, lognormal across problems |\n" +
	"| `workload.submission_sigma`, `time_limit_s`, `compile_s` | a submission's lognormal factor on its problem's case times (each case ±25 %, capped at the limit); the time limit; compile time |\n" +
	"| `workload.tle_share` | without `verdicts`: the share of submissions that run every case to the limit |\n" +
	"| `workload.test_data` | `{median_mb, sigma, download_fixed_s, download_mbps}`: lognormal data size; a download costs fixed + MB / rate and holds the slot |\n" +
	"| `workload.languages[]` | `name`, `share` (relative), `compile_s`, `run_factor` (multiplies case times): each submission's language, seen by the policy |\n" +
	"| `workload.verdicts[]` | `verdict`, `share`, `compile_s` and `run_factor` as `{median, sigma}` (this verdict's own distributions), `fails` (fails a case drawn uniformly), `time_limit` (the failing case and those after it run to the limit), `compile_error` (nothing runs) |\n" +
	"| `workload.icpc_early_stop` | a failing verdict stops at its failing case (ICPC); otherwise every case runs |\n" +
	"| `arrivals.process` | the practice stream: `\"poisson\"` (default) or `\"periodic\"`, at ρ × capacity / mean size |\n" +
	"| `arrivals.burst` | `{problem_rank, factor, at, length_s}`: that problem's rate × factor for a while |\n" +
	"| `arrivals.contest` | `{problems, at, peak, tau_s}`: new problems (no judge has their data), submissions at peak × the practice rate decaying with τ, at contest priority, until at + 4τ |\n" +
	"| `arrivals.rejudges[]` | `{at, problem_rank, count, over_s}`: a rejudge of count submissions, evenly over over_s, at rejudge priority |\n" +
	"| `arrivals.custom_share` | the share of practice arrivals that are custom runs (one case, no test data, custom-run priority) |\n" +
	"| `arrivals.classes` | tag every job with its priority class even without the above (languages, custom runs, rejudges and traces imply it) |\n" +
	"| `arrivals.trace` | `{scale_to_load, jobs[]}`: replay these arrivals instead of the practice stream; a job is `{at_s, problem (index), work_s (at speed 1; 0: drawn from the workload, or compile_s + the cases if `cases_s` is given), compile_s (the part of work_s spent compiling: results report only the cases, so the hub learns speeds from the rest), language, class (practice, contest, rejudge, custom)}` and, as an installation recorded it, `cases_s` (each case's run time at speed 1, only the cases that ran; their sum + compile_s must not exceed work_s), `verdict`, `judge` (the cluster judge that ran it) and `recorded_ttv_s` (its time to verdict there) — these four are for comparison: the policies place the job themselves; with `scale_to_load` (default true) arrival times are stretched so the trace offers the grid's ρ |\n" +
	"| `faults[]` | `{kind, judge, at, length_s, factor}`: `drop` (the judge at factor × capacity, load1 shows it), `gray` (factor × speed, reporting healthy), `crash` (dies, back with its disk cache), `silent` (works, sends no heartbeats); faults on one judge must not overlap |\n\n" +
	"Priorities order the central queue as the hub's does (contest, custom run, practice, rejudge; then arrival).\n\n" +
	"**A worked example.** A small contest cluster: four judges (one joins late), two languages, an ICPC verdict mix,\n" +
	"a contest five minutes in with a rejudge a minute after it, and the fast judge crashing for 90 s:\n\n" +
	"```json\n" + docScenarioExample + "```\n\n" +
	"`make sim-quick SCENARIO=contest4.json` runs it under every policy at ρ 0.5, 0.85 and 0.95 (3 seeds) and prints\n" +
	"the headline row per load and the time-to-verdict and wait tables; `-loads`, `-seeds` and `-policies` narrow the\n" +
	"grid. The practice rate is set from the workload's mean job size (python's 3× run factor, the verdict mix and the\n" +
	"early stop included), so ρ means the same thing on any file.\n\n" +
	"**From a real run.** `verdict-stack export-trace` writes a recorded run as such a file, anonymised: judges\n" +
	"become `judge-01`, … (slots, speed, join and leave; a judge that reconnected is one judge from its first\n" +
	"connection on), problems become indexes in order of first arrival, and submission ids, judge names, data hashes,\n" +
	"the start time and what the hub did are dropped; each task keeps its arrival, problem index, work at speed 1,\n" +
	"compile time, language and class and, where recorded, its per-case run times, verdict, judge and time to\n" +
	"verdict. The test data model stays the lab's (neither source records sizes). Two sources:\n\n" +
	"- `--from FILE`: a scheduling trace (internal/schedtrace) as `verdict-stack rehearse --trace FILE` records it\n" +
	"  (`bin/rehearsal-trace.json` by default; the contest rehearsal's is the first one). Its work is the whole\n" +
	"  task as the simulated judges ran it: no cases, no verdicts.\n" +
	"- `--dsn DSN`: a real installation's MySQL (the webapp's schema, read only): one task per submission with a final\n" +
	"  verdict created in `[--since, --until)` (UTC; `--contest ID` for one contest). The arrival is\n" +
	"  `submissions.created_at`; the class is contest for a contest's submission, else practice (custom runs live only\n" +
	"  in Redis and are not exported); the per-case times are `submission_cases.time_ms`, in case order, only the\n" +
	"  cases that ran (ICPC stops at the first failure); the verdict and judge are the submission's, the recorded time\n" +
	"  to verdict is `judged_at − created_at`. **What MySQL does not keep, and the fallback:** the case times are the\n" +
	"  CPU times the judge measured, not the wall times the hub learns speeds from (for a CPU-bound program they\n" +
	"  agree; I/O or sleeping programs are undercounted); there is no compile time (`--compile 300ms` adds one to every\n" +
	"  task; default 0); a rejudged submission (attempt > 1) holds only its rejudge's cases, judge and time, so it is\n" +
	"  kept at its first arrival with those run times and no recorded time to verdict; judges' slots, speeds and\n" +
	"  connections are not stored, so every judge named by a submission is connected for the whole window, at\n" +
	"  `--judge NAME=SLOTS[xSPEED]` (repeatable, or comma-separated) or else speed 1 and, as its slots, the most of\n" +
	"  its tasks whose [judged_at − run time, judged_at] overlap (a lower bound; the command says which judges it\n" +
	"  estimated). Work at speed 1 = compile + Σ case times × the speed of the judge that ran them (at least 1 ms).\n" +
	"  Submissions without a final verdict are skipped and counted. `TestExportMySQL` and `TestExportTraceFromMySQL`\n" +
	"  (deploy) run it against a real MariaDB with every migration applied.\n\n" +
	"To ask \"what if I had four more judges\" of your own contest:\n\n" +
	"```\nverdict-stack export-trace --dsn 'verdict:PASSWORD@tcp(db:3306)/verdict' --contest 12 \\\n" +
	"    --judge judge-a=8x1.2,judge-b=4 --compile 300ms --extra-judges 4 --out contest12.json\n" +
	"make sim TRACE=contest12.json          # at its recorded times, every task measured, under every policy\n" +
	"verdict-stack export-trace --from bin/rehearsal-trace.json --extra-judges 4 --out mine.json\n" +
	"make sim SCENARIO=mine.json            # the arrivals stretched to each ρ of the grid only with --scale-to-load\n" +
	"make sim TRACE=bin/rehearsal-trace.json  # a schedtrace file is read directly\n```\n\n" +
	"`TRACE=` takes a schedtrace file or an exported scenario file (without `--scale-to-load`), replays the recorded\n" +
	"times whatever the grid's ρ, labels the cell with the run's realised offered load and, when the file records\n" +
	"times to verdict, prints their mean and p99 above the tables, beside what each policy would have done.\n\n" +
	"## Load calibration and the queueing-theory check\n\n" +
	"The nominal ρ sets the practice arrival rate: ρ × capacity / the mean job size, the mean estimated by Monte Carlo\n" +
	"(20,000 draws). Every table prints the **realised** ρ next to it: the work (at speed 1) that arrived in the\n" +
	"measured window over capacity × window, bursts and contests included, the mean over seeds. In the steady\n" +
	"scenarios the two differ by the Monte-Carlo error of the mean size and the Poisson noise of the window (about\n" +
	"1–3 %); in the flash crowd and the burst the realised ρ is higher by the extra traffic. Capacity is Σ slots ×\n" +
	"speed over every judge of the file, a late-joining or leaving one included.\n\n" +
	"`TestQueueingTheory` checks the simulator against queueing theory on one judge of c slots at speed 1 under\n" +
	"ideal-warm (a FIFO queue, no download cost: exactly an M/·/c queue), at the realised load so that calibration\n" +
	"and simulation errors are told apart: the mean wait in queue of M/M/1, M/M/4 and M/M/16 (exponential sizes)\n" +
	"against Erlang C (within 10–15 %; observed within 3 %), and of M/G/4 and M/G/8 with the lab's heavy-tailed\n" +
	"sizes (Cs² ≈ 1.9) against the Allen–Cunneen approximation, Erlang C × (1 + Cs²) / 2 (within 20–25 %, the\n" +
	"approximation's own error; observed −2 % and −12 %). It also requires the realised ρ within 3 % of the\n" +
	"nominal. `TestLittlesLawOnMMc` checks L = λW and Erlang C under the hub model (`pull`) as well.\n"

// docScenarioExample is the worked example of docScenarios
// (TestDocScenarioExampleRuns parses and runs it).
const docScenarioExample = `{
  "name": "contest4",
  "title": "4 judges, cpp and python, ICPC verdicts, a contest and a rejudge, the fast judge crashes",
  "heartbeat_s": 3,
  "cluster": {
    "cache_problems": 50,
    "judges": [
      {"id": "big", "slots": 16, "speed": 1.0},
      {"id": "fast", "slots": 8, "speed": 1.5, "cache_problems": 200},
      {"id": "old", "slots": 4, "speed": 0.6},
      {"id": "spare", "slots": 8, "speed": 1.0, "join_s": 400}
    ]
  },
  "workload": {
    "problems": 120,
    "popularity_zipf": 1.0,
    "cases": {"min": 10, "max": 60},
    "case_time_s": {"median": 0.1, "sigma": 0.7},
    "test_data": {"median_mb": 40, "sigma": 1.2, "download_fixed_s": 0.3, "download_mbps": 80},
    "languages": [
      {"name": "cpp", "share": 0.7, "compile_s": 1.2},
      {"name": "python", "share": 0.3, "compile_s": 0, "run_factor": 3}
    ],
    "verdicts": [
      {"verdict": "accepted", "share": 0.45},
      {"verdict": "wrong_answer", "share": 0.35, "fails": true},
      {"verdict": "time_limit", "share": 0.1, "time_limit": true, "run_factor": {"median": 2, "sigma": 0.5}},
      {"verdict": "runtime_error", "share": 0.05, "fails": true},
      {"verdict": "compile_error", "share": 0.05, "compile_error": true, "compile_s": {"median": 0.8, "sigma": 0.3}}
    ],
    "icpc_early_stop": true
  },
  "arrivals": {
    "contest": {"problems": 8, "at": "event", "peak": 1.5, "tau_s": 120},
    "rejudges": [{"at": "event+60", "problem_rank": 1, "count": 150, "over_s": 10}],
    "custom_share": 0.05
  },
  "faults": [
    {"kind": "crash", "judge": "fast", "at": "event+120", "length_s": 90}
  ]
}
`
