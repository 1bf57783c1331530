#!/bin/bash
# npm run e2e: setup (idempotent, cached), pack the extension with the admit server
# built from this repository, pack the agent fixture, run the scenarios. The last line
# is "N passed, M failed"; the exit status is 0 only when nothing failed.
#   ADMIT_E2E_SKIP_PACKAGE=1  reuse the existing .vsix     ADMIT_E2E_ONLY=1,3  some scenarios
set -uo pipefail
EXT=$(cd "$(dirname "$0")/.." && pwd)
cd "$EXT"
T0=$(date +%s)
CS=$(bash e2e/setup.sh) || { echo "e2e: setup failed"; echo "0 passed, 1 failed"; exit 1; }
T1=$(date +%s)
echo "e2e: setup took $((T1 - T0)) s"
if [ -z "${ADMIT_E2E_SKIP_PACKAGE:-}" ] || [ ! -f "admit-$(node -p 'require("./package.json").version').vsix" ]; then
  npm run --silent package >/dev/null || { echo "e2e: npm run package failed (the Go build?)"; echo "0 passed, 1 failed"; exit 1; }
fi
mkdir -p out/e2e
if [ ! -f out/e2e/agent-fixture.vsix ] || [ -n "$(find e2e/agent-fixture -newer out/e2e/agent-fixture.vsix -type f)" ]; then
  (cd e2e/agent-fixture && ../../node_modules/.bin/vsce package --allow-missing-repository --skip-license -o ../../out/e2e/agent-fixture.vsix >/dev/null) \
    || { echo "e2e: packing the agent fixture failed"; echo "0 passed, 1 failed"; exit 1; }
fi
# A protocol smoke test of the packed binary, without VS Code: a server that crashes at
# start shows here with its panic, before the slower scenarios. It gets a home, state and
# runtime folder of its own (the servers' default sockets go there, and stay when they
# are killed), and it is rooted in a workspace folder of its own, with its tape beside it.
# A server that fails here fails the suite: the scenarios would only restart it.
SMOKE=$(mktemp -d)
HOME=$SMOKE XDG_STATE_HOME=$SMOKE/state XDG_DATA_HOME=$SMOKE/data XDG_CONFIG_HOME=$SMOKE/config XDG_RUNTIME_DIR=$SMOKE/run node e2e/smoke-server.cjs bin/admit 5 "$SMOKE" >"$SMOKE/out" 2>&1
SMOKE_RC=$?
tail -15 "$SMOKE/out"
rm -rf "$SMOKE"
if [ "$SMOKE_RC" -ne 0 ]; then echo "e2e: the server smoke test failed"; echo "0 passed, 1 failed"; exit 1; fi
T2=$(date +%s)
echo "e2e: packaging took $((T2 - T1)) s"
ADMIT_CODE_SERVER=$CS node e2e/run.mjs
