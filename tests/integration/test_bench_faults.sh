#!/usr/bin/env bash
# bench when things go wrong, on a 4-host lab, one fault per run: otela
# missing on one host; one node never healthy; one node's libp2p port
# blocked (nftables in its namespace) so the mesh never converges (and,
# its node unable to punch, asked one attempt once it has said so);
# HTTP-over-libp2p refused by one node; a probe that times out. In each,
# the run goes on: every pair is recorded once, every unaffected pair is
# ok, the failure's reason is in the records (and run.json), the exit
# status is 1, and no node or bench directory is left behind.
# Two runs at a time on the lab, the second on ports of its own
# (--http-port, --libp2p-port): each run's nodes, directories and records
# are its own; what is left in the lab is checked once both have ended.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh jq node nft
require_otela

lab_up tbenchf 4
path=$(otela_setup)
small=(--latency-count 3 --throughput-count 1 --throughput-bytes 262144)

# inventory HOST SETUP: every host gets the node on PATH; HOST gets SETUP
# as its remote_setup instead.
inventory() {
	jq --arg p "$path" --arg h "$1" --arg s "$2" \
	    '.remote_setup = $p | .machines |= map(if .name == $h then
	     .remote_setup = $s else . end)' "$LAB_INVENTORY"
}

assert_nothing_left() {
	local left
	sleep 0.3
	left=$(for p in $(lab pids); do ps -o pid=,args= -p "$p" 2>/dev/null; done || true)
	assert_eq "" "$left" "processes left in the lab ($2)"
	assert_eq "" "$(ls -d /tmp/otela-bench-"$1"-* 2>/dev/null || true)" \
	    "bench directories left ($2)"
}

# count FILE FILTER: how many records FILTER selects.
count() { jq -c "$2" "$1" | wc -l; }

# bench_bg NAME ARGS...: bench ARGS in the background, its output in
# $NETPROF_TEST_TMP/NAME.out; bench_done NAME STATUS: wait for it, check its
# exit status, its output in $OUT.
declare -A bench_pid
# a run still going when the test ends (a failed check) is ended first
at_exit 'kill $(jobs -p) 2>/dev/null || true'
bench_bg() {
	local name=$1
	shift
	"$NETPROF_BIN" bench "$@" >"$NETPROF_TEST_TMP/$name.out" 2>&1 &
	bench_pid[$name]=$!
}
bench_done() {
	local rc=0
	wait "${bench_pid[$1]}" || rc=$?
	OUT=$(cat "$NETPROF_TEST_TMP/$1.out")
	assert_eq "$2" "$rc" "exit status of bench $1; its output: $OUT"
}
other_ports=(--http-port 29090 --libp2p-port 29091)

# --- otela missing on h3 ------------------------------------------------
inv=$NETPROF_TEST_TMP/missing.json
inventory h3 'true' >"$inv"
out=$NETPROF_TEST_TMP/missing
rm -rf "$out"	# its earlier run's output is refused
bench_bg f1 --config "$inv" --output "$out" --run-id f1 "${small[@]}"

# --- HTTP-over-libp2p refused by h1, beside it ----------------------------
inventory h1 "$path; export OTELA_FAKE_NO_HTTP=1" >"$NETPROF_TEST_TMP/nohttp.json"
out=$NETPROF_TEST_TMP/nohttp
rm -rf "$out"	# its earlier run's output is refused
bench_bg f4 --config "$NETPROF_TEST_TMP/nohttp.json" --output "$out" --run-id f4 --no-punch \
    "${other_ports[@]}" "${small[@]}"
out=$NETPROF_TEST_TMP/missing
bench_done f1 1
assert_contains "$OUT" "h3 FAILED at init"
rec=$out/measurements.jsonl
assert_eq 36 "$(jq -r '[.source,.target,.kind]|@tsv' "$rec" | sort -u | wc -l)" "every pair recorded once"
assert_eq 18 "$(count "$rec" 'select((.source=="h3" or .target=="h3") and (.ok|not) and .error_class=="tool_missing")')" \
    "h3's pairs failed tool_missing"
assert_eq 18 "$(count "$rec" 'select(.ok)')" "the other pairs ok"
assert_contains "$(jq -r 'select(.target=="h3")|.error' "$rec" | sed -n 1p)" \
    "h3 failed at init: h3: otela is not installed or not on PATH there"
assert_eq "failed init tool_missing" "$(jq -r '.machines[]|select(.name=="h3")|[.status,.failed_phase,.error_class]|join(" ")' "$out/run.json")"
assert_eq "skipped" "$(jq -r '.machines[]|select(.name=="h3")|.phases.start' "$out/run.json")"
assert_eq "null" "$(jq -r '.machines[]|select(.name=="h3")|.peer_id' "$out/run.json")"
assert_eq "true" "$(jq -r '[.convergence[].complete]|all' "$out/run.json")" "the others converge without h3"

out=$NETPROF_TEST_TMP/nohttp
bench_done f4 1
rec=$out/measurements.jsonl
assert_eq 6 "$(count "$rec" 'select(.target=="h1" and .kind!="libp2p_ping" and (.ok|not) and .error_class=="tool_failed")')" \
    "latency and throughput to h1 failed"
assert_contains "$(jq -r 'select(.target=="h1" and .kind=="latency")|.error' "$rec" | sed -n 1p)" "stream reset"
assert_eq 3 "$(count "$rec" 'select(.target=="h1" and .kind=="libp2p_ping" and .ok)')" "libp2p_ping to h1 still ok"
assert_eq 30 "$(count "$rec" 'select(.ok)')" "everything else ok"
assert_eq '{"failed":6,"ok":30}' "$(jq -c .totals "$out/run.json")"
assert_nothing_left f1 "otela missing"
assert_nothing_left f4 "no HTTP"

# --- h2's node never healthy ----------------------------------------------
inv=$NETPROF_TEST_TMP/unhealthy.json
inventory h2 "$path; export OTELA_FAKE_NEVER_HEALTHY=1" >"$inv"
out=$NETPROF_TEST_TMP/unhealthy
rm -rf "$out"	# its earlier run's output is refused
bench_bg f2 --config "$inv" --output "$out" --run-id f2 --health-wait 8 "${small[@]}"

# --- a probe that times out, beside it ------------------------------------
inventory none '' >"$NETPROF_TEST_TMP/timeout.json"
out=$NETPROF_TEST_TMP/timeout
rm -rf "$out"	# its earlier run's output is refused
bench_bg f5 --config "$NETPROF_TEST_TMP/timeout.json" --output "$out" --run-id f5 --hosts h1,h2 --no-punch \
    --kinds libp2p_ping,throughput --throughput-bytes 1073741824 --throughput-count 1 \
    --probe-timeout 1 "${other_ports[@]}"
out=$NETPROF_TEST_TMP/unhealthy
bench_done f2 1
rec=$out/measurements.jsonl
assert_eq 18 "$(count "$rec" 'select((.source=="h2" or .target=="h2") and (.ok|not) and .error_class=="timeout")')" \
    "h2's pairs failed timeout"
assert_eq 18 "$(count "$rec" 'select(.ok)')" "the other pairs ok"
assert_contains "$(jq -r 'select(.source=="h2")|.error' "$rec" | sed -n 1p)" \
    "h2 failed at start: h2: the node did not become healthy within 8 s"
h2=$(jq -c '.machines[]|select(.name=="h2")' "$out/run.json")
assert_eq "failed start" "$(jq -r '[.status,.failed_phase]|join(" ")' <<<"$h2")"
assert_ne "null" "$(jq -r .pid <<<"$h2")" "h2's node was started (and has a PID)"
assert_ne "null" "$(jq -r .log_tail <<<"$h2")" "h2's log tail is in run.json"
assert_eq "ok" "$(jq -r .phases.teardown <<<"$h2")" "h2's node torn down"

out=$NETPROF_TEST_TMP/timeout
bench_done f5 1
rec=$out/measurements.jsonl
assert_eq 2 "$(count "$rec" 'select(.kind=="throughput" and (.ok|not) and .error_class=="timeout")')" \
    "throughput probes timed out"
assert_contains "$(jq -r 'select(.kind=="throughput")|.error' "$rec" | sed -n 1p)" "timed out"
assert_eq 2 "$(count "$rec" 'select(.kind=="libp2p_ping" and .ok)')" "the pings ok"
assert_nothing_left f2 "never healthy"
assert_nothing_left f5 "probe timeout"

# --- h4's libp2p port blocked: no convergence --------------------------
# (both runs' ports: the run beside it punches on the other)
inv=$NETPROF_TEST_TMP/blocked.json
inventory none '' >"$inv"
lab run h4 -- nft -f - <<'EOF'
table inet npbench {
	chain in { type filter hook input priority 0; tcp dport { 19091, 29091 } reject with tcp reset; }
	chain out { type filter hook output priority 0; tcp dport { 19091, 29091 } reject with tcp reset; }
}
EOF
at_exit "lab run h4 -- nft delete table inet npbench 2>/dev/null || true"
out=$NETPROF_TEST_TMP/blocked
rm -rf "$out" "$out.nopunch"	# its earlier run's output is refused
bench_bg f3 --config "$inv" --output "$out" --run-id f3 --converge-wait 3 --probe-timeout 5 \
    "${small[@]}"
# h4's node cannot punch either (the real node at e0591341): --serial asks
# one pair at a time; each pair's first request is a look (one attempt),
# and once h4 has answered that it cannot, its other pair is asked for no
# more than that look (its connectedness still read), never for five
inventory h4 "$path; export OTELA_FAKE_NO_HOLEPUNCH=1" >"$NETPROF_TEST_TMP/nopunch.json"
bench_bg f3p --config "$NETPROF_TEST_TMP/nopunch.json" --output "$out.nopunch" \
    --run-id f3p --hosts h1,h2,h4 --serial --converge-wait 1 --probe-timeout 5 \
    --kinds libp2p_ping --latency-count 2 "${other_ports[@]}"
bench_done f3p 1
assert_eq "1 1" "$(jq -r '[.punch["h4->h1","h4->h2"].attempts]|sort|map(tostring)|join(" ")' "$out.nopunch/run.json")" \
    "a node that cannot punch is asked for one attempt a pair"
assert_eq 2 "$(jq '[.punch["h4->h1","h4->h2"]|select(.connectedness=="NotConnected" and .last_error=="hole punch service not initialized")]|length' "$out.nopunch/run.json")" \
    "both its pairs' connectedness and error read"
bench_done f3 1
lab run h4 -- nft delete table inet npbench
assert_nothing_left f3p "a node that cannot punch"
run=$out/run.json
assert_eq "false" "$(jq -r '.convergence.h4.complete' "$run")" "h4 never converges"
assert_eq "h1,h2,h3" "$(jq -r '.convergence.h4.missing|join(",")' "$run")"
assert_eq "h4" "$(jq -r '.convergence.h1.missing|join(",")' "$run")"
assert_eq "ok" "$(jq -r '.machines[]|select(.name=="h4")|.status' "$run")" "not converging is not a host failure"
assert_eq "false" "$(jq -r '.punch["h1->h4"].ok' "$run")"
assert_eq 5 "$(jq -r '.punch["h1->h4"].attempts' "$run")" \
    "a node that can punch is asked for all five attempts: its look's and the rest"
assert_eq "true" "$(jq -r '.punch["h1->h2"].ok' "$run")"
rec=$out/measurements.jsonl
assert_eq 36 "$(jq -r '[.source,.target,.kind]|@tsv' "$rec" | sort -u | wc -l)" "every pair recorded once"
assert_eq 18 "$(count "$rec" 'select((.source=="h4" or .target=="h4") and (.ok|not) and .error != null)')" \
    "h4's pairs failed, with a reason"
assert_eq 18 "$(count "$rec" 'select(.ok)')" "the other pairs ok"
# the punch left every pair with h4 apart: their light probes wait for
# every other pair's to end (the mesh's own dials have that time)
light='select(.kind != "throughput")'
with4='(.source == "h4" or .target == "h4")'
first4=$(jq -rs "[.[]|$light|select($with4)|.started_at]|min" "$rec")
last=$(jq -rs "[.[]|$light|select($with4|not)|.ended_at]|max" "$rec")
assert_eq 12 "$(count "$rec" "$light|select($with4)")" "h4's light probes recorded"
[[ $first4 > $last || $first4 == "$last" ]] ||
    fail "h4's first light probe started at $first4, before the others' last ended ($last): $(jq -c '[.source,.target,.kind,.started_at,.ended_at,.round]' "$rec" | sort -t, -k4)"
TEST_CHECKS=$((TEST_CHECKS + 1))
assert_contains "$(jq -r 'select(.source=="h1" and .target=="h4" and .kind=="libp2p_ping")|.error' "$rec")" "dial"
assert_nothing_left f3 "blocked port"

test_pass
