#!/usr/bin/env bash
# deps.sh — install every Debian package Verdict needs, and only what is missing.
#
# Idempotent: when everything is installed it only runs one `dpkg-query` and exits.
# Needs root on Debian (apt-get). Anywhere else it prints the package list and
# exits non-zero so the caller knows what to install by hand.
#
# Services are NOT started by the installation: Verdict runs its own MariaDB,
# Redis and nginx under ./var (see deploy/), on its own loopback ports.
set -euo pipefail

PACKAGES=(
  # services the stack and the tests run
  mariadb-server mariadb-client redis-server nginx-light
  # the judge sandbox (cgo: libseccomp-golang) and the languages it judges
  libseccomp-dev pkg-config gcc g++ make python3 openjdk-17-jdk-headless
  # browser tests (headless Chromium driven over the DevTools protocol)
  chromium chromium-driver fonts-noto-cjk
  # fault drills and tooling
  iproute2 procps curl ca-certificates git
  # the sandbox's cgroup v2 VM test (make test-cgroup2: Debian's kernel under QEMU)
  qemu-system-x86
)

# The frontend is built with Vite 8, which needs Node.js >= 20.19. Debian 12's
# own nodejs is 18, so Node is not installed from Debian here: the machines
# this project runs on come with Node 20. Say so clearly when it is missing.
node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'
}
if ! node_ok; then
  echo "deps: Node.js >= 20.19 with npm is needed to build and test the frontend (found: $(node --version 2>/dev/null || echo none))." >&2
  echo "      Install it from your distribution's backports or nodejs.org packages, then rerun." >&2
  exit 1
fi

# One dpkg-query for all packages: installed ones print "name ok".
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${PACKAGES[@]}" 2>/dev/null | awk '$2=="installed"{print $1}') || true
missing=()
for p in "${PACKAGES[@]}"; do
  grep -qx "$p" <<<"$installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#PACKAGES[@]} system packages present"
  exit 0
fi

if [ ! -r /etc/debian_version ] || ! command -v apt-get >/dev/null; then
  echo "deps: this is not a Debian system. Install the equivalents of:" >&2
  printf '  %s\n' "${missing[@]}" >&2
  exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: root is needed to install these Debian packages:" >&2
  printf '  %s\n' "${missing[@]}" >&2
  echo "run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Keep the packages' own services from starting: Verdict runs its own
# instances. Only done when no policy-rc.d exists, and undone afterwards.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy"
  chmod +x "$policy"
  own_policy=1
fi
cleanup() { if [ "$own_policy" = 1 ]; then rm -f "$policy"; fi; }
trap cleanup EXIT

# A stale package list makes apt-get install fail with 404s: refresh once
# when it is older than a day or missing.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n1)" ]; then
  apt-get update -q
fi
apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "deps: done"
