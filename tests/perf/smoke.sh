#!/usr/bin/env bash
# Benchmark of the upstream profiler's own end-to-end smoke scenario: two
# otela nodes on one host's 127.0.0.1 (ports 29090/29091 and 29100/29101),
# --latency-count 3, one 64 KiB transfer, as its test_bench_smoke.py runs
# it. Prints netprof bench's wall time, each phase, and the time after
# the nodes have started (the phases init to start left out: what the
# target bounds, the stop's wait must not be on the clock); with
# BENCH_UPSTREAM, OpenTela's own profiler on the same host in the same
# run, and the ratio. After each run it says what of the run is left on
# the host (nodes, ports) and waits for it to go, so that the next run
# does not meet it.
#
# The host is one lab host: it has no route beyond the lab, so a real
# node's dials of its built-in bootstrap peers fail there at once.
#
# usage: tests/perf/smoke.sh [ROUNDS]   (default 1; needs root)
# env:   NETPROF_BIN (default: build/main/netprof, built),
#        OTELA_BIN (an otela to run instead of the stand-in),
#        BENCH_UPSTREAM (a checkout of OpenTela's contrib/network-profiler;
#        python3 with PyYAML)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
BIN=$(bench_binary "${NETPROF_BIN:-}") || exit 1
ROUNDS=${1:-1}
ARGS=(--latency-count 3 --throughput-count 1 --throughput-bytes 65536)
PHASES="init discover configure push start converge punch sweep teardown"

bench_lab_setup smoke.sh smoke jq node bc
"$SRC/tests/otela-node/install.sh" >/dev/null
"$LAB" up --name smoke --hosts 1 --dir "$WORK/lab" >/dev/null
[ -z "$(ip -n np-smoke-h1 route show default)" ] ||
    { echo "smoke.sh: the lab host has a default route" >&2; exit 1; }

bindir=$SRC/tests/otela-node/bin
if [ -n "${OTELA_BIN:-}" ]; then
	bindir=$WORK/otela-bin	# the lab user runs it: $WORK is crossed
	chmod 711 "$WORK"
	mkdir -p "$bindir" && chmod 755 "$bindir" && ln -sf "$OTELA_BIN" "$bindir/otela"
fi
h1=$(jq -r '.machines[0].address' "$WORK/lab/machines.json")
jq --arg p "$bindir" --arg h "$h1" '.remote_setup = "export PATH=\($p):$PATH" |
    .machines = [
      {name: "n1", address: "127.0.0.1", ssh_host: $h, http_port: 29090, libp2p_port: 29091},
      {name: "n2", address: "127.0.0.1", ssh_host: $h, http_port: 29100, libp2p_port: 29101}]' \
    "$WORK/lab/machines.json" >"$WORK/inv.json"

# What of a run is still on the host: its nodes, their ports.
held() {
	local p
	for p in $(ip netns pids np-smoke-h1); do	# the host's own processes
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q otela &&
		    printf '%s ' "$p"
	done
	ip netns exec np-smoke-h1 ss -Htln '( sport = :29090 or sport = :29091 or sport = :29100 or sport = :29101 )' | wc -l
}
# Nothing of a run may be left on the host: said when something is, and
# waited for (up to 30 s) so that the next run starts on a free host.
left_over() {
	local h t0
	h=$(held)
	[ "$h" = 0 ] && return
	echo "  left over after $1: processes ${h% *}, ports listening ${h##* }"
	t0=$(now)
	for _ in $(seq 1 300); do
		[ "$(held)" = 0 ] && break
		sleep 0.1
	done
	printf '  gone %.1f s later\n' "$(echo "$(now) - $t0" | bc -l)"
}

upstream() {	# LABEL: sets U_WALL
	local cfg=$WORK/upstream.json t0
	jq --arg f "$WORK/lab/ssh_config.openssh" --arg p "$bindir" \
	    '{remote_command: ["ssh", "-F", $f, "{host}", ("export PATH=" + $p + ":$PATH; {command}")],
	      machines: [
	        {name: "n1", address: "127.0.0.1", rcc_host: "h1", http_port: 29090, libp2p_port: 29091},
	        {name: "n2", address: "127.0.0.1", rcc_host: "h1", http_port: 29100, libp2p_port: 29101}]}' \
	    "$WORK/lab/machines.json" >"$cfg"
	t0=$(now)
	(cd "$BENCH_UPSTREAM" && python3 -m network_profiler bench --config "$cfg" \
	    --output "$WORK/$1" --run-id "$1" "${ARGS[@]}") >"$WORK/$1.log" 2>&1 ||
	    echo "  warning: upstream exited $?: $(tail -1 "$WORK/$1.log")" >&2
	U_WALL=$(echo "$(now) - $t0" | bc -l)
}

printf 'smoke scenario: 2 nodes on one host'"'"'s 127.0.0.1, %s, node: %s\n' \
    "${ARGS[*]}" "${OTELA_BIN:-the stand-in}"
for r in $(seq 1 "$ROUNDS"); do
	t0=$(now)
	"$BIN" -q bench --config "$WORK/inv.json" --output "$WORK/np-$r" --run-id "np-$r" \
	    "${ARGS[@]}" || echo "  warning: netprof exited $?" >&2
	wall=$(echo "$(now) - $t0" | bc -l)
	left_over "netprof's run $r"
	line=""
	for p in $PHASES; do
		line="$line $p $(jq -r ".phases.${p}_s // 0" "$WORK/np-$r/run.json")"
	done
	# the phases up to the nodes' start, what the scenario cannot skip
	start=$(jq -r '[.phases | (.init_s, .discover_s, .configure_s, .push_s, .start_s) // 0] | add' \
	    "$WORK/np-$r/run.json")
	ok=$(jq -s 'map(select(.ok)) | length' "$WORK/np-$r/measurements.jsonl")
	printf 'round %d: netprof %.2f s (%s records ok;%s); after the nodes'"'"' start %.2f s\n' \
	    "$r" "$wall" "$ok" "$line" "$(echo "$wall - $start" | bc -l)"
	if [ -n "${BENCH_UPSTREAM:-}" ]; then
		upstream "up-$r"
		left_over "upstream's run $r"
		printf '         upstream %.2f s; netprof %.2fx faster\n' "$U_WALL" \
		    "$(echo "$U_WALL / $wall" | bc -l)"
	fi
done
