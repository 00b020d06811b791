# shellcheck shell=bash
# Sourced by the benchmark scripts: what their preludes share (the binary to
# measure, the lab set-up and its cleanup, a fresh work directory, a clock)
# and bench_run for the collect benchmarks.
BENCH_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# bench_binary [PATH]: prints the netprof to measure, building build/main (a
# release-like build) when none is given.
bench_binary() {
	if [ -n "${1:-}" ]; then
		echo "$1"
		return
	fi
	cmake -S "$BENCH_SRC" -B "$BENCH_SRC/build/main" >/dev/null &&
	    cmake --build "$BENCH_SRC/build/main" -j "$(nproc)" >/dev/null ||
	    { echo "bench: the build failed" >&2; return 1; }
	echo "$BENCH_SRC/build/main/netprof"
}

# bench_lab_setup SCRIPT LAB_NAME COMMAND...: a lab benchmark's start. Exits
# 2 unless root (the lab) with every COMMAND on PATH; sets LAB (lab.sh) and
# WORK (a new temporary directory); the lab LAB_NAME in $WORK/lab is taken
# down by cleanup, which also runs at exit, when WORK is removed too.
bench_lab_setup() {
	local script=$1 c
	BENCH_LAB_NAME=$2
	shift 2
	[ "$(id -u)" -eq 0 ] || { echo "$script: needs root (the lab)" >&2; exit 2; }
	for c in "$@"; do
		command -v "$c" >/dev/null || { echo "$script: needs $c" >&2; exit 2; }
	done
	LAB=$BENCH_SRC/tests/lab/lab.sh
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/netprof-$BENCH_LAB_NAME.XXXXXX")
	trap 'cleanup; rm -rf "$WORK"' EXIT
}
cleanup() {
	"$LAB" down --name "$BENCH_LAB_NAME" --dir "$WORK/lab" >/dev/null 2>&1 || true
}

# bench_workdir NAME: prints ${NETPROF_TEST_TMP:-build/bench}/NAME, made
# empty; kept after the run (so its output can be looked at).
bench_workdir() {
	local dir=${NETPROF_TEST_TMP:-$BENCH_SRC/build/bench}/$1
	rm -rf "$dir" && mkdir -p "$dir" && echo "$dir"
}

now() { date +%s.%N; }

# Busy and total jiffies of all cores so far.
cpu_jiffies() { awk '/^cpu /{b=$2+$3+$4+$7+$8; print b, b+$5+$6}' /proc/stat; }

# cpu_between "C0" "C1" (two cpu_jiffies): prints the share of all cores
# busy in between (%) and the CPU-seconds used on the whole machine.
cpu_between() {
	echo "$1 $2" | awk -v hz="$(getconf CLK_TCK)" \
	    '{b=$3-$1; t=$4-$2; printf "%.0f %.1f\n", t ? 100*b/t : 0, b/hz}'
}

# bench_run LABEL ARGS...: $BIN collect with ARGS on the lab in $WORK/lab,
# records in $WORK/LABEL.jsonl; sets WALL (s), RSS (peak, MB), FDS (the
# most file descriptors netprof held, sampled every 0.1 s), OWN_S
# (netprof's CPU-seconds), BUSY and CPU_S (cpu_between over the run), and
# warns of failed probes.
bench_run() {
	local out=$WORK/$1.jsonl rssf=$WORK/$1.rss t0 t1 c0 pid np max=0 n bad
	shift
	rm -f "$out"
	c0=$(cpu_jiffies)
	t0=$(date +%s.%N)
	/usr/bin/time -f '%M %U %S' -o "$rssf" "$BIN" -q collect \
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
	read -r BUSY CPU_S < <(cpu_between "$c0" "$(cpu_jiffies)")
	WALL=$(echo "$t1 - $t0" | bc -l)
	# time(1) puts "Command exited with non-zero status N" first
	read -r RSS OWN_S < <(awk 'END {printf "%.1f %.2f\n", $1/1024, $2+$3}' "$rssf")
	FDS=$max
	bad=$(jq -r 'select(.ok|not)|"\(.source)->\(.target): \(.error)"' "$out" |
	    head -3 || true)	# head's early exit is no failure
	[ -z "$bad" ] || echo "  warning: $(basename "$out" .jsonl) had failed probes: $bad" >&2
}

