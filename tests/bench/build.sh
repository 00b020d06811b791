# shellcheck shell=bash
# Sourced by the benchmark scripts: bench_binary prints the netprof to
# measure, building build/main (a release-like build) when none is given.
bench_binary() {	# [given path]
	local src
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	if [ -n "${1:-}" ]; then
		echo "$1"
		return
	fi
	cmake -S "$src" -B "$src/build/main" >/dev/null &&
	    cmake --build "$src/build/main" -j "$(nproc)" >/dev/null ||
	    { echo "bench: the build failed" >&2; return 1; }
	echo "$src/build/main/netprof"
}
