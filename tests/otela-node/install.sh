#!/bin/sh
# Installs the stand-in otela node's npm dependencies (pinned by
# package-lock.json) with `npm ci`, only when node_modules is missing or the
# lock file changed since the last install, and makes the node's one-file
# bundle when it is missing or older than a source. Safe to run repeatedly.
set -eu

dir=$(cd "$(dirname "$0")" && pwd)
stamp="$dir/node_modules/.otela-lock.sha256"

command -v node >/dev/null 2>&1 || { echo "install.sh: node (Node.js 20) is required: apt-get install nodejs npm" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || { echo "install.sh: npm is required: apt-get install npm" >&2; exit 1; }

want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
if [ -d "$dir/node_modules" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	echo "tests/otela-node: dependencies up to date"
else
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
	echo "$want" > "$stamp"
	echo "tests/otela-node: dependencies installed"
fi

# The node as one file (bin/otela runs it while it is newer than every
# source file): Node loads it 3-4x faster than the ~800 modules it is made
# of, which is most of a node's start on a busy machine. Made again when a
# source is newer; written whole (a temporary file, then renamed), so a
# node starting meanwhile never loads half of it. Its CommonJS packages
# (yaml) require() Node's own modules: the banner gives it a require.
bundle="$dir/node_modules/.otela-bundle.mjs"
if [ -n "$(find "$dir/src" -newer "$bundle" 2>/dev/null | head -1)" ] ||
    [ ! -f "$bundle" ]; then
	"$dir/node_modules/.bin/esbuild" "$dir/src/entry.js" --bundle \
	    --platform=node --format=esm --log-level=warning \
	    --banner:js="import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" \
	    --outfile="$bundle.tmp.mjs"
	mv "$bundle.tmp.mjs" "$bundle"
	echo "tests/otela-node: bundle made"
fi
