#!/usr/bin/env bash
# The cost of --otlp: collect and bench on a lab (and exec --repeat, a span
# per command, for the cost of a span), each run with and without
# exporting its trace to a real Jaeger (tests/jaeger/install.sh) back to
# back, ROUNDS times, alternating which goes first; and once more with
# --otlp at a port nothing listens on (the collector down). Prints, as
# ratios to the run without --otlp, the medians of the wall time, of
# netprof's own CPU time and peak RSS, and of what was measured (the ping
# RTTs' median, the bench sweep's latency p50 median): tracing must not
# move any of them. Also the spans exported per run.
#
# usage: tests/perf/trace.sh [HOSTS] [ROUNDS]   (default: 8 3; needs root)
# env:   NETPROF_BIN (default: build/main/netprof, built)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
BIN=$(bench_binary "${NETPROF_BIN:-}") || exit 1
N=${1:-8}
ROUNDS=${2:-3}
REPEAT=1000	# exec: commands per host
JAEGER=$("$SRC/tests/jaeger/install.sh" --path) ||
    { echo "trace.sh: needs Jaeger: tests/jaeger/install.sh" >&2; exit 2; }

bench_lab_setup trace.sh perftr jq node bc curl python3 /usr/bin/time
"$SRC/tests/otela-node/install.sh" >/dev/null
jaeger_stop() {
	[ -z "${JAEGER_PID:-}" ] || { kill "$JAEGER_PID" 2>/dev/null; wait "$JAEGER_PID" 2>/dev/null || true; }
	[ -z "${CLOSED_PID:-}" ] || { kill "$CLOSED_PID" 2>/dev/null; wait "$CLOSED_PID" 2>/dev/null || true; }
	cleanup
	rm -rf "$WORK"
}
trap jaeger_stop EXIT

port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
OTLP_PORT=$(port) QUERY_PORT=$(port) GRPC_PORT=$(port)
# the collector down: a port held bound and not listening, so a connect is
# refused at once and nothing else on the machine can take the port
python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1], flush=True)
time.sleep(86400)' >"$WORK/closed.port" &
CLOSED_PID=$!
until [ -s "$WORK/closed.port" ]; do sleep 0.1; done
CLOSED_PORT=$(cat "$WORK/closed.port")
mkdir -p "$WORK/home"
HOME=$WORK/home JAEGER_OTLP_HTTP=$OTLP_PORT JAEGER_QUERY_HTTP=$QUERY_PORT \
    JAEGER_QUERY_GRPC=$GRPC_PORT "$JAEGER" \
    --config "file:$SRC/tests/jaeger/config.yaml" >"$WORK/jaeger.log" 2>&1 &
JAEGER_PID=$!
for _ in $(seq 60); do
	curl -sf -o /dev/null "http://127.0.0.1:$QUERY_PORT/api/services" && break
	sleep 0.5
done
OTLP=http://127.0.0.1:$OTLP_PORT

"$LAB" up --name perftr --hosts "$N" --dir "$WORK/lab" >/dev/null
jq --arg s "export PATH=$SRC/tests/otela-node/bin:\$PATH; export OTELA_FAKE_API_DELAY_MS=100 OTELA_FAKE_STOP_MS=300" \
    '.remote_setup = $s' "$WORK/lab/machines.json" >"$WORK/bench.json"

# one LABEL MODE CMD ARGS...: netprof CMD with MODE's --otlp (off, on,
# down) into $WORK/LABEL; appends "wall cpu rss measure" to $WORK/MODE-CMD
one() {
	local label=$1 mode=$2 cmd=$3 t0 t1 otlp=() out=$WORK/$1 m
	shift 3
	case $mode in
	on) otlp=(--otlp="$OTLP") ;;
	down) otlp=(--otlp="http://127.0.0.1:$CLOSED_PORT") ;;
	esac
	rm -rf "$out"
	t0=$(now)
	if [ "$cmd" = exec ]; then
		# a span per command: the cost per span, against the SSH path
		OTEL_SERVICE_NAME=$label /usr/bin/time -f '%M %U %S' -o "$out.time" \
		    "$BIN" exec --config "$WORK/lab/machines.json" "${otlp[@]}" \
		    "$@" -- true >"$out.out" 2>"$out.err" || true
		m=$(sed -n 's/.*s: \([0-9.]*\) commands\/s.*/\1/p' "$out.out")
	elif [ "$cmd" = collect ]; then
		OTEL_SERVICE_NAME=$label /usr/bin/time -f '%M %U %S' -o "$out.time" \
		    "$BIN" -q collect --config "$WORK/lab/machines.json" \
		    --output "$out.jsonl" "${otlp[@]}" "$@" 2>"$out.err" || true
		m=$(jq -r 'select(.ok)|.metrics.p50' "$out.jsonl" | sort -g |
		    awk '{v[NR]=$1} END {printf "%.4f", v[int((NR+1)/2)]}')
	else
		OTEL_SERVICE_NAME=$label /usr/bin/time -f '%M %U %S' -o "$out.time" \
		    "$BIN" -q bench --config "$WORK/bench.json" --output "$out" \
		    --run-id "$label" "${otlp[@]}" "$@" 2>"$out.err" || true
		m=$(jq -r 'select(.ok and .kind=="latency")|.metrics.p50_ms' \
		    "$out/measurements.jsonl" | sort -g |
		    awk '{v[NR]=$1} END {printf "%.4f", v[int((NR+1)/2)]}')
	fi
	t1=$(now)
	tail -1 "$out.time" | awk -v w="$(echo "$t1 - $t0" | bc -l)" -v m="$m" \
	    '{printf "%.3f %.3f %.1f %s\n", w, $2+$3, $1/1024, m}' >>"$WORK/$mode-$cmd"
}

# median FILE COLUMN
median() { awk -v c="$2" '{print $c}' "$1" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
ratio() { echo "$1 $2" | awk '{ if ($2 > 0) printf "%.3f", $1 / $2; else print "-" }'; }

report() {
	local cmd=$1 what=$2 mode c
	printf '%s (%d runs each; medians)\n' "$cmd" "$ROUNDS"
	printf '  %-22s %9s %9s %8s %12s\n' "" "wall s" "CPU s" "RSS MB" "$what"
	for mode in off on down; do
		[ -s "$WORK/$mode-$cmd" ] || continue
		printf '  %-22s %9s %9s %8s %12s\n' "$mode" \
		    "$(median "$WORK/$mode-$cmd" 1)" "$(median "$WORK/$mode-$cmd" 2)" \
		    "$(median "$WORK/$mode-$cmd" 3)" "$(median "$WORK/$mode-$cmd" 4)"
	done
	for mode in on down; do
		printf '  ratio %s/off:%*s' "$mode" $((14 - ${#mode})) ""
		for c in 1 2 3 4; do
			printf ' %9s' "$(ratio "$(median "$WORK/$mode-$cmd" $c)" "$(median "$WORK/off-$cmd" $c)")"
		done
		echo
	done
}

spans() {
	python3 "$SRC/tests/jaeger/trace_tree.py" "http://127.0.0.1:$QUERY_PORT" "$1" |
	    sed -n 's/^spans //p'
}

printf 'netprof --otlp cost on a %d-host lab, Jaeger %s on loopback\n' "$N" "${JAEGER##*/jaeger-}"
for r in $(seq "$ROUNDS"); do
	# alternate which mode goes first, so drift does not favour one
	if [ $((r % 2)) = 1 ]; then order="off on down"; else order="down on off"; fi
	for mode in $order; do
		one "collect-$mode-$r" "$mode" collect --ping-count 5 --ping-interval 0.2
	done
	for mode in $order; do
		one "bench-$mode-$r" "$mode" bench --latency-count 20 \
		    --throughput-count 1 --throughput-bytes 1048576
	done
	for mode in $order; do
		one "exec-$mode-$r" "$mode" exec --hosts h1,h2 --repeat "$REPEAT"
	done
done
report collect "ping p50 ms"
printf '  spans per run: %s\n' "$(spans collect-on-1)"
report bench "latency ms"
printf '  spans per run: %s\n' "$(spans bench-on-1)"
report exec "commands/s"
printf '  spans per run: %s; netprof CPU per span: %s ms (on - off, over the spans)\n' \
    "$(spans exec-on-1)" "$(echo "$(median "$WORK/on-exec" 2) $(median "$WORK/off-exec" 2) $(spans exec-on-1)" |
    awk '{ printf "%.4f", ($3 > 0 ? ($1 - $2) * 1000 / $3 : 0) }')"
