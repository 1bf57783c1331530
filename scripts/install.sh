#!/usr/bin/env bash
# Installs admit for this user from a clone of its repository: the binary
# at $ADMIT_PREFIX/bin/admit (default ~/.local/bin, outside every
# repository, where admit connect accepts it), and, where VS Code's `code`
# command and npm are present, the extension packed for this machine.
# Prints what it installed and the next command. Needs Go 1.26.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${ADMIT_PREFIX:-$HOME/.local}
bin=$prefix/bin/admit
mkdir -p "$prefix/bin"
go build -o "$bin.new" . && mv "$bin.new" "$bin"
chmod 755 "$bin"
echo "installed $("$bin" version) at $bin"
if command -v code >/dev/null && command -v npm >/dev/null; then
  out=$(mktemp -d)
  (cd extension && npm ci --no-audit --no-fund >/dev/null && npm run --silent package -- --out "$out" >/dev/null)
  vsix=$(ls "$out"/*.vsix)
  code --install-extension "$vsix" --force >/dev/null
  echo "installed the VS Code extension ($(basename "$vsix"))"
  rm -rf "$out"
else
  echo "VS Code's code command (or npm) is not on PATH: the extension was not installed (extension/README.md)"
fi
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not on your PATH" ;; esac
echo "next: $bin connect        (or: $bin connect claude-code, to connect one agent)"
