#!/usr/bin/env bash
# --otlp against a real Jaeger (v1.75.0, built by tests/jaeger/install.sh,
# in memory on loopback), read back through its query API: exec, collect
# and bench on a lab of three hosts whose h3 has its sshd stopped each
# leave one trace with the expected tree (run > phase > round or host step
# > probe; each host's SSH session with its connect, key exchange and
# auth), the host and pair attributes, and h3's failures as error
# statuses; bench's calls to the nodes' API carry the traceparent of the
# span they belong to (the stand-in writes down what it got); collect
# --every makes a trace per sweep; the OTEL_* variables are read (the
# endpoint, the service name; bad headers, a gRPC protocol and a bad URL
# are usage errors); a collector that cannot be reached, or never
# answers, is said once and changes no exit status.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd curl jq python3
require_otela
# a build under way in the background (tests/run.sh's) is waited for
if ! jaeger=$("$NETPROF_SRC/tests/jaeger/install.sh" --wait 1800); then
	log=$(dirname "$jaeger")/build.log
	[ "${NETPROF_TESTS_NO_SKIP:-0}" = 1 ] &&
	    fail "Jaeger is not built at $jaeger: tests/install-deps.sh test builds it (tests/jaeger/install.sh)$(
	        [ -f "$log" ] && printf '; the build said:\n%s' "$(tail -n 20 "$log")")"
	skip "needs Jaeger: tests/jaeger/install.sh (run by tests/install-deps.sh test)"
fi
T=$NETPROF_TEST_TMP/trace-jaeger
rm -rf "$T" && mkdir -p "$T/home"

# --- Jaeger, on loopback ports of its own ---------------------------------
otlp_port=$(free_port)
query_port=$(free_port)
grpc_port=$(free_port)
# NETPROF_TEST_JAEGER_UI: a built Jaeger UI (the module's build has none)
# for the screenshot of the bench trace (tests/browser/trace.mjs)
ui=()
[ -z "${NETPROF_TEST_JAEGER_UI:-}" ] ||
    ui=(--set "extensions.jaeger_query.ui.assets_path=$NETPROF_TEST_JAEGER_UI")
HOME=$T/home JAEGER_OTLP_HTTP=$otlp_port JAEGER_QUERY_HTTP=$query_port \
    JAEGER_QUERY_GRPC=$grpc_port "$jaeger" \
    --config "file:$NETPROF_SRC/tests/jaeger/config.yaml" "${ui[@]}" >"$T/jaeger.log" 2>&1 &
jaeger_pid=$!
at_exit "kill $jaeger_pid 2>/dev/null; wait $jaeger_pid 2>/dev/null"
query=http://127.0.0.1:$query_port
otlp=http://127.0.0.1:$otlp_port
wait_for 60 curl -sf -o /dev/null "$query/api/services" ||
    fail "Jaeger did not come up:"$'\n'"$(tail -n 20 "$T/jaeger.log")"
wait_for 30 curl -s -o /dev/null "$otlp/v1/traces" ||
    fail "Jaeger's OTLP receiver did not come up"

# tree SERVICE [MIN_TRACES]: the service's traces as lines (trace_tree.py)
tree() {
	python3 "$NETPROF_SRC/tests/jaeger/trace_tree.py" "$query" "$@"
}
# count TEXT PATTERN: lines of TEXT that match the extended regex
count() {
	grep -cE -- "$2" <<<"$1" || true
}

lab_up trace 3
lab sshd-stop h3 >/dev/null
INV=$LAB_INVENTORY
unset SSH_AUTH_SOCK OTEL_EXPORTER_OTLP_ENDPOINT OTEL_EXPORTER_OTLP_TRACES_ENDPOINT \
    OTEL_EXPORTER_OTLP_HEADERS OTEL_EXPORTER_OTLP_TRACES_HEADERS OTEL_SERVICE_NAME \
    OTEL_RESOURCE_ATTRIBUTES OTEL_EXPORTER_OTLP_PROTOCOL OTEL_SDK_DISABLED

# --- exec: the run, each host's command, each SSH session's steps ---------
assert_status 255 env OTEL_SERVICE_NAME=np-exec \
    "$NETPROF_BIN" exec --config "$INV" --otlp="$otlp" -- true
assert_eq "netprof: --otlp: spans go to $otlp/v1/traces" "$(grep -e --otlp <<<"$OUT")" \
    "a reachable collector: where the spans went, and nothing more"
t=$(tree np-exec)
assert_contains "$t" "traces 1"
for h in h1 h2; do
	for step in connect kex auth; do
		assert_eq 1 "$(count "$t" "^netprof exec > ssh session > ssh $step \| netprof.host=$h \|  \|")" \
		    "exec: $h's session has an ssh $step span, ok"
	done
	assert_eq 1 "$(count "$t" "^netprof exec > command \| netprof.exit_status=0 netprof.host=$h ")" \
	    "exec: $h's command span, exit status 0"
done
assert_eq 1 "$(count "$t" "^netprof exec > ssh session \| .*netprof.host=h3 \| ERROR: h3: could not connect: $(lab_addr h3):22: Connection refused")" \
    "exec: h3's session failed, its error as status"
assert_eq 1 "$(count "$t" "^netprof exec > ssh session > ssh connect \| netprof.host=h3 \| ERROR: h3: could not connect")" \
    "exec: h3's connect step failed"
assert_eq 0 "$(count "$t" "ssh (kex|auth) \| netprof.host=h3")" "exec: h3 had no key exchange"
assert_eq 1 "$(count "$t" "^netprof exec > command \| netprof.host=h3 .*\| ERROR: h3: could not connect")" \
    "exec: h3's command failed"
assert_eq 1 "$(count "$t" "^netprof exec \| netprof.command=true netprof.exit_status=255 netprof.hosts=3 ")" \
    "exec: the run's span and its attributes"

# --- collect: the endpoint from OTEL_EXPORTER_OTLP_ENDPOINT ---------------
assert_status 1 env OTEL_SERVICE_NAME=np-collect OTEL_EXPORTER_OTLP_ENDPOINT="$otlp/" \
    "$NETPROF_BIN" collect --config "$INV" --otlp --output "$T/collect.jsonl" \
    --ping-count 2 --ping-interval 0.2 -q
t=$(tree np-collect)
assert_contains "$t" "traces 1"
assert_eq 1 "$(count "$t" "^netprof collect \| netprof.hosts=3 ")" "collect: the sweep's span"
assert_eq 1 "$(count "$t" "^netprof collect > phase ping \| netprof.kind=ping ")" "collect: the ping phase"
assert_eq 6 "$(count "$t" "^netprof collect > phase ping > round > probe ping \|")" \
    "collect: every ordered pair's probe, in its round"
for p in h1:h2 h1:h3 h2:h1 h2:h3; do
	assert_eq 1 "$(count "$t" "> probe ping \| netprof.kind=ping netprof.mode=fanout netprof.ok=true netprof.round=1 netprof.source=${p%:*} netprof.target=${p#*:} netprof.target_address=$(lab_addr "${p#*:}") \|  \|")" \
	    "collect: ${p%:*}->${p#*:} ok, with its pair's attributes"
done
assert_eq 2 "$(count "$t" "> probe ping \| netprof.error_class=unreachable .*netprof.ok=false .*netprof.source=h3 .*\| ERROR: h3: could not connect")" \
    "collect: h3's probes failed, the reason as status"
jq -c 'select(.ok)' "$T/collect.jsonl" >"$T/ok.jsonl"
assert_eq 4 "$(wc -l <"$T/ok.jsonl")" "collect: four records ok, as four spans"

# --- collect --every: a trace per sweep -----------------------------------
assert_status 1 env OTEL_SERVICE_NAME=np-watch "$NETPROF_BIN" collect --config "$INV" \
    --hosts h1,h3 --otlp="$otlp" --output "$T/watch.jsonl" --every 0 --count 2 \
    --ping-count 1 -q
t=$(tree np-watch 2)
assert_contains "$t" "traces 2"
assert_eq 1 "$(count "$t" "^netprof collect \| netprof.hosts=2 netprof.sweep=1 ")" "sweep 1's trace"
assert_eq 1 "$(count "$t" "^netprof collect \| netprof.hosts=2 netprof.sweep=2 ")" "sweep 2's trace"
assert_eq 2 "$(count "$t" "^netprof collect > ssh session \| .*netprof.host=h3 \| ERROR")" \
    "each sweep tried h3's session again, in its own trace"

# --- bench: phases, host steps, probes; the traceparent reaches the node --
tplog=$T/traceparent
mkdir -m 1777 "$tplog"
setup="$(otela_setup); export OTELA_FAKE_TRACEPARENT_LOG=$tplog/log"
jq --arg s "$setup" '.remote_setup = $s' "$INV" >"$T/bench.json"
assert_status 1 env OTEL_SERVICE_NAME=np-bench "$NETPROF_BIN" bench --config "$T/bench.json" \
    --otlp="$otlp" --output "$T/bench" --latency-count 2 --throughput-count 1 \
    --throughput-bytes 65536 --health-wait 20 --converge-wait 20 -q
t=$(tree np-bench)
assert_contains "$t" "traces 1"
printf '%s\n' "$t" >"$T/bench.tree"
run_id=$(jq -r .run_id "$T/bench/run.json")
assert_eq 1 "$(count "$t" "^netprof bench \| netprof.hosts=3 netprof.probes_failed=12 netprof.probes_ok=6 netprof.run_id=$run_id \|")" \
    "bench: the run's span, its counts as run.json's"
for p in init discover configure push start converge punch sweep teardown; do
	assert_eq 1 "$(count "$t" "^netprof bench > phase $p \|")" "bench: phase $p"
done
for h in h1 h2; do
	for p in init discover configure push start converge teardown; do
		assert_eq 1 "$(count "$t" "^netprof bench > phase $p > $p \| .*netprof.host=$h( |).*\|  \|")" \
		    "bench: $h's $p step, ok"
	done
	assert_eq 1 "$(count "$t" "^netprof bench > phase start > start > health \| netprof.host=$h netprof.polls=[0-9]+ \|  \|")" \
	    "bench: $h's health wait inside its start"
	assert_eq 1 "$(count "$t" "^netprof bench > phase converge > converge \| netprof.converged=true netprof.host=$h netprof.missing=0 ")" \
	    "bench: $h converged"
done
assert_eq 1 "$(count "$t" "^netprof bench > phase init > init \| netprof.error_class=unreachable netprof.host=h3 \| ERROR: h3: otela init: h3: could not connect")" \
    "bench: h3 failed at init, the reason as status"
for k in libp2p_ping latency throughput; do
	for p in h1:h2 h2:h1; do
		assert_eq 1 "$(count "$t" "^netprof bench > phase sweep > probe $k \| netprof.kind=$k netprof.ok=true netprof.round=[0-9]+ netprof.source=${p%:*} netprof.target=${p#*:} \|  \|")" \
		    "bench: $k ${p%:*}->${p#*:} ok, with its pair"
	done
	assert_eq 4 "$(count "$t" "^netprof bench > phase sweep > probe $k \| netprof.error_class=unreachable netprof.kind=$k netprof.ok=false .*\| ERROR: h3 failed at init")" \
	    "bench: $k's pairs with h3 failed with h3's reason"
done
assert_eq 2 "$(count "$t" "^netprof bench > phase punch > probe holepunch \| netprof.connectedness=Connected .*netprof.ok=true")" \
    "bench: the punches between h1 and h2"
# every probe the nodes were asked for came with its span's context
probes=$(grep -c '^POST /v1/probe/run ' "$tplog/log" || true)
assert_eq 6 "$probes" "the nodes got six probe requests (three kinds, two pairs)"
trace_id=$(sed -n 's/^netprof bench |.* trace=\([0-9a-f]*\)$/\1/p' <<<"$t")
while read -r method path tp; do
	span=$(cut -d- -f3 <<<"$tp")
	assert_eq "00-$trace_id-" "${tp:0:36}" "$path: the run's trace id"
	assert_eq 1 "$(count "$t" "^netprof bench > phase sweep > probe [a-z0-9_]+ \| .* span=$span trace=$trace_id$")" \
	    "$path: the traceparent names its probe's span ($tp)"
done < <(grep '^POST /v1/probe/run ' "$tplog/log")
assert_ne 0 "$(grep -c '^GET /v1/health ' "$tplog/log")" "health polls carry a traceparent"
if [ ${#ui[@]} -gt 0 ]; then
	NETPROF_BROWSER_OUT=$T node "$NETPROF_SRC/tests/browser/trace.mjs" "$query" \
	    "$trace_id" "$T/bench-trace.png" || fail "the screenshot of the bench trace"
fi

# --- a collector that cannot be reached: said once, not fatal --------------
closed=$(free_port)
assert_status 0 "$NETPROF_BIN" exec --config "$INV" --hosts h1,h2 \
    --otlp="http://127.0.0.1:$closed" -- true
# at most a warning at the first loss (a run longer than a batch's wait)
# and the count at the end, whatever the number of requests that failed
assert_eq 1 "$(count "$OUT" "--otlp: ([0-9]+) of \\1 spans were not exported to http://127.0.0.1:$closed/v1/traces \\(.*could not connect")" \
    "the spans lost, counted once at the end:"$'\n'"$OUT"
assert_eq 0 "$(count "$OUT" "--otlp: spans not exported" | sed 's/^[01]$/0/')" \
    "and at most one warning before it:"$'\n'"$OUT"

# a collector that takes connections and never answers: the run's end
# waits one OTEL_EXPORTER_OTLP_TIMEOUT for it, then counts the spans lost
python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True); time.sleep(600)' >"$T/blackhole.port" &
bh_pid=$!
at_exit "kill $bh_pid 2>/dev/null"
wait_for 10 test -s "$T/blackhole.port" || fail "no listener"
bh=$(cat "$T/blackhole.port")
assert_status 0 env OTEL_EXPORTER_OTLP_TIMEOUT=1000 "$NETPROF_BIN" exec --config "$INV" \
    --hosts h1 --otlp="http://127.0.0.1:$bh" -- true
# (a run longer than a batch's wait has sent one before its end: that one
# timed out on its own)
assert_eq 1 "$(count "$OUT" "--otlp: 6 of 6 spans were not exported to http://127.0.0.1:$bh/v1/traces \\(POST http://127.0.0.1:$bh/v1/traces: (no answer before the run's end \\(OTEL_EXPORTER_OTLP_TIMEOUT, 1 s\\)|timed out)")" \
    "the spans lost to a collector that never answers, counted once at the end:"$'\n'"$OUT"
kill $bh_pid

# --- the OTEL_* settings: a bad one stops the command before it runs ------
assert_status 2 env OTEL_EXPORTER_OTLP_HEADERS='api-key' "$NETPROF_BIN" exec \
    --config "$INV" --otlp -- true
assert_contains "$OUT" 'OTEL_EXPORTER_OTLP_HEADERS: "api-key" is not key=value'
assert_status 2 env OTEL_EXPORTER_OTLP_HEADERS='x=a%0Ab' "$NETPROF_BIN" collect \
    --config "$INV" --otlp -q
assert_contains "$OUT" "a control character"
assert_status 2 env OTEL_EXPORTER_OTLP_PROTOCOL=grpc "$NETPROF_BIN" bench \
    --config "$INV" --otlp
assert_contains "$OUT" 'OTEL_EXPORTER_OTLP_PROTOCOL="grpc": netprof exports OTLP/HTTP with JSON'
assert_status 2 "$NETPROF_BIN" exec --config "$INV" --otlp=localhost:4318 -- true
assert_contains "$OUT" "--otlp=localhost:4318: not an http:// or https:// URL"
assert_status 2 env OTEL_BSP_MAX_QUEUE_SIZE=0 "$NETPROF_BIN" exec --config "$INV" \
    --otlp -- true
assert_contains "$OUT" 'OTEL_BSP_MAX_QUEUE_SIZE="0" is not a whole number from 1 to 1000000'
# headers are sent (Jaeger takes any), and without --otlp nothing is read
assert_status 0 env OTEL_SERVICE_NAME=np-headers OTEL_EXPORTER_OTLP_HEADERS='x-tenant=lab%20one' \
    "$NETPROF_BIN" exec --config "$INV" --hosts h1 --otlp="$otlp" -- true
assert_contains "$(tree np-headers)" "traces 1"
assert_status 0 env OTEL_EXPORTER_OTLP_HEADERS='bad' "$NETPROF_BIN" exec \
    --config "$INV" --hosts h1 -- true
test_pass
