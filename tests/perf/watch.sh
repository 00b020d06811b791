#!/usr/bin/env bash
# Benchmark of collect --every: memory and CPU over many sweeps. Runs
# sweeps back to back (--every 0) on a lab, with --metrics-file and
# --rotate, samples netprof's RSS every second against the sweep it is at,
# and prints the trend (sweep, RSS), the growth from sweep 50 to the end,
# the mean sweep time and netprof's own CPU time a sweep (user + system;
# the probes run in the lab's sshd, not in netprof). Flat memory: the
# growth stays near 0 however many sweeps.
#
# usage: tests/perf/watch.sh [HOSTS] [SWEEPS]   (default: 8 1000; needs root)
# env:   NETPROF_BIN (default: build/main/netprof, built), BENCH_SUBNET (244)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
BIN=$(bench_binary "${NETPROF_BIN:-}") || exit 1
HOSTS=${1:-8}
SWEEPS=${2:-1000}

bench_lab_setup watch.sh bwatch jq /usr/bin/time
"$LAB" up --name bwatch --hosts "$HOSTS" --subnet "${BENCH_SUBNET:-244}" --dir "$WORK/lab" >/dev/null
inv=$WORK/lab/machines.json
out=$WORK/sweeps.jsonl

t0=$(now)
/usr/bin/time -f '%U %S' -o "$WORK/cpu" \
    "$BIN" collect --config "$inv" --output "$out" --every 0 --count "$SWEEPS" \
    --ping-count 1 --ping-interval 0.05 --rotate 1M \
    --metrics-file "$WORK/netprof.prom" -q &
tpid=$!
until pid=$(pgrep -P $tpid); do sleep 0.1; done
: >"$WORK/rss"
while kill -0 $pid 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$pid/status 2>/dev/null) || break
	sweep=$(tail -n 1 "$out" 2>/dev/null | jq -r '.sweep // empty' 2>/dev/null || true)
	[ -n "$rss" ] && [ -n "$sweep" ] && echo "$sweep $rss" >>"$WORK/rss"
	sleep 1
done
wait $tpid
t1=$(now)

echo "collect --every 0 --count $SWEEPS on $HOSTS hosts ($((HOSTS * (HOSTS - 1))) pairs a sweep)"
awk -v n="$SWEEPS" 'BEGIN { step = int(n / 10); if (step < 1) step = 1 }
    $1 >= next_at { printf "  sweep %5d  RSS %6d kB\n", $1, $2; next_at = $1 + step }
    { last = $0 } END { split(last, f, " "); printf "  sweep %5d  RSS %6d kB (last)\n", f[1], f[2] }' "$WORK/rss"
early=$(awk '$1 >= 50 { print $2; exit }' "$WORK/rss")
late=$(tail -n 1 "$WORK/rss" | awk '{ print $2 }')
echo "  RSS growth, sweep 50 to the end: $((late - early)) kB"
awk -v a="$t0" -v b="$t1" -v n="$SWEEPS" 'BEGIN { printf "  wall %.1f s, %.3f s a sweep\n", b - a, (b - a) / n }'
awk -v n="$SWEEPS" '{ printf "  netprof CPU %.2f s (user %.2f, system %.2f), %.1f ms a sweep\n", $1 + $2, $1, $2, ($1 + $2) * 1000 / n }' "$WORK/cpu"
