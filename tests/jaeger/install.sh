#!/bin/sh
# Builds the Jaeger that the trace tests export to, once per machine:
# jaeger (v2, the all-in-one backend) from the Go module proxy, pinned by
# this folder's go.mod and go.sum (a Go "tool" module: go get -tool
# github.com/jaegertracing/jaeger/cmd/jaeger@v1.75.0). The binary is
# cached under NETPROF_TEST_CACHE (default /var/cache/netprof-tests, never
# the user's home or /tmp) in a directory named by a hash of go.mod and
# go.sum, so a new pin builds anew and an unchanged one never does; Go's
# own caches (GOPATH, GOMODCACHE, GOCACHE) live there too.
#
#   tests/jaeger/install.sh          build if missing, print the binary's path
#   tests/jaeger/install.sh --path   only print where the binary is (or
#                                    would be); exit 1 if it is not built
#   tests/jaeger/install.sh --background
#                                    build if missing, in the background at
#                                    a low priority (tests/run.sh: the build
#                                    overlaps the suite's own builds and
#                                    lab tests, which mostly wait); its log
#                                    is build.log beside the binary
#   tests/jaeger/install.sh --wait S as --path, after waiting up to S
#                                    seconds for a build under way
#
# The build takes about 11 minutes of two cores on a fresh machine
# (docs/tracing.md); Go >= 1.21 is needed to start it (Debian's golang-go
# is 1.19): the go on PATH or /usr/local/go's, which fetches the
# toolchain go.mod asks for from the module proxy if it is older.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${NETPROF_TEST_CACHE:-/var/cache/netprof-tests}
key=$(cat "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-16)
bin=$cache/jaeger-$key/jaeger

# A build holds this lock (a file in the cache, never in /tmp) while it runs.
lock=$cache/jaeger-$key.lock

case ${1:-} in
--path)
	echo "$bin"
	[ -x "$bin" ]
	exit ;;
--wait)
	if [ ! -x "$bin" ] && [ -f "$lock" ]; then
		flock -s -w "${2:?--wait SECONDS}" "$lock" true 2>/dev/null || true
	fi
	echo "$bin"
	[ -x "$bin" ]
	exit ;;
--background)
	[ -x "$bin" ] && { echo "$bin"; exit 0; }
	mkdir -p "$cache/jaeger-$key" || {
		echo "jaeger/install.sh: cannot write $cache; run as root or set NETPROF_TEST_CACHE to a directory of yours" >&2
		exit 1
	}
	# the lock is taken here, before returning, so that a --wait that
	# follows at once sees the build under way
	exec 8>"$lock"
	if ! flock -n 8; then
		echo "jaeger/install.sh: a build of Jaeger is under way" >&2
		exit 0
	fi
	echo "jaeger/install.sh: building Jaeger in the background (log: $cache/jaeger-$key/build.log)" >&2
	NETPROF_JAEGER_LOCKED=1 setsid nice -n 15 "$0" \
	    >"$cache/jaeger-$key/build.log" 2>&1 </dev/null &
	exit 0 ;;
esac
if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi

go=
for g in go /usr/local/go/bin/go; do
	command -v "$g" >/dev/null 2>&1 || continue
	# go1.21 and later can fetch the toolchain go.mod asks for
	v=$("$g" env GOVERSION 2>/dev/null | sed 's/^go//') || continue
	case $v in
	1.[0-9] | 1.[0-9].* | 1.1[0-9] | 1.1[0-9].* | 1.20 | 1.20.*) continue ;;
	esac
	go=$(command -v "$g")
	break
done
if [ -z "$go" ]; then
	echo "jaeger/install.sh: no Go 1.21 or later (on PATH or /usr/local/go); install it to build Jaeger for the trace tests" >&2
	exit 1
fi
mkdir -p "$cache/go" "$cache/jaeger-$key" || {
	echo "jaeger/install.sh: cannot write $cache; run as root or set NETPROF_TEST_CACHE to a directory of yours" >&2
	exit 1
}
# one build at a time; a background one holds the lock it was given
if [ "${NETPROF_JAEGER_LOCKED:-0}" != 1 ]; then
	exec 8>"$lock"
	flock 8
	if [ -x "$bin" ]; then	# built by the one waited for
		echo "$bin"
		exit 0
	fi
fi
export GOPATH="$cache/go" GOMODCACHE="$cache/go/mod" GOCACHE="$cache/go/build" \
    GOTOOLCHAIN=auto GOFLAGS=-mod=readonly CGO_ENABLED=0
t0=$(date +%s)
echo "jaeger/install.sh: building Jaeger (go.sum $key) with $("$go" version); takes minutes, once" >&2
(cd "$here" && "$go" build -trimpath -ldflags='-s -w' -o "$bin.new" \
    github.com/jaegertracing/jaeger/cmd/jaeger)
mv "$bin.new" "$bin"
# Go's build cache is for this build only; the module cache stays for the
# next pin (most modules are the same)
rm -rf "$GOCACHE"
echo "jaeger/install.sh: built in $(( $(date +%s) - t0 )) s: $bin" >&2
echo "$bin"
