# Verdict — the two commands a new contributor needs are `make run` and
# `make test`. Everything else is here for the people working on it.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO        ?= go
BIN       := bin
MODULE    := github.com/verdict-oj/verdict
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
BUILT     ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS   := -X $(MODULE)/internal/obs.version=$(VERSION) -X $(MODULE)/internal/obs.commit=$(COMMIT) -X $(MODULE)/internal/obs.buildDate=$(BUILT)
# Components are built when their main package exists.
COMPONENTS := edge webapp hub judge
TEST_TIMEOUT ?= 14m

.PHONY: help deps build run test bench chaos rehearsal sim sim-quick lint fmt clean

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

deps: ## install the missing Debian packages (idempotent; root on Debian)
	@bash deploy/scripts/deps.sh

build: ## build every component into bin/
	@mkdir -p $(BIN)
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/verdict-stack ./deploy
	@for c in $(COMPONENTS); do \
	  if [ -f $$c/main.go ]; then \
	    echo "$(GO) build -o $(BIN)/$$c ./$$c"; \
	    $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/$$c ./$$c || exit 1; \
	  fi; \
	done
	@if [ -f frontend/package.json ]; then $(MAKE) --no-print-directory frontend; fi

.PHONY: frontend
frontend:
	cd frontend && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npm run build

run: deps build ## start the whole local stack under ./var, with demo data; Ctrl-C stops it
	$(BIN)/verdict-stack up

test: deps ## run the whole suite: lint, frontend unit tests, then go test -race against real MariaDB and Redis
	@TEST_TIMEOUT=$(TEST_TIMEOUT) GO=$(GO) bash deploy/scripts/test.sh

.PHONY: test-cgroup2
test-cgroup2: deps ## the sandbox on real pure cgroup v2 kernels: Debian 12's 6.1 and Debian 11's 5.10 (no memory.peak: the polled peak) under QEMU, the whole sandbox suite on each (root; 10-15 min each under TCG; make test runs the hostile suite part on 6.1)
	VERDICT_CGROUP2VM_FULL=1 $(GO) test -tags cgroup2vm -count=1 -timeout 60m -v -run TestCgroup2VM ./judge/internal/sandbox/vmtest
	VERDICT_CGROUP2VM_FULL=1 VERDICT_CGROUP2VM_KERNEL=bullseye $(GO) test -tags cgroup2vm -count=1 -timeout 60m -v -run TestCgroup2VM ./judge/internal/sandbox/vmtest

bench: deps build ## print the benchmark figures (docs/benchmarks.md explains them; about 6 min; root)
	@echo "== 1. sandbox: a trivial static C program, bare vs through the sandbox"
	$(BIN)/judge sandbox bench --n 1000
	$(BIN)/verdict-stack bench --go $(GO)

chaos: deps build ## fault drills against a fresh local stack (root; a few minutes); fails unless all pass
	$(BIN)/verdict-stack chaos

rehearsal: deps build ## a 3,000-contestant contest through a fresh stack, writes docs/rehearsal.md (about 14 min on 2 cores)
	$(BIN)/verdict-stack rehearse $(REHEARSAL_FLAGS)

sim: ## scheduling lab: every policy on every scenario, 10 seeds, writes docs/scheduling.md (about an hour on 2 busy cores; SEEDS=N for fewer, SIM_FLAGS for more, e.g. -save run.gob); SCENARIO=a.json[,b.json] runs your scenario files instead, TRACE=run.json a recorded run (a schedtrace, or what verdict-stack export-trace writes) at its own times (no report written)
	$(GO) run ./hub/internal/sched/sim/cmd/sim $(if $(SEEDS),-seeds $(SEEDS)) $(if $(SCENARIO),-scenario $(SCENARIO)) $(if $(TRACE),-trace $(TRACE)) $(SIM_FLAGS)

sim-quick: ## the scheduling lab on short runs (about 20 s), printing the table only
	$(GO) run ./hub/internal/sched/sim/cmd/sim -quick -out "" $(if $(SCENARIO),-scenario $(SCENARIO)) $(if $(TRACE),-trace $(TRACE))

lint: ## gofmt, go vet (Linux and GOOS=darwin), staticcheck (pinned in go.mod); make test runs it too
	@GO=$(GO) bash deploy/scripts/lint.sh

fmt: ## gofmt the tree (tracked and new files)
	gofmt -s -w $$(git ls-files -co --exclude-standard '*.go')

clean: ## remove build output (not ./var, which holds the stack's data)
	rm -rf $(BIN)
