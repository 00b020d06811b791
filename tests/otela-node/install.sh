#!/bin/sh
# Installs the stand-in otela node's npm dependencies (pinned by
# package-lock.json) with `npm ci`, only when node_modules is missing or the
# lock file changed since the last install. Safe to run repeatedly.
set -eu

dir=$(cd "$(dirname "$0")" && pwd)
stamp="$dir/node_modules/.otela-lock.sha256"

command -v node >/dev/null 2>&1 || { echo "install.sh: node (Node.js 20) is required: apt-get install nodejs npm" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || { echo "install.sh: npm is required: apt-get install npm" >&2; exit 1; }

want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
if [ -d "$dir/node_modules" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	echo "tests/otela-node: dependencies up to date"
	exit 0
fi

(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
echo "$want" > "$stamp"
echo "tests/otela-node: dependencies installed"
