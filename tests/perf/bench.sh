#!/usr/bin/env bash
# Benchmark of netprof bench on 8- and 16-host labs with the stand-in otela
# node: bench against bench --serial (the upstream order: every phase host
# by host, one probe at a time) in the same run. Prints the wall time of
# each phase for both, the speed-up, the sweep against its schedule's lower
# bound (throughput rounds x the median throughput probe, plus the light
# probes each node must take part in, divided by the per-node limit) and
# netprof's peak RSS.
#
# usage: tests/perf/bench.sh [SIZES...]   (default: 8 16; needs root)
# env:   NETPROF_BIN (default: build/main/netprof, built),
#        BENCH_SERIAL_MAX (default 8: --serial runs only up to this many
#        hosts; beyond, its phases are scaled from the largest measured
#        size: host phases by N, the sweep by the number of pairs),
#        BENCH_ARGS (default: --latency-count 20 --throughput-count 3
#        --throughput-bytes 1048576; set and empty: bench's own defaults),
#        BENCH_BASE_BIN (a previous netprof, e.g. another commit's build:
#        its bench runs too, on the same lab right after this one's with
#        the same arguments; each phase is printed beside this one's, with
#        the ratio of the walls and the seconds from the last record to
#        the exit),
#        BENCH_RATE (e.g. 50mbit: every lab host's egress shaped to it, so
#        probes wait on each host's own link rather than on the shared CPU),
#        BENCH_WAN (1: a lab with distance instead of the flat one, as
#        tests/perf/wan.sh brings up: the hosts in 3 sites one-way 5, 15
#        and 30 ms from the core, this machine 10 ms from it),
#        BENCH_PAR_ARGS (more arguments for the parallel run only, e.g.
#        --throughput-mode duplex: its bound counts N-1 throughput rounds),
#        BENCH_UPSTREAM (a checkout of OpenTela's contrib/network-profiler:
#        its `bench` also runs on the same lab, with the same counts and
#        bytes, over OpenSSH; python3 with PyYAML),
#        OTELA_BIN (an otela to run on the hosts instead of the stand-in)
#
# All lab hosts share this machine's cores. The script prints how busy the
# cores were during each run and the ceiling that puts on the speed-up: the
# serial run's CPU-seconds spread over every core at 100% is the shortest
# any schedule could take here.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
BIN=$(bench_binary "${NETPROF_BIN:-}") || exit 1
SERIAL_MAX=${BENCH_SERIAL_MAX:-8}
SIZES=${*:-8 16}
read -r -a ARGS <<<"${BENCH_ARGS---latency-count 20 --throughput-count 3 --throughput-bytes 1048576}"
MAX_PROBES=2
PHASES="init discover configure push start converge punch path sweep baseline teardown"

tools=(jq node bc /usr/bin/time)
[ "${BENCH_WAN:-0}" = 1 ] && tools+=(wirefilter vde_switch)
bench_lab_setup bench.sh benchb "${tools[@]}"
"$SRC/tests/otela-node/install.sh" >/dev/null

read -r -a PAR_ARGS <<<"${BENCH_PAR_ARGS:-}"

# run LABEL ARGS...: bench (RUN_BIN, else BIN) with ARGS into $WORK/LABEL;
# sets WALL, RSS (MB), BUSY (share of all cores busy, %), CPU_S
# (CPU-seconds used on the machine), OWN_S (netprof's own CPU-seconds) and
# TAIL (seconds from the last record's end to netprof's exit).
run() {
	local label=$1 t0 t1 c0 last
	shift
	c0=$(cpu_jiffies)
	t0=$(date +%s.%N)
	/usr/bin/time -f '%M %U %S' -o "$WORK/$label.rss" "${RUN_BIN:-$BIN}" -q bench \
	    --config "$WORK/inv.json" --output "$WORK/$label" --run-id "$label" \
	    "${ARGS[@]}" "$@" || echo "  warning: $label exited $?" >&2
	t1=$(date +%s.%N)
	read -r BUSY CPU_S < <(cpu_between "$c0" "$(cpu_jiffies)")
	WALL=$(echo "$t1 - $t0" | bc -l)
	last=$(jq -s 'map((.ended_at[0:19]+"Z"|fromdateiso8601) + (.ended_at[20:23]|tonumber)/1000)|max // 0' \
	    "$WORK/$label/measurements.jsonl" 2>/dev/null || echo 0)
	TAIL=$(echo "$t1 - $last" | bc -l)
	read -r RSS OWN_S < <(tail -1 "$WORK/$label.rss" | awk '{printf "%.1f %.2f\n", $1/1024, $2+$3}')
	jq -r 'select(.ok|not)|"  warning: \(.source)->\(.target) \(.kind): \(.error)"' \
	    "$WORK/$label/measurements.jsonl" | head -3 >&2 || true	# head's early exit is no failure
}

phase() {	# LABEL PHASE: seconds
	jq -r ".phases.${2}_s // 0" "$WORK/$1/run.json"
}

# Seconds between started_at and ended_at of each record of FILTER.
durations() {
	jq -r "select($2)|((.ended_at[0:19]+\"Z\"|fromdateiso8601) + (.ended_at[20:23]|tonumber)/1000)
	    - ((.started_at[0:19]+\"Z\"|fromdateiso8601) + (.started_at[20:23]|tonumber)/1000)" "$1"
}

median() { sort -g | awk '{v[NR]=$1} END {printf "%.3f", NR ? v[int((NR+1)/2)] : 0}'; }

# The sweep's lower bound for run LABEL: its throughput rounds (the
# records' rounds: exclusive 2(N-1), 2N for odd N; duplex N-1; auto N-1
# where every pair runs both ways) x the median throughput probe, plus the
# most any node spends in light probes (libp2p_ping, latency: as source or
# target) over the per-node limit.
lower_bound() {
	local rec=$WORK/$1/measurements.jsonl rounds tp light
	rounds=$(jq -r 'select(.kind=="throughput")|.round' "$rec" | sort -u | wc -l)
	tp=$(durations "$rec" '.kind=="throughput"' | median)
	light=$(jq -r 'select(.kind!="throughput")|[.source,.target,
	    ((.ended_at[0:19]+"Z"|fromdateiso8601) + (.ended_at[20:23]|tonumber)/1000)
	    - ((.started_at[0:19]+"Z"|fromdateiso8601) + (.started_at[20:23]|tonumber)/1000)]|@tsv' "$rec" |
	    awk -F'\t' -v lim=$MAX_PROBES '{t[$1]+=$3; t[$2]+=$3} END {for (h in t) if (t[h] > m) m = t[h]; printf "%.3f", m/lim}')
	LB_TEXT="$rounds rounds x ${tp} s + light ${light} s"
	LB=$(echo "$rounds * $tp + $light" | bc -l)
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

# upstream LABEL: OpenTela's own profiler (BENCH_UPSTREAM) on the lab, as
# its README runs it, over OpenSSH with the lab's configuration; sets
# U_WALL and U_PHASES (its run.json's phases).
upstream() {
	local label=$1 t0 cfg=$WORK/upstream.json
	local lc=20 tc=3 tb=10485760 i
	for (( i = 0; i < ${#ARGS[@]}; i++ )); do
		case ${ARGS[$i]} in
		--latency-count) lc=${ARGS[$((i + 1))]} ;;
		--throughput-count) tc=${ARGS[$((i + 1))]} ;;
		--throughput-bytes) tb=${ARGS[$((i + 1))]} ;;
		esac
	done
	jq --arg f "$WORK/lab/ssh_config.openssh" --arg p "$bindir" \
	    '{remote_command: ["ssh", "-F", $f, "{host}", ("export PATH=" + $p + ":$PATH; {command}")],
	      machines: [.machines[] | {name, address, rcc_host: .name}]}' \
	    "$WORK/lab/machines.json" >"$cfg"
	t0=$(date +%s.%N)
	(cd "$BENCH_UPSTREAM" && python3 -m network_profiler bench --config "$cfg" \
	    --output "$WORK/$label" --run-id "$label" --latency-count "$lc" \
	    --throughput-count "$tc" --throughput-bytes "$tb") >"$WORK/$label.log" 2>&1 ||
	    echo "  warning: upstream exited $?: $(tail -1 "$WORK/$label.log")" >&2
	U_WALL=$(echo "$(date +%s.%N) - $t0" | bc -l)
	U_PHASES=$(jq -r '.phases|to_entries|map("\(.key) \(.value)")|join(", ")' "$WORK/$label/run.json" 2>/dev/null || echo "?")
}

printf 'netprof bench benchmark: %s, per-node light probes %d, host egress %s, %s\n' \
    "${ARGS[*]:-the defaults}${PAR_ARGS[*]:+ (bench alone: ${PAR_ARGS[*]})}" $MAX_PROBES "${BENCH_RATE:-unshaped}" \
    "$([ "${BENCH_WAN:-0}" = 1 ] && echo "3 sites 5/15/30 ms from the core, home 10 ms" || echo "a flat lab")"
echo "load before: $(uptime | sed 's/.*load average: //')"
for n in $SIZES; do
	cleanup
	shape=()
	if [ -n "${BENCH_RATE:-}" ]; then
		for i in $(seq 1 "$n"); do shape+=(--rate "h$i=$BENCH_RATE"); done
	fi
	sites=()
	if [ "${BENCH_WAN:-0}" = 1 ]; then
		sites=(--site "a=$(( (n + 2) / 3 )),delay=5" --site "b=$(( (n + 1) / 3 )),delay=15"
		    --site "c=$(( n / 3 )),delay=30" --home delay=10)
	fi
	"$LAB" up --name benchb --hosts "$n" --dir "$WORK/lab" "${shape[@]}" "${sites[@]}" >/dev/null
	bindir=$SRC/tests/otela-node/bin
	if [ -n "${OTELA_BIN:-}" ]; then
		# a real node dials its bootstrap list and more: it runs only
		# where nothing beyond the lab is reachable
		for i in $(seq 1 "$n"); do
			[ -z "$(ip -n "np-benchb-h$i" route show default)" ] ||
			    { echo "bench.sh: lab host h$i has a default route" >&2; exit 1; }
		done
		# the lab user runs it: $WORK (mktemp's 0700) is crossed, not read
		bindir=$WORK/otela-bin
		chmod 711 "$WORK"
		mkdir -p "$bindir" && chmod 755 "$bindir" &&
		    ln -sf "$OTELA_BIN" "$bindir/otela"
	fi
	jq --arg p "$bindir" '.remote_setup = "export PATH=\($p):$PATH"' \
	    "$WORK/lab/machines.json" >"$WORK/inv.json"
	pairs=$(( n * (n - 1) ))
	echo
	echo "N=$n: $pairs ordered pairs x 3 kinds"
	echo "  load before bench: $(load)"
	run "par-$n" "${PAR_ARGS[@]}"
	p_wall=$WALL p_rss=$RSS p_busy=$BUSY p_own=$OWN_S p_tail=$TAIL
	if [ -n "${BENCH_BASE_BIN:-}" ]; then
		echo "  load before the previous binary: $(load)"
		RUN_BIN=$BENCH_BASE_BIN run "base-$n" "${PAR_ARGS[@]}"
		printf '  %-10s %9s %9s\n' phase bench previous
		for p in $PHASES; do
			printf '  %-10s %8.2fs %8.2fs\n' "$p" "$(phase "par-$n" "$p")" "$(phase "base-$n" "$p")"
		done
		printf '  %-10s %8.2fs %8.2fs\n' wall "$p_wall" "$WALL"
		# the reach checks run beside the convergence and the punch
		printf '  %-10s %8.2fs %8.2fs (converge + punch + path)\n' c+p+path \
		    "$(echo "$(phase "par-$n" converge) + $(phase "par-$n" punch) + $(phase "par-$n" path)" | bc -l)" \
		    "$(echo "$(phase "base-$n" converge) + $(phase "base-$n" punch) + $(phase "base-$n" path)" | bc -l)"
		printf '  %-10s %8.2fs %8.2fs\n' tail "$p_tail" "$TAIL"
		printf '  against the previous binary: %.2fx faster (its wall / this one'"'"'s)\n' \
		    "$(echo "$WALL / $p_wall" | bc -l)"
	fi
	if [ "$n" -le "$SERIAL_MAX" ]; then
		echo "  load before --serial: $(load)"
		run "ser-$n" --serial
		s_wall=$WALL s_note="measured" s_n=$n s_label="ser-$n"
		s_busy=$BUSY s_cpu=$CPU_S
	elif [ -n "${s_n:-}" ]; then
		s_note="estimated from N=$s_n"
		s_wall=0 s_busy="?"
	else
		# Nothing to estimate it from: a size above BENCH_SERIAL_MAX alone.
		s_note="not measured (N > BENCH_SERIAL_MAX=$SERIAL_MAX)"
		s_wall=0 s_busy="?"
	fi
	printf '  %-10s %9s %9s\n' phase bench --serial
	for p in $PHASES; do
		a=$(phase "par-$n" "$p")
		if [ -z "${s_n:-}" ]; then
			printf '  %-10s %8.2fs %9s\n' "$p" "$a" -
			continue
		elif [ "$s_note" = measured ]; then
			b=$(phase "ser-$n" "$p")
		elif [ "$p" = sweep ]; then
			b=$(echo "$(phase "$s_label" "$p") * $pairs / ($s_n * ($s_n - 1))" | bc -l)
			s_wall=$(echo "$s_wall + $b" | bc -l)
		else
			b=$(echo "$(phase "$s_label" "$p") * $n / $s_n" | bc -l)
			s_wall=$(echo "$s_wall + $b" | bc -l)
		fi
		printf '  %-10s %8.2fs %8.2fs\n' "$p" "$a" "$b"
	done
	printf '  %-10s %8.2fs %8.2fs (%s)\n' wall "$p_wall" "$s_wall" "$s_note"
	[ -n "${s_n:-}" ] && printf '  speed-up %.1fx\n' "$(echo "$s_wall / $p_wall" | bc -l)"
	printf '  cores busy: bench %s%%, --serial %s%% (of %d); netprof itself %s CPU-s\n' \
	    "$p_busy" "${s_busy:-?}" "$(nproc)" "$p_own"
	if [ "$s_note" = measured ]; then
		printf '  CPU ceiling here: --serial used %s CPU-s; had bench needed as many, %d cores at 100%% allow no less than %.2f s, a speed-up of %.1fx\n' \
		    "$s_cpu" "$(nproc)" "$(echo "$s_cpu / $(nproc)" | bc -l)" \
		    "$(echo "$s_wall / ($s_cpu / $(nproc))" | bc -l)"
	fi
	lower_bound "par-$n"
	printf '  sweep %.2f s; lower bound %s = %.2f s; ratio %.2f\n' \
	    "$(phase "par-$n" sweep)" "$LB_TEXT" "$LB" \
	    "$(echo "$(phase "par-$n" sweep) / $LB" | bc -l)"
	printf '  median probe: libp2p_ping %s s, latency %s s, throughput %s s\n' \
	    "$(durations "$WORK/par-$n/measurements.jsonl" '.kind=="libp2p_ping"' | median)" \
	    "$(durations "$WORK/par-$n/measurements.jsonl" '.kind=="latency"' | median)" \
	    "$(durations "$WORK/par-$n/measurements.jsonl" '.kind=="throughput"' | median)"
	printf '  peak RSS: bench %s MB\n' "$p_rss"
	printf '  throughput both ways at once: %s of %s pairs\n' \
	    "$(jq '.config.throughput_both_ways // []|length' "$WORK/par-$n/run.json")" $(( pairs / 2 ))
	printf '  the nodes'"'"' stops: %s\n' "$(jq -r '[.machines[].phase_times.teardown // empty|.[1] - .[0]]|
	        "\(length) hosts, \(min // 0|.*100|round/100)-\(max // 0|.*100|round/100) s each"' "$WORK/par-$n/run.json")"
	if [ -n "${BENCH_UPSTREAM:-}" ]; then
		echo "  load before upstream's profiler: $(load)"
		upstream "up-$n"
		printf '  upstream profiler: %.2f s (%s); bench %.1fx faster\n' \
		    "$U_WALL" "$U_PHASES" "$(echo "$U_WALL / $p_wall" | bc -l)"
	fi
done
echo "load after: $(uptime | sed 's/.*load average: //')"
