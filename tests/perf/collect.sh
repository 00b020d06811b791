#!/usr/bin/env bash
# Benchmark of netprof collect on 8- and 16-host labs: the parallel
# schedule against --serial (the upstream one-pair-at-a-time order) in the
# same run, for ping (ping_count 5, interval 1 s) and for --iperf
# (iperf_seconds 2). Prints wall times, the speed-up, the ratio to the
# schedule's lower bound (ping: one probe, as the fan-out runs a source's
# pings at once; iperf3: exclusive rounds x iperf_seconds), the peak RSS,
# and the ping medians of both runs (parallelism must not distort them).
#
# usage: tests/perf/collect.sh [SIZES...]   (default: 8 16; needs root)
# env:   NETPROF_BIN (default: build/main/netprof, built), BENCH_SERIAL_MAX (default 8:
#        --serial is run only up to this many hosts; beyond, its time is
#        estimated from the per-pair time at the largest measured size)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
BIN=$(bench_binary "${NETPROF_BIN:-}") || exit 1
SERIAL_MAX=${BENCH_SERIAL_MAX:-8}
SIZES=${*:-8 16}
PING_COUNT=5
IPERF_SECONDS=2

bench_lab_setup collect.sh bench jq ping iperf3 /usr/bin/time


# Median over pairs of each pair's ping p50, in ms.
ping_median() {
	jq -r 'select(.kind=="ping" and .ok)|.metrics.p50' "$1" | sort -g |
	    awk '{v[NR]=$1} END {i=int((NR+1)/2); printf "%.3f", v[i]}'
}

printf 'netprof collect benchmark: ping_count %d (1 s interval), iperf_seconds %d, ping fan-out (the default)\n' \
    $PING_COUNT $IPERF_SECONDS
for n in $SIZES; do
	cleanup
	"$LAB" up --name bench --hosts "$n" --dir "$WORK/lab" >/dev/null
	pairs=$(( n * (n - 1) ))
	ping_dur=$(( PING_COUNT - 1 ))		# ping -c 5 -i 1 lasts 4 s
	ping_rounds=1		# one wave: every source's pings at once
	ping_lb=$(( ping_rounds * ping_dur ))
	iperf_rounds=$(( n % 2 == 0 ? 2 * (n - 1) : 2 * n ))
	echo
	echo "N=$n: $pairs ordered pairs"

	bench_run "ping-$n" --ping-count $PING_COUNT
	p_wall=$WALL p_rss=$RSS
	if [ "$n" -le "$SERIAL_MAX" ]; then
		bench_run "ping-serial-$n" --ping-count $PING_COUNT --serial
		ps_wall=$WALL ps_note="measured"
		per_pair=$(echo "$ps_wall / $pairs" | bc -l)
		med_par=$(ping_median "$WORK/ping-$n.jsonl")
		med_ser=$(ping_median "$WORK/ping-serial-$n.jsonl")
	else
		ps_wall=$(echo "${per_pair:-$ping_dur} * $pairs" | bc -l)
		ps_note="estimated: $pairs x per-pair time at the last measured N"
		med_par=$(ping_median "$WORK/ping-$n.jsonl") med_ser="-"
	fi
	printf '  ping     parallel %7.1f s  serial %7.1f s (%s)\n' "$p_wall" "$ps_wall" "$ps_note"
	printf '           speed-up %.1fx; lower bound %d rounds x %d s = %d s; ratio %.2f\n' \
	    "$(echo "$ps_wall / $p_wall" | bc -l)" $ping_rounds $ping_dur $ping_lb \
	    "$(echo "$p_wall / $ping_lb" | bc -l)"
	printf '           median of per-pair p50 RTT: parallel %s ms, serial %s ms\n' "$med_par" "$med_ser"

	bench_run "iperf-$n" --ping-count $PING_COUNT --iperf --iperf-seconds $IPERF_SECONDS
	i_wall=$WALL i_rss=$RSS
	iperf_lb=$(( iperf_rounds * IPERF_SECONDS + ping_lb ))
	if [ "$n" -le "$SERIAL_MAX" ]; then
		bench_run "iperf-serial-$n" --ping-count $PING_COUNT --iperf \
		    --iperf-seconds $IPERF_SECONDS --serial
		is_wall=$WALL is_note="measured"
		iperf_per_pair=$(echo "($is_wall - $ps_wall) / $pairs" | bc -l)
	else
		is_wall=$(echo "$ps_wall + ${iperf_per_pair:-$IPERF_SECONDS} * $pairs" | bc -l)
		is_note="estimated"
	fi
	printf '  --iperf  parallel %7.1f s  serial %7.1f s (%s)\n' "$i_wall" "$is_wall" "$is_note"
	printf '           speed-up %.1fx; bound %d rounds x %d s + ping %d s = %d s; ratio %.2f\n' \
	    "$(echo "$is_wall / $i_wall" | bc -l)" $iperf_rounds $IPERF_SECONDS $ping_lb \
	    $iperf_lb "$(echo "$i_wall / $iperf_lb" | bc -l)"
	printf '  peak RSS: ping %s MB, --iperf %s MB\n' "$p_rss" "$i_rss"
done
