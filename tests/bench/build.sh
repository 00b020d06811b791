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

# bench_run LABEL ARGS...: $BIN collect with ARGS on the lab in $WORK/lab,
# records in $WORK/LABEL.jsonl; sets WALL (s), RSS (peak, MB) and FDS (the
# most file descriptors netprof held, sampled every 0.1 s), and warns of
# failed probes.
bench_run() {
	local out=$WORK/$1.jsonl rssf=$WORK/$1.rss t0 t1 pid np max=0 n bad
	shift
	rm -f "$out"
	t0=$(date +%s.%N)
	/usr/bin/time -f %M -o "$rssf" "$BIN" -q collect \
	    --config "$WORK/lab/machines.json" --output "$out" "$@" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		np=$(pgrep -P $pid -x netprof | head -1 || true)
		n=0
		[ -z "$np" ] || n=$(ls /proc/"$np"/fd 2>/dev/null | wc -l || true)
		[ "$n" -gt $max ] && max=$n
		sleep 0.1
	done
	wait $pid || true
	t1=$(date +%s.%N)
	WALL=$(echo "$t1 - $t0" | bc -l)
	# time(1) puts "Command exited with non-zero status N" first
	RSS=$(awk 'END {printf "%.1f", $1/1024}' "$rssf")
	FDS=$max
	bad=$(jq -r 'select(.ok|not)|"\(.source)->\(.target): \(.error)"' "$out" |
	    head -3 || true)	# head's early exit is no failure
	[ -z "$bad" ] || echo "  warning: $(basename "$out" .jsonl) had failed probes: $bad" >&2
}

