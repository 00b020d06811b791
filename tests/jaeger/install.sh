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

if [ "${1:-}" = --path ]; then
	echo "$bin"
	[ -x "$bin" ]
	exit
fi
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
