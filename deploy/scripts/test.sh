#!/usr/bin/env bash
# test.sh — the whole suite, as `make test` and CI run it:
#   0. the quick static checks (deploy/scripts/lint.sh quick: gofmt, go vet,
#      no test-only module in the binaries);
#   1. beside them, the frontend's unit tests (vitest; they also fail when the API types
#      generated from docs/openapi.json, frontend/src/api/openapi.gen.ts,
#      are stale) and its build (which also fails when index.html would
#      load KaTeX or admin code at once: frontend/scripts/check-dist.mjs),
#      when it exists;
#   2. go test -race over the whole module in two sets beside each other
#      (the heavy packages two at a time, the light ones one at a time),
#      with one throwaway MariaDB and Redis for the run (verdict-stack
#      with-services); beside them, at the
#      lowest CPU priority, the slow static checks (lint.sh slow: GOOS=darwin
#      go vet, staticcheck) and the scheduling simulator's package without
#      -race (its worker pool with it);
#   3. the sandbox's cgroup v2 VM test (make test-cgroup2), started
#      once the heavy packages of step 2 are done;
# then one summary line. Exits non-zero if anything failed: a lint finding
# fails the run, but the tests still run so one failure hides no other.
#
# Why (measured 2026-12-03 on 2 cores, vmstat every 5 s through a
# fresh-clone run of 13 min 31 s): the lint phase kept both cores busy, but
# through the go test phase they were ~35 % idle — the longest packages
# wait on a contest's clock, a browser or a judge. The slow lint and the
# simulator (pure computation, nothing timed) at nice 19 take only what
# the tests leave idle: the go test phase then ran at ~100 %. A third lane
# at normal priority (the stack package beside the two) was tried the same
# day: the phase was no shorter (8 min 39 s against 8 min 57 s) and a
# timing-bound test failed beside it (judge/internal/agent TestVerdicts:
# an endless loop judged TLE by its wall limit after 202 ms of CPU).
set -uo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
TIMEOUT=${TEST_TIMEOUT:-14m}
mkdir -p bin
status=0
# -trimpath: the build cache then does not key this checkout's packages
# by its directory, so a second clone or worktree on the same machine
# (CI clones afresh into a new directory each run) reuses what an earlier
# one compiled instead of compiling the whole module again under -race.
# Measured 2026-12-04 on the project's 2-core VM: a clean clone's suite
# took 17 min 43 s, its go test phase 13.5 min, against 12 min 18 s and
# about 10 min in the checkout whose packages were cached.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"
# since: the time since the suite started, for each phase's header (the
# suite's wall time is a goal: well under 15 minutes).
t0=$(date +%s)
since() { local d=$(( $(date +%s) - t0 )); printf '%dm%02ds' $((d / 60)) $((d % 60)); }

# The frontend's tests and build (node, mostly one core) run beside the
# lint (go vet and staticcheck): neither needs the other, and together they
# fill the machine's cores instead of taking turns. The frontend's output
# is printed after the lint's.
# The -race compile of every package and test package, beside the lint
# and the frontend (they leave about a third of the cores idle on a warm
# cache); the go test phase waits for it. Then the same without -race:
# the binaries the end-to-end tests build (the stack's components, the
# rehearsal's simulated judges and simulator) and the simulator's own
# package. Without it, a change to a package they all import (the CI of
# 2026-12-04 after a protocol change) compiled them all again in the middle
# of the go test phase: every package ran 20-40 % slower and two
# timing-bound tests failed.
{ "$GO" list -deps -test -race -export ./... > /dev/null &&
  "$GO" build ./... && "$GO" list -deps -test -export ./hub/internal/sched/sim > /dev/null; } 2> bin/precompile.log &
precompile_pid=$!

fe_pid=
if [ -f frontend/package.json ]; then
  (
    fe=0
    cd frontend
    echo "== frontend (vitest)"
    if ! { { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund; } && npm test; }; then
      echo "frontend tests FAILED"
      fe=1
    fi
    # Build it whatever the unit tests said: the browser end-to-end test
    # serves frontend/dist, and one failure should not hide behind another.
    if ! npm run build; then
      echo "frontend build FAILED"
      fe=1
    fi
    exit "$fe"
  ) > bin/frontend.log 2>&1 &
  fe_pid=$!
fi

lint=ok
if ! GO="$GO" bash deploy/scripts/lint.sh quick; then
  echo "lint FAILED"
  lint=FAILED
  status=1
fi

if [ -n "$fe_pid" ]; then
  fe_status=0
  wait "$fe_pid" || fe_status=$?
  cat bin/frontend.log
  [ "$fe_status" -eq 0 ] || status=1
fi

echo "== go test -race ./... — at $(since)"
"$GO" build -o bin/verdict-stack ./deploy || exit 1

# Beside the tests, at the lowest CPU priority: the slow static checks and
# the scheduling simulator's package. The simulator (hub/internal/sched/sim)
# is pure, single-threaded computation but for its grid's worker pool:
# under -race its tests took 145 s of the run (22 s without). It runs
# without -race, and one grid test (the pool) with it.
nice -n 19 env GO="$GO" bash deploy/scripts/lint.sh slow > bin/lint-slow.log 2>&1 &
slow_pid=$!
{ nice -n 19 "$GO" test -count=1 -timeout "$TIMEOUT" ./hub/internal/sched/sim &&
  nice -n 19 "$GO" test -race -count=1 -timeout "$TIMEOUT" -run '^TestIdealBeatsRandomOnP99$' ./hub/internal/sched/sim; } > bin/test-sim.log 2>&1 &
sim_pid=$!

module=$("$GO" list -m)
all=$("$GO" list ./... | grep -v '/hub/internal/sched/sim$')
# Two sets of packages, each its own go test, beside each other:
#
#   - heavy: the packages that take minutes, keep a core busy or assert
#     on timing (the sandbox's CPU-limit overshoot, the agent's wall-limit
#     verdicts, the short rehearsal's convergence bound), two test
#     binaries at a time, the longest first (go test starts them in the
#     order given);
#   - light: every other package, one test binary at a time. Most of them
#     wait on Redis expiries, sockets and timers, and use little CPU.
#
# Measured 2026-12-04 on this project's 2-core VM, with cgroup CPU
# accounting per test binary: in one go test of all packages, two at a
# time (the longest first), the heavy ones took the first 9 minutes, and
# the light ones (68 packages, about 100 s of CPU in all, 250 s of their
# own run time plus their links) the last 3, with 20-50 % of the cores
# idle; the heavy ones themselves left cores idle now and then. The
# light set beside them fills that. Three heavy binaries at a time
# (-p 3) was tried on 2026-12-02: timing-bound tests failed beside two
# other heavy packages, and so did one beside a third lane for the stack
# package alone. A package missing from the heavy list runs in the light
# set; one that no longer exists is left out.
# The heavy set's first five keep cores busy or assert on timing; the last
# three (fault drills, the hub's leases, the simulated judges) mostly wait.
heavy_list=(deploy/internal/stack deploy/internal/rehearsal webapp/internal/server judge/internal/agent
  judge/internal/sandbox deploy/internal/chaos hub/internal/hub deploy/internal/simjudge)
busy=5
heavy=() timed=()
for i in "${!heavy_list[@]}"; do
  p=${heavy_list[$i]}
  grep -qxF "$module/$p" <<<"$all" || continue
  heavy+=("$module/$p")
  [ "$i" -lt "$busy" ] && timed+=("$module/$p")
done
light=$(grep -vxF -f <(printf '%s\n' "${heavy[@]}") <<<"$all")
# Every package and test package compiled once (-race, then the binaries
# without it; started beside
# the lint phase above) before the two go tests start: on a cold build
# cache each would otherwise compile the dependencies they share at the
# same time.
wait "$precompile_pid" || { echo "the compile before the tests FAILED:"; cat bin/precompile.log; status=1; }
#
# 3. The sandbox on a real pure cgroup v2 kernel (QEMU; make
# test-cgroup2), beside the end of the two sets. Under emulation (no
# /dev/kvm) it takes about 95 s and one core. It starts once each of the
# heavy set's first five has its result line (go test prints them in the
# order given), or the heavy go test is gone: the timing-bound tests never
# share the machine with it; the waiting ones at the heavy set's end do.
rm -f bin/test.log bin/test-light.log bin/test.done bin/test-cgroup2.rc
: > bin/test.log
(
  while [ ! -e bin/test.done ]; do
    n=0
    for p in "${timed[@]}"; do
      grep -qE "^(ok|FAIL)[[:space:]]+$p([[:space:]]|\$)" bin/test.log && n=$((n + 1))
    done
    [ "$n" -ge "${#timed[@]}" ] && break
    sleep 2
  done
  echo "== cgroup v2 VM (go test -tags cgroup2vm ./judge/internal/sandbox/vmtest) — started at $(since)"
  "$GO" test -tags cgroup2vm -count=1 -timeout 60m -run TestCgroup2VM ./judge/internal/sandbox/vmtest
  echo $? > bin/test-cgroup2.rc
) > bin/test-cgroup2.log 2>&1 &
vm_pid=$!
# One throwaway MariaDB and Redis for both sets (each test gets its own
# database and Redis db in them: internal/testenv).
GO="$GO" TIMEOUT="$TIMEOUT" HEAVY="${heavy[*]}" LIGHT="$light" \
  bin/verdict-stack with-services -- bash -c '
    "$GO" test -race -count=1 -timeout "$TIMEOUT" -p 1 $LIGHT > bin/test-light.log 2>&1 &
    light_pid=$!
    "$GO" test -race -count=1 -timeout "$TIMEOUT" -p 2 $HEAVY 2>&1 | tee -a bin/test.log
    heavy_status=${PIPESTATUS[0]}
    : > bin/test.done
    light_status=0
    wait "$light_pid" || light_status=$?
    [ "$heavy_status" -eq 0 ] && exit "$light_status"
    exit "$heavy_status"'
gostatus=$?
: > bin/test.done
echo "== go test -race, the light set (one at a time, beside the heavy set) — done at $(since)"
tee -a bin/test.log < bin/test-light.log
[ "$gostatus" -eq 0 ] || status=$gostatus

sim_status=0
wait "$sim_pid" || sim_status=$?
echo "== go test ./hub/internal/sched/sim (without -race; its worker pool with -race; beside the others) — done at $(since)"
cat bin/test-sim.log | tee -a bin/test.log
[ "$sim_status" -eq 0 ] || status=$sim_status

slow_status=0
wait "$slow_pid" || slow_status=$?
echo "== the slow static checks (lint.sh slow, beside the tests) — done at $(since)"
cat bin/lint-slow.log
if [ "$slow_status" -ne 0 ]; then
  echo "lint FAILED"
  lint=FAILED
  status=1
fi

wait "$vm_pid"
cat bin/test-cgroup2.log
echo "== cgroup v2 VM — done at $(since)"
cg2=ok
if [ "$(cat bin/test-cgroup2.rc 2>/dev/null)" != 0 ]; then
  echo "cgroup v2 VM test FAILED (see bin/test-cgroup2.log, bin/cgroup2-vm/)"
  cg2=FAILED
  status=1
fi

ok=$(grep -cE '^ok[[:space:]]' bin/test.log || true)
failed=$(grep -cE '^FAIL[[:space:]]+[^[:space:]]+[[:space:]]' bin/test.log || true)
echo "== done — $(since) in all"
echo "lint: $lint; packages: $ok passed, $failed failed; cgroup v2 VM: $cg2"
exit "$status"
