#!/usr/bin/env bash
# Sweeps against their physical bound at 8, 32 and 64 hosts (needs root;
# the big labs take a few minutes of the whole machine: run them when it
# is otherwise quiet). For each N, on one lab:
#   ping       collect with fan-out (ping_count 5 at 1 s: one probe lasts
#              4 s), fping and ping-per-target tools: wall / 4 s (target
#              <= 1.3), and the sweep's span from the records (first pings
#              started .. last pair recorded), the rest being SSH sessions;
#              the handshakes' share apart: when the last source's pings
#              started (all sessions up, from netprof's start) and the
#              longest one source's own sweep took; failed pairs;
#              at N = 32 also --fanout off (one channel per probe, the
#              former default) for comparison
#   duplex     collect --iperf --iperf-mode duplex (iperf_seconds 5, the
#              inventory default): the iperf3 phase's span / ((N-1) x 5 s)
#              (target <= 1.2). Every host's egress is limited with tbf to
#              20 Mbit/s (a lab of full-duplex 20 Mbit/s links: unlimited,
#              N flows on one machine's cores would measure the CPU), and
#              h1's pairs' Mbps are compared with an exclusive run over
#              h1..h4 (target: within 10%)
#   resources  peak RSS (target <= 32 MB) and the most file descriptors
#              netprof held (target <= N + 64), sampled every 0.1 s
#   CPU        every lab host's sshd, pings and iperf3 share this
#              machine's cores: for each run, how busy the cores were,
#              the CPU-seconds the machine used and netprof's own; and
#              `check` alone (N SSH sessions, one channel each) with the
#              same figures: the handshakes' cost here, where on real
#              hosts each sshd has cores of its own
#
# usage: tests/perf/scale.sh [SIZES...]   (default: 8 32 64)
# env:   NETPROF_BIN (default: build/main/netprof, built), BENCH_SUBNET
#        (the lab's 198.18.K.0/24, default 0), SCALE_PING_ONLY=1 (the
#        sessions and the fping sweep alone: no tbf, no iperf3, for 64 and
#        128 hosts)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
BIN=$(bench_binary "${NETPROF_BIN:-}") || exit 1
LAB=$SRC/tests/lab/lab.sh
WORK=$(mktemp -d "${TMPDIR:-/tmp}/netprof-scale.XXXXXX")
SIZES=${*:-8 32 64}
PING_COUNT=5
PROBE_S=4		# ping -c 5 -i 1: the last packet leaves at 4 s
IPERF_S=5
RATE=20mbit

[ "$(id -u)" -eq 0 ] || { echo "scale.sh: needs root (the lab)" >&2; exit 2; }
for c in jq ping fping iperf3 tc /usr/bin/time bc; do
	command -v "$c" >/dev/null || { echo "scale.sh: needs $c" >&2; exit 2; }
done
cleanup() { "$LAB" down --name scale --dir "$WORK/lab" >/dev/null 2>&1 || true; }
trap 'cleanup; rm -rf "$WORK"' EXIT


# The records' ISO-8601 times ("2026-11-30T19:17:32.499+00:00") in seconds.
JQ_T='def t: (.[0:19] + "Z" | fromdateiso8601) + (.[20:23] | tonumber) / 1000;'

# span FILE KIND: last ended_at - first started_at of KIND records (s).
span() {
	jq -s -r --arg k "$2" "$JQ_T"' [.[]|select(.kind==$k)] |
	    ((map(.ended_at|t)|max) - (map(.started_at|t)|min))' "$1"
}

# sessions_up FILE T0: seconds from T0 (netprof started) until the last
# source's pings started (a fan-out's started_at is its script's first
# line): the SSH handshakes' share of the wall, measured
sessions_up() {
	jq -s -r --argjson t0 "$2" "$JQ_T"' [.[]|select(.kind=="ping")|
	    .started_at|t] | max - $t0' "$1"
}

# source_span FILE: the longest one source's pings took (its first start to
# its last pair recorded): the sweep itself, without the handshakes' stagger
source_span() {
	jq -s -r "$JQ_T"' [.[]|select(.kind=="ping")] | group_by(.source) |
	    map((map(.ended_at|t)|max) - (map(.started_at|t)|min)) | max' "$1"
}

# mean_mbps FILE SOURCE: mean Mbps of SOURCE's ok iperf3 pairs.
mean_mbps() {
	jq -s -r --arg s "$2" '[.[]|select(.kind=="iperf3" and .ok and
	    .source==$s)|.metrics.mbps] | (add/length)' "$1"
}

if [ "${SCALE_PING_ONLY:-0}" = 1 ]; then
	printf 'netprof scale benchmark: ping_count %d (one probe %d s), sessions and the fping sweep alone\n' \
	    $PING_COUNT $PROBE_S
else
	printf 'netprof scale benchmark: ping_count %d (one probe %d s), iperf_seconds %d, every host limited to %s (tbf)\n' \
	    $PING_COUNT $PROBE_S $IPERF_S $RATE
fi
for n in $SIZES; do
	cleanup
	t0=$(date +%s.%N)
	"$LAB" up --name scale --hosts "$n" --dir "$WORK/lab" \
	    --subnet "${BENCH_SUBNET:-0}" >/dev/null
	for (( i = 1; i <= n && ${SCALE_PING_ONLY:-0} == 0; i++ )); do
		"$LAB" run --name scale h$i -- tc qdisc replace dev eth0 root \
		    tbf rate $RATE burst 32kb latency 50ms
	done
	printf '\nN=%d: %d ordered pairs (lab up in %.0f s); load before: %s, %d cores\n' \
	    "$n" $(( n * (n - 1) )) "$(echo "$(date +%s.%N) - $t0" | bc -l)" \
	    "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"

	c0=$(cpu_jiffies)
	t0=$(now)
	/usr/bin/time -f '%U %S' -o "$WORK/check-$n.cpu" "$BIN" -q check \
	    --config "$WORK/lab/machines.json" >/dev/null || true
	wall=$(echo "$(now) - $t0" | bc -l)
	read -r busy cpu < <(cpu_between "$c0" "$(cpu_jiffies)")
	own=$(awk 'END {printf "%.2f", $1+$2}' "$WORK/check-$n.cpu")
	printf '  sessions alone (check)  wall %5.1f s  cores busy %s%%  machine %s CPU-s, netprof %s: at least %.1f s on %d cores\n' \
	    "$wall" "$busy" "$cpu" "$own" "$(echo "$cpu / $(nproc)" | bc -l)" "$(nproc)"

	# one ping per target is N(N-1) processes on this one machine: at 64
	# hosts that is 4,032 at once, more than the shared cores can start
	# within a probe's timeout, so only up to 32
	tools="fping ping"
	[ "$n" -le 32 ] && [ "${SCALE_PING_ONLY:-0}" = 0 ] || tools=fping
	for tool in $tools; do
		t0=$(date +%s.%N)
		bench_run "ping-$tool-$n" --ping-count $PING_COUNT --ping-tool $tool
		sp=$(span "$WORK/ping-$tool-$n.jsonl" ping)
		up=$(sessions_up "$WORK/ping-$tool-$n.jsonl" "$t0")
		lost=$(jq -s '[.[]|select(.ok|not)]|length' "$WORK/ping-$tool-$n.jsonl")
		ss=$(source_span "$WORK/ping-$tool-$n.jsonl")
		printf '  ping fan-out (%-5s)  wall %6.1f s  ratio %.2f   sweep span %.1f s (%.2f)  all sessions up by %.1f s  longest source %.1f s (%.2f)  failed pairs %s  RSS %s MB  fds %s\n' \
		    $tool "$WALL" "$(echo "$WALL / $PROBE_S" | bc -l)" "$sp" \
		    "$(echo "$sp / $PROBE_S" | bc -l)" "$up" "$ss" \
		    "$(echo "$ss / $PROBE_S" | bc -l)" "$lost" "$RSS" "$FDS"
		printf '                        cores busy %s%%  machine %s CPU-s, netprof %s\n' \
		    "$BUSY" "$CPU_S" "$OWN_S"
	done
	if [ "${SCALE_PING_ONLY:-0}" = 1 ]; then
		printf '  per host: RSS %s MB / %d, fds %s / %d; check CPU %s CPU-s / %d hosts (one handshake and a channel)\n' \
		    "$RSS" "$n" "$FDS" "$n" "$cpu" "$n"
		continue
	fi
	if [ "$n" = 32 ]; then
		bench_run "ping-off-$n" --ping-count $PING_COUNT --fanout off
		printf '  ping --fanout off     wall %6.1f s  ratio %.2f   (one channel per probe, 8 per host)\n' \
		    "$WALL" "$(echo "$WALL / $PROBE_S" | bc -l)"
	fi

	bench_run "duplex-$n" --ping-count 1 --iperf --iperf-mode duplex \
	    --iperf-seconds $IPERF_S
	sp=$(span "$WORK/duplex-$n.jsonl" iperf3)
	bound=$(( (n - 1) * IPERF_S ))
	d_h1=$(mean_mbps "$WORK/duplex-$n.jsonl" h1)
	d_all=$(jq -s -r '[.[]|select(.kind=="iperf3" and .ok)|.metrics.mbps]|sort|.[length/2|floor]' \
	    "$WORK/duplex-$n.jsonl")
	printf '  iperf3 duplex         wall %6.1f s  iperf3 span %.1f s / bound %d s = %.2f  RSS %s MB  fds %s\n' \
	    "$WALL" "$sp" $bound "$(echo "$sp / $bound" | bc -l)" "$RSS" "$FDS"
	printf '                        cores busy %s%%  machine %s CPU-s, netprof %s\n' \
	    "$BUSY" "$CPU_S" "$OWN_S"
	hosts=$(seq -s, -f 'h%g' 1 $(( n < 4 ? n : 4 )))
	bench_run "exclusive-$n" --ping-count 1 --iperf --iperf-seconds $IPERF_S \
	    --hosts "$hosts"
	e_h1=$(mean_mbps "$WORK/exclusive-$n.jsonl" h1)
	printf '  h1 (tbf %s) per-pair Mbps: duplex %.2f, exclusive %.2f (h1..h4): %+.1f%%; median pair in duplex %.2f Mbps\n' \
	    $RATE "$d_h1" "$e_h1" "$(echo "($d_h1 - $e_h1) / $e_h1 * 100" | bc -l)" "$d_all"
done
