#!/usr/bin/env bash
# The real-client suite: installs the pinned agent clients (setup.sh,
# cached), builds admit into the cache (outside every repository and
# temporary folder, where admit connect accepts a binary), and runs
# internal/realclients, which drives each client (in parallel) against a
# fake model server on 127.0.0.1 with admit connected, and prints each
# run's time and the total.
#   ADMIT_SKIP_REAL_CLIENTS=1  skip it
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -n "${ADMIT_SKIP_REAL_CLIENTS:-}" ]; then
  echo "realclients: skipped (ADMIT_SKIP_REAL_CLIENTS)"; exit 0
fi
began=$(date +%s)
cache=$(bash scripts/realclients/setup.sh)
mkdir -p "$cache/bin"
go build -o "$cache/bin/admit" .
chmod 755 "$cache/bin" "$cache/bin/admit"
out=$(mktemp)
rc=0
ADMIT_REAL_CLIENTS=$cache ADMIT_BIN=$cache/bin/admit go test -count=1 -v -timeout 10m ./internal/realclients/ >"$out" 2>&1 || rc=$?
# Each scenario's outcome and time, each client's total; everything when
# it failed.
if [ "$rc" -eq 0 ]; then
  grep -E '^(--- |ok)|: ([0-9]+m)?[0-9.]+m?s$' "$out" || true
else
  cat "$out"
fi
rm -f "$out"
echo "realclients: $(($(date +%s) - began)) s in total (install, build and every client)"
exit "$rc"
