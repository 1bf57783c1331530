#!/usr/bin/env bash
# Installs the real agent clients the real-client suite drives, from npm at
# pinned versions, each in a folder of its own under the cache
# ($ADMIT_REAL_CLIENTS_CACHE, default /opt/admit-realclients when /opt is
# writable, else $HOME/.cache/admit-realclients), and prints the cache's
# path. A client already installed (its .admit-installed marker) is
# skipped, so a second run takes a second. A client that cannot be
# installed fails the run with npm's own words: the suite never skips one
# silently.
set -euo pipefail
if [ -z "${ADMIT_REAL_CLIENTS_CACHE:-}" ]; then
  if [ -w /opt ]; then ADMIT_REAL_CLIENTS_CACHE=/opt/admit-realclients; else ADMIT_REAL_CLIENTS_CACHE=$HOME/.cache/admit-realclients; fi
fi
log() { echo "realclients-setup: $*" >&2; }
# name package version: the versions the tests in internal/realclients name.
clients=(
  "claude-code @anthropic-ai/claude-code 2.1.328"
  "codex @openai/codex 0.169.0"
  "gemini @google/gemini-cli 0.61.0"
  "copilot @github/copilot 1.0.102"
  "cline cline 3.0.65"
  "opencode opencode-ai 1.18.33"
)
command -v npm >/dev/null || { log "npm not found: the real clients cannot be installed"; exit 1; }
mkdir -p "$ADMIT_REAL_CLIENTS_CACHE"
for c in "${clients[@]}"; do
  read -r name pkg ver <<<"$c"
  dir=$ADMIT_REAL_CLIENTS_CACHE/$name-$ver
  if [ -f "$dir/.admit-installed" ]; then
    log "$pkg@$ver cached in $dir"
    continue
  fi
  log "installing $pkg@$ver into $dir"
  rm -rf "$dir" && mkdir -p "$dir"
  echo '{"private":true}' >"$dir/package.json"
  # An enclosing npm run hands down its own prefix and settings: this is a
  # project of its own.
  if ! (cd "$dir" && env -u npm_config_prefix -u npm_config_global -u npm_config_loglevel \
    npm install --no-audit --no-fund --no-save "$pkg@$ver" >"$dir/install.log" 2>&1); then
    log "npm could not install $pkg@$ver:"; tail -20 "$dir/install.log" >&2; exit 1
  fi
  touch "$dir/.admit-installed"
done
echo "$ADMIT_REAL_CLIENTS_CACHE"
