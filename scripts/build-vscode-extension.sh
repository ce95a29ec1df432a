#!/usr/bin/env bash
# Builds the VS Code extension: npm ci in clients/vscode (its own lockfile, outside the root install), then the .vsix.
#
# The .vsix bundles the server from server/src, whose dependencies come from the root install: run `npm ci` at the
# root first (this script does when node_modules is missing). Prints the .vsix path.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
EXTENSION="$REPO_ROOT/clients/vscode"
started=$(date +%s)

if [ ! -d "$REPO_ROOT/node_modules/vscode-languageserver" ]; then
  echo "build-vscode-extension: npm ci at the repository root (the server's dependencies)" >&2
  (cd "$REPO_ROOT" && npm ci --no-audit --no-fund)
fi

cd "$EXTENSION"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent typecheck
npm run --silent package >&2

echo "build-vscode-extension: done in $(( $(date +%s) - started )) s" >&2
echo "$EXTENSION/assistant-ls.vsix"
