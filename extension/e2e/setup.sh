#!/bin/bash
# Idempotent setup for the end-to-end suite: system packages (chromium, ripgrep, the
# headers code-server's native modules need), code-server 4.100.3 from npm (cached), and
# the extension's own dev dependencies (playwright-core, @vscode/vsce). Work already done
# is skipped, so a second run takes a second or two.
#
# The code-server install is cached in $ADMIT_E2E_CACHE, default /opt/admit-e2e when
# /opt is writable, else $HOME/.cache/admit-e2e.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
EXT=$(cd "$HERE/.." && pwd)
VER=${CODE_SERVER_VERSION:-4.100.3}
if [ -z "${ADMIT_E2E_CACHE:-}" ]; then
  if [ -w /opt ]; then ADMIT_E2E_CACHE=/opt/admit-e2e; else ADMIT_E2E_CACHE=$HOME/.cache/admit-e2e; fi
fi
CS_DIR=$ADMIT_E2E_CACHE/code-server-$VER
log() { echo "e2e-setup: $*" >&2; }

# 1. system packages, only when missing
need=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need+=(chromium)
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
[ -e /usr/include/krb5.h ] || [ -e /usr/include/gssapi/gssapi.h ] || need+=(libkrb5-dev)
command -v make >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 || need+=(build-essential)
command -v python3 >/dev/null 2>&1 || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
else
  log "system packages present"
fi

# 2. code-server, cached; the marker is written only after a complete install
if [ -f "$CS_DIR/.admit-installed" ]; then
  log "code-server $VER cached in $CS_DIR"
else
  log "installing code-server $VER into $CS_DIR (a minute or two)"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  CODE_SERVER_VERSION=$VER bash "$HERE/install-code-server.sh" "$CS_DIR" >"$ADMIT_E2E_CACHE/install-$VER.log" 2>&1 || {
    log "code-server install failed; log: $ADMIT_E2E_CACHE/install-$VER.log"; tail -20 "$ADMIT_E2E_CACHE/install-$VER.log" >&2; exit 1; }
  touch "$CS_DIR/.admit-installed"
fi
ln -sfn "$CS_DIR/node_modules/.bin/code-server" "$ADMIT_E2E_CACHE/code-server"

# 3. the extension's dev dependencies (playwright-core, @vscode/vsce, esbuild, typescript)
if [ ! -d "$EXT/node_modules/playwright-core" ] || [ ! -d "$EXT/node_modules/@vscode/vsce" ] \
   || [ "$EXT/package-lock.json" -nt "$EXT/node_modules/.package-lock.json" ]; then
  log "npm ci in $EXT"
  (cd "$EXT" && npm ci --no-audit --no-fund >/dev/null)
else
  log "extension dependencies present"
fi
echo "$ADMIT_E2E_CACHE/code-server"
