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
set -uo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
status=0
fail() { echo "lint: $*"; status=1; }

echo "== gofmt -s"
# Tracked and new (not ignored) files: a file not yet added is checked too.
mapfile -t files < <(git ls-files -co --exclude-standard '*.go')
bad=$(gofmt -s -l "${files[@]}")
[ -z "$bad" ] || fail "not gofmt -s formatted (run make fmt):"$'\n'"$bad"

echo "== go vet ./..."
"$GO" vet ./... || fail "go vet found problems"

echo "== GOOS=darwin go vet ./..."
GOOS=darwin "$GO" vet ./... || fail "GOOS=darwin go vet found problems (a Linux-only file without //go:build linux and a stub?)"

echo "== staticcheck ./..."
"$GO" tool staticcheck ./... || fail "staticcheck found problems"

echo "== test-only modules outside the binaries"
testonly='^(github\.com/chromedp/|github\.com/johannesboyne/gofakes3|go\.uber\.org/goleak|honnef\.co/go/tools)'
if deps=$("$GO" list -deps ./webapp ./hub ./judge ./edge ./deploy); then
  leaked=$(grep -E "$testonly" <<<"$deps" || true)
  [ -z "$leaked" ] || fail "a binary imports a test-only package:"$'\n'"$leaked"
else
  fail "go list -deps of the binaries failed"
fi

[ "$status" -eq 0 ] && echo "lint: ok"
exit "$status"
