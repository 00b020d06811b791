#!/usr/bin/env bash
# Benchmark on a lab with distance: N hosts in 3 sites (one-way 5, 15 and
# 30 ms to the core) and this machine 10 ms from it, so that every SSH
# handshake and every command crosses the emulated WAN. In one run:
# - the SSH handshake cost per host: OpenSSH `ssh HOST true` one host after
#   the other (what a tool that connects per command pays each time)
#   against `netprof exec -- true` (one session per host, all at once);
# - collect ping, the fan-out against --serial (upstream's order), each
#   with the ratio to its schedule's lower bound (fan-out: one probe;
#   serial: every pair's probe one after the other);
# - with --bench, bench against bench --serial (the stand-in otela node):
#   tests/perf/bench.sh with BENCH_WAN=1 on a lab of the same shape (each
#   phase, the speed-up, the sweep against its lower bound, peak RSS;
#   --serial measured up to BENCH_SERIAL_MAX hosts, default N).
# Prints the machine's load (uptime) first and last: figures measured
# under load say so.
#
# usage: tests/perf/wan.sh [--bench] [N]   (default N = 8; needs root)
# env:   NETPROF_BIN (default: build/main/netprof, built)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
BIN=$(bench_binary "${NETPROF_BIN:-}") || exit 1
do_bench=0
[ "${1:-}" = --bench ] && { do_bench=1; shift; }
N=${1:-8}
PING_COUNT=5
PING_INTERVAL=1

bench_lab_setup wan.sh wanb jq ssh /usr/bin/time wirefilter vde_switch

echo "load before: $(uptime | sed 's/.*load average: //')"
na=$(( (N + 2) / 3 )) nb=$(( (N + 1) / 3 )) nc=$(( N / 3 ))
"$LAB" up --name wanb --dir "$WORK/lab" --site "a=$na,delay=5" \
    --site "b=$nb,delay=15" --site "c=$nc,delay=30" --home delay=10
inv=$WORK/lab/machines.json
# shellcheck disable=SC1091
. "$WORK/lab/lab.env"
pairs=$(( N * (N - 1) ))

# --- the handshake ------------------------------------------------------
t0=$(now)
for h in $LAB_HOSTS; do
	ssh -F "$LAB_SSH_CONFIG" "$h" true
done
t1=$(now)
t2=$(now)
"$BIN" -q exec --config "$inv" -- true >/dev/null
t3=$(now)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v n="$N" 'BEGIN {
	printf "handshake: ssh HOST true, one host after the other: %.2f s for %d hosts (%.0f ms each)\n", b - a, n, 1000 * (b - a) / n
	printf "handshake: netprof exec -- true, one session per host at once: %.2f s (%.1fx)\n", d - c, (b - a) / (d - c) }'

# --- collect ping: fan-out against --serial -----------------------------
# The lower bound of one probe: ping -c 5 -i 1 lasts 4 s plus a round trip.
maxrtt=$(jq '[.rtt_ms[][]] | max' "$WORK/lab/topology.json")
sumrtt=$(jq '[.rtt_ms | to_entries[] | select(.key != "home") | .value | to_entries[] | select(.key != "home") | .value] | add' "$WORK/lab/topology.json")
bench_run fanout --ping-count $PING_COUNT --ping-interval $PING_INTERVAL
fan=$WALL fan_rss=$RSS
bench_run serial --ping-count $PING_COUNT --ping-interval $PING_INTERVAL --serial
ser=$WALL
awk -v f="$fan" -v s="$ser" -v p=$pairs -v c=$PING_COUNT -v i=$PING_INTERVAL \
    -v m="$maxrtt" -v sum="$sumrtt" -v rss="$fan_rss" 'BEGIN {
	lbf = (c - 1) * i + m / 1000
	lbs = p * (c - 1) * i + sum / 1000
	printf "collect ping (%d pairs, %d x %g s): fan-out %.1f s (%.2fx its bound %.1f s, peak RSS %s MB)\n", p, c, i, f, f / lbf, lbf, rss
	printf "collect ping --serial: %.1f s (%.2fx its bound %.1f s)\n", s, s / lbs, lbs
	printf "collect ping: fan-out is %.1fx --serial\n", s / f }'

# --- bench: against --serial -------------------------------------------
# tests/perf/bench.sh on a lab of the same shape: every phase of both, the
# speed-up, the sweep against its lower bound, peak RSS.
if [ $do_bench = 1 ]; then
	echo "load after collect: $(uptime | sed 's/.*load average: //')"
	cleanup
	BENCH_WAN=1 BENCH_SERIAL_MAX=${BENCH_SERIAL_MAX:-$N} NETPROF_BIN=$BIN \
	    "$SRC/tests/perf/bench.sh" "$N"
	exit
fi
echo "load after: $(uptime | sed 's/.*load average: //')"
