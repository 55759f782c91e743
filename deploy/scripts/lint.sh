#!/usr/bin/env bash
# lint.sh — the static checks, as `make lint` and `make test` run them:
#   1. gofmt -s: no Go file differs from its formatting (make fmt fixes it);
#   2. go vet ./... on Linux, and GOOS=darwin go vet ./... (the tree builds
#      and vets on a contributor's laptop; the judge runs on Linux only);
#   3. staticcheck ./..., the version pinned by go.mod's tool directive
#      (`go tool staticcheck` builds it from the module cache, fetching it
#      through the module proxy the first time: nothing to install);
#   4. the binaries' dependency graph holds no test-only module (see
#      docs/design.md, "Build and dependencies").
# Runs every check, prints what failed and exits non-zero if any did.
#
#   lint.sh [all|quick|slow]
# quick is 1, 2's Linux vet and 4 (seconds on a warm build cache); slow is
# the rest, 2's darwin vet and 3, which compile and analyse the whole tree
# (with its dependencies) again: make test runs it beside the tests, at
# the lowest CPU priority (deploy/scripts/test.sh). Default: all.
set -uo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
part=${1:-all}
case "$part" in
  all|quick|slow) ;;
  *) echo "lint.sh: unknown part $part (all, quick or slow)" >&2; exit 2 ;;
esac
quick() { [ "$part" != slow ]; }
slow() { [ "$part" != quick ]; }
status=0
fail() { echo "lint: $*"; status=1; }

if quick; then
  echo "== gofmt -s"
  # Tracked and new (not ignored) files: a file not yet added is checked too.
  mapfile -t files < <(git ls-files -co --exclude-standard '*.go')
  bad=$(gofmt -s -l "${files[@]}")
  [ -z "$bad" ] || fail "not gofmt -s formatted (run make fmt):"$'\n'"$bad"

  echo "== go vet ./..."
  "$GO" vet ./... || fail "go vet found problems"
fi

if slow; then
  echo "== GOOS=darwin go vet ./..."
  GOOS=darwin "$GO" vet ./... || fail "GOOS=darwin go vet found problems (a Linux-only file without //go:build linux and a stub?)"

  echo "== staticcheck ./..."
  "$GO" tool staticcheck ./... || fail "staticcheck found problems"
fi

if quick; then
  echo "== test-only modules outside the binaries"
  testonly='^(github\.com/chromedp/|github\.com/johannesboyne/gofakes3|go\.uber\.org/goleak|honnef\.co/go/tools)'
  if deps=$("$GO" list -deps ./webapp ./hub ./judge ./edge ./deploy); then
    leaked=$(grep -E "$testonly" <<<"$deps" || true)
    [ -z "$leaked" ] || fail "a binary imports a test-only package:"$'\n'"$leaked"
  else
    fail "go list -deps of the binaries failed"
  fi
fi

[ "$status" -eq 0 ] && echo "lint ($part): ok"
exit "$status"
