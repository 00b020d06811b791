#!/usr/bin/env bash
# The files netprof writes, byte for byte as tests/fixtures/golden/ holds
# them (written by an earlier netprof, so a change that alters a record,
# run.json, a metrics file or the heatmap shows here): collect's records in
# every mode (fan-out, channels, --serial; exclusive and duplex iperf3; a
# host that answers nothing), the metrics of a collect --every sweep,
# bench's records (with --baseline), run.json and metrics, and the
# heatmap's page, terminal table and metrics of each run. ping, iperf3 and
# otela are stand-ins with fixed output (tests/integration/golden/) on
# local machines, so only what a run cannot fix is masked: times and
# durations, and bench's run id, PIDs and ports; and the page's stylesheet
# and script, which are page.css and page.js as they are (the browser tests
# are theirs). GOLDEN_WRITE=1 writes the fixtures instead of comparing.
. "$(dirname "$0")/lib.sh"
require_cmd python3 curl timeout

export GOLDEN_BIN=$NETPROF_SRC/tests/integration/golden
want=$NETPROF_FIXTURES/golden
dir=$NETPROF_TEST_TMP/golden
rm -rf "$dir"
mkdir -p "$dir/state" "$dir/got"
[ "${GOLDEN_KEEP:-0}" = 1 ] || at_exit "rm -rf '$dir'"
export GOLDEN_STATE=$dir/state
printf '127.0.0.1 a\n127.0.0.2 b\n127.0.0.3 c\n127.0.0.9 d\n' >"$GOLDEN_STATE/hosts"
printf '%s\n' "a 12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz13" \
    "b 12D3KooWDnZnC1cp9rfnCFGZEmdE7frZs2HZpgkpmdGhhPS3f3Wk" \
    "c 12D3KooWD7H1mwxrpMEfQrMd5v8V15Y7n2bdQw41qxWdsgYpK7oU" \
    >"$GOLDEN_STATE/peers"

# machine NAME ADDRESS [MORE]: an inventory entry whose commands see the
# stand-ins first on PATH and know which machine they run for
machine() {
	printf '{"name": "%s", "address": "%s", "remote_setup": "export GOLDEN_HOST=%s PATH=\\"$GOLDEN_BIN:$PATH\\""%s}' \
	    "$1" "$2" "$1" "${3:-}"
}
inv=$dir/machines.json
cat >"$inv" <<JSON
{"transport": "local", "ping_count": 2, "ping_interval": 0.2,
 "iperf_seconds": 1, "iperf_port": 5201,
 "machines": [$(machine a 127.0.0.1), $(machine b 127.0.0.2),
              $(machine c 127.0.0.3), $(machine d 127.0.0.9)]}
JSON

# mask FILE: times, durations and what bench picks anew each run masked
mask() {
	sed -E -e '/^<style>$/,/^<\/style>$/d' -e '/^<script>$/,/^<\/script>$/d' \
	    -e 's/"(timestamp|started_at|ended_at)": "[^"]*"/"\1": "T"/g' \
	    -e "s/${RUN_ID:-no-run-id}/RUN/g" \
	    -e 's/"(pid|pid_start|http_port|elapsed_s|connect_ms|[a-z]+_s)": [0-9.e+-]+/"\1": N/g' \
	    -e '/"phase_times": \{/,/^      \}/s/^( +)[0-9.e+-]+(,?)$/\1N\2/' \
	    -e 's/^(netprof_(probe|sweep)_timestamp_seconds[^ ]*|netprof_sweep_duration_seconds) .*/\1 N/' \
	    -e 's/"t":\[[^]]*\]/"t":[T]/g' -e 's/"t0":[0-9.e+-]+/"t0":T/g' \
	    -e 's/^<svg class=timeline .*/TIMELINE/' -e 's/ written [0-9TZ:.-]+/ written T/' \
	    -e 's/^(Timeline of run RUN|  [0-9]+ rounds of the sweep).*/\1/' \
	    -e 's/^(  [a-z]+ +)[0-9.]+ s +[0-9.]+ %.*/\1D/' \
	    -e 's/^(<p class=summary>)[0-9.]+ s \([0-9.]+ min\)/\1D/' \
	    -e 's/(netprof_build_info\{version=)"[^"]*"/\1"V"/' "$1"
}

# keep NAME FILE [sort]: FILE masked (its lines sorted where the order is
# the order probes ended in) as got/NAME
keep() {
	if [ "${3:-}" = sort ]; then
		mask "$2" | LC_ALL=C sort >"$dir/got/$1"
	else
		mask "$2" >"$dir/got/$1"
	fi
}

run() {
	OUT=$("$NETPROF_BIN" -q "$@") || fail "netprof $*: exit $?"
}

# collect in each mode, and its plans; d answers nothing
c=$dir/collect
mkdir -p "$c"
for mode in "--iperf" "--iperf --iperf-mode duplex --fanout off" "--iperf --serial" "--rounds" "--explain --ping-tool ping"; do
	# shellcheck disable=SC2086
	run plan --config "$inv" $mode
	printf '%s\n' "$OUT" >>"$c/plan.txt"
	# shellcheck disable=SC2086
	run plan --config "$inv" $mode --json
	printf '%s\n' "$OUT" >>"$c/plan.json"
done
keep plan.txt "$c/plan.txt"
keep plan.json "$c/plan.json"
set +e
"$NETPROF_BIN" -q collect --config "$inv" --output "$c/fanout.jsonl" --iperf --ping-tool ping
assert_eq 1 $? "collect with d unreachable"
"$NETPROF_BIN" -q collect --config "$inv" --output "$c/channels.jsonl" --iperf --iperf-mode duplex --fanout off
"$NETPROF_BIN" -q collect --config "$inv" --output "$c/serial.jsonl" --iperf --serial
"$NETPROF_BIN" -q collect --config "$inv" --output "$c/every.jsonl" --ping-tool ping \
    --every 0 --count 2 --metrics-file "$c/every.prom"
set -e
for f in fanout channels serial every; do
	keep "collect-$f.jsonl" "$c/$f.jsonl" sort
done
keep collect-every.prom "$c/every.prom"
run heatmap --input "$c/fanout.jsonl" --text
printf '%s\n' "$OUT" >"$c/text"
keep collect-heatmap.txt "$c/text"
run heatmap --input "$c/fanout.jsonl" --metrics
printf '%s\n' "$OUT" >"$c/heatmap.prom"
keep collect-heatmap.prom "$c/heatmap.prom"
run heatmap --input "$c/fanout.jsonl" --input "$c/channels.jsonl" --output "$c/page.html"
keep collect-heatmap.html "$c/page.html"

# bench with --baseline on a, b and c
b=$dir/bench
RUN_ID=golden-$$
binv=$dir/bench-machines.json
cat >"$binv" <<JSON
{"transport": "local", "ping_count": 2, "ping_interval": 0.2,
 "machines": [$(machine a 127.0.0.1 ", \"http_port\": $(free_port)"),
              $(machine b 127.0.0.2 ", \"http_port\": $(free_port)"),
              $(machine c 127.0.0.3 ", \"http_port\": $(free_port)")]}
JSON
at_exit "rm -rf /tmp/otela-bench-$RUN_ID-a /tmp/otela-bench-$RUN_ID-b /tmp/otela-bench-$RUN_ID-c"
# a node teardown did not end (the check below fails then): this run's own
at_exit "kill \$(pgrep -f 'golden/node.py .*otela-bench-$RUN_ID-') 2>/dev/null || true"
# exclusive throughput: auto's choice of pairs run both ways rests on
# handshake times, which loopback on a loaded machine does not fix
set +e
"$NETPROF_BIN" -q bench --config "$binv" --output "$b" --run-id "$RUN_ID" \
    --baseline --latency-count 5 --throughput-count 2 --throughput-bytes 1048576 \
    --throughput-mode exclusive --metrics-file "$b/bench.prom"
assert_eq 1 $? "bench with c's latency failing"
set -e
# teardown ended every node (it kills a PID whose argv names the run's
# directory, as the stand-in's does)
assert_eq "" "$(pgrep -f "golden/node.py .*otela-bench-$RUN_ID-" || true)" "nodes left running"
# the records and run.json as they are written: upstream's bytes
# (json.dumps()'s form, its types; tests/integration/upstream_form.py)
TEST_CHECKS=$((TEST_CHECKS + 1))
form=$(python3 "$NETPROF_SRC/tests/integration/upstream_form.py" \
    "$NETPROF_FIXTURES/upstream" "$c"/{fanout,channels,serial,every}.jsonl \
    "$b/measurements.jsonl" "$b/run.json") ||
    fail "records or run.json not in upstream's form:"$'\n'"$form"
keep bench-measurements.jsonl "$b/measurements.jsonl" sort
keep bench-run.json "$b/run.json"
keep bench.prom "$b/bench.prom"
run heatmap --input "$b/measurements.jsonl" --input "$b/run.json" --text
printf '%s\n' "$OUT" >"$b/text"
keep bench-heatmap.txt "$b/text"
run heatmap --input "$b/measurements.jsonl" --input "$c/fanout.jsonl" \
    --input "$b/run.json" --output "$b/page.html"
keep bench-heatmap.html "$b/page.html"

if [ "${GOLDEN_WRITE:-0}" = 1 ]; then
	mkdir -p "$want"
	cp "$dir"/got/* "$want"/
	echo "wrote $(ls "$dir/got" | wc -l) fixtures to $want"
fi
for f in "$dir"/got/*; do
	name=$(basename "$f")
	[ -f "$want/$name" ] || fail "no fixture $name"
	assert_eq "" "$(diff "$want/$name" "$f" | head -20)" "$name as the fixture"
done
assert_eq "$(ls "$want" | grep -vc README)" "$(ls "$dir/got" | wc -l)" "files compared"
test_pass
