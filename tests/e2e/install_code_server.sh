#!/usr/bin/env bash
# Installs code-server (VS Code 1.100.3 in a browser; the last release that runs on Node 20) into
# .cache/code-server/ at the repository root, once; later runs reuse it.
# Needs the Debian packages listed in tests/e2e/apt-packages.txt (.ci/run installs them).
set -euo pipefail
VERSION=4.100.3
cd "$(dirname "$0")/../.."
DIR=.cache/code-server
if [ -f "$DIR/.installed-$VERSION" ] && [ -x "$DIR/node_modules/.bin/code-server" ]; then
  exit 0
fi
echo "== installing code-server $VERSION into $DIR"
rm -rf "$DIR"
mkdir -p "$DIR"
# Its @vscode/ripgrep postinstall downloads a binary from the internet: seed that download's cache
# with Debian's rg instead.
cache="$(node -p 'require("os").tmpdir()')/vscode-ripgrep-cache-1.15.11"
mkdir -p "$cache"
tar czf "$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C /usr/bin rg
cd "$DIR"
echo '{"private": true}' > package.json
npm_config_unsafe_perm=true npm_config_yes=true npm install --no-audit --no-fund "code-server@$VERSION"
touch ".installed-$VERSION"
