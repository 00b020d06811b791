#!/bin/sh
# Installs what the browser tests need, idempotently: Debian's chromium
# (headless, used through playwright-core; no browser download) and the
# pinned node modules from package-lock.json.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v chromium >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install.sh: chromium is missing; run as root or: apt-get install chromium" >&2
		exit 1
	fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi

if [ ! -f "$here/node_modules/playwright-core/package.json" ] ||
    [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
	(cd "$here" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
fi
echo "browser tests: $(chromium --version 2>/dev/null | head -n 1), playwright-core $(node -p "require('$here/node_modules/playwright-core/package.json').version")"
