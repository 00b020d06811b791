#!/usr/bin/env bash
# bench interrupted, on a 4-host lab: SIGINT while the nodes start, and
# SIGINT (then SIGTERM, then SIGHUP: a lost terminal) during the sweep,
# each exit 130 after the teardown,
# with valid JSONL and no node or bench directory left; in the teardowns
# after SIGINT and SIGHUP, nodes that end on TERM within --stop-grace 15,
# and nodes that ignore TERM KILLed after the grace (also after a run that
# was not interrupted, which exits 0); netprof killed with
# SIGKILL leaves its nodes running, and `bench --teardown DIR/run.json`
# then leaves nothing.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh jq node
require_otela

lab_up tbenchs 4
path=$(otela_setup)
inv=$NETPROF_TEST_TMP/signals.json
jq --arg p "$path" '.remote_setup = $p' "$LAB_INVENTORY" >"$inv"
slow=$NETPROF_TEST_TMP/slowstart.json
jq --arg p "$path; export OTELA_FAKE_START_DELAY_MS=5000" \
    '.remote_setup = $p' "$LAB_INVENTORY" >"$slow"
long=(--latency-count 40 --throughput-count 2 --throughput-bytes 4194304)

lab_nodes() {
	for p in $(lab pids); do ps -o pid=,args= -p "$p" 2>/dev/null; done || true
}

assert_nothing_left() {
	sleep 0.3
	assert_eq "" "$(lab_nodes)" "processes left in the lab ($2)"
	assert_eq "" "$(ls -d /tmp/otela-bench-"$1"-* 2>/dev/null || true)" \
	    "bench directories left ($2)"
}

# wait_for SECONDS CONDITION...: poll until CONDITION succeeds.
wait_for() {
	local n=$(( $1 * 10 ))
	shift
	while ! "$@" 2>/dev/null; do
		n=$((n - 1))
		[ $n -gt 0 ] || fail "timed out waiting for: $*"
		sleep 0.1
	done
}

pids_recorded() {	# DIR: every machine's node PID is in run.json
	[ "$(jq '[.machines[].pid|select(.!=null)]|length' "$1/run.json")" = 4 ]
}

records_at_least() {	# FILE N
	[ "$(wc -l <"$1")" -ge "$2" ]
}

assert_valid_jsonl() {
	assert_eq "" "$(jq -c . "$1" >/dev/null 2>&1 || echo invalid)" "$1 is valid JSONL"
	assert_eq "" "$(tail -c 1 "$1" | tr -d '\n')" "last line of $1 complete"
}

# --- SIGINT while the nodes start -------------------------------------
out=$NETPROF_TEST_TMP/intstart
rm -rf "$out"
"$NETPROF_BIN" bench --config "$slow" --output "$out" --run-id g1 &
pid=$!
wait_for 60 pids_recorded "$out"
[ -n "$(lab_nodes)" ] || fail "no node running before the interrupt"
kill -INT $pid
rc=0
wait $pid || rc=$?
assert_eq 130 "$rc" "exit status after SIGINT during start"
assert_eq "true" "$(jq -r .interrupted "$out/run.json")"
assert_eq "interrupted" "$(jq -r ".machines[0].phases.start" "$out/run.json")" "start did not complete"
assert_eq "ok ok ok ok" "$(jq -r '[.machines[].phases.teardown]|join(" ")' "$out/run.json")" "teardown on every host"
assert_eq 0 "$(wc -l <"$out/measurements.jsonl")" "no records before the sweep"
assert_nothing_left g1 "SIGINT during start"

# --- SIGINT, SIGTERM and SIGHUP during the sweep ----------------------
# The stop after an interrupt is the run's own: the SIGINT run's nodes end
# on TERM within --stop-grace 15, the SIGHUP run's ignore TERM (the
# stand-in's TERM cleanup made longer than the test) and are KILLed after
# the grace (0.5 s by default), verified gone, their directories removed.
stubborn=$NETPROF_TEST_TMP/stubborn.json
jq --arg p "$path; export OTELA_FAKE_STOP_MS=3600000" \
    '.remote_setup = $p' "$LAB_INVENTORY" >"$stubborn"
declare -A sig_inv=([INT]=$inv [TERM]=$inv [HUP]=$stubborn)
declare -A sig_opts=([INT]="--stop-grace 15" [TERM]="" [HUP]="")
declare -A sig_stop=([INT]="TERM TERM TERM TERM" [TERM]="" [HUP]="KILL KILL KILL KILL")
for sig in INT TERM HUP; do
	out=$NETPROF_TEST_TMP/sweep$sig
	rm -rf "$out"
	# shellcheck disable=SC2086
	"$NETPROF_BIN" bench --config "${sig_inv[$sig]}" --output "$out" --run-id "g$sig" \
	    "${long[@]}" ${sig_opts[$sig]} &
	pid=$!
	wait_for 120 records_at_least "$out/measurements.jsonl" 2
	kill -$sig $pid
	rc=0
	wait $pid || rc=$?
	assert_eq 130 "$rc" "exit status after SIG$sig during the sweep"
	n=$(wc -l <"$out/measurements.jsonl")
	[ "$n" -lt 36 ] || fail "the sweep finished before SIG$sig ($n records)"
	assert_valid_jsonl "$out/measurements.jsonl"
	assert_eq "$n" "$(jq -r '[.source,.target,.kind]|@tsv' "$out/measurements.jsonl" | sort -u | wc -l)" \
	    "no pair recorded twice"
	assert_eq "true" "$(jq -r .interrupted "$out/run.json")"
	assert_eq "$n" "$(jq -r '.totals.ok + .totals.failed' "$out/run.json")" "run.json totals match the records"
	assert_eq "ok ok ok ok" "$(jq -r '[.machines[].phases.teardown]|join(" ")' "$out/run.json")" \
	    "teardown on every host after SIG$sig"
	[ -z "${sig_stop[$sig]}" ] ||
	    assert_eq "${sig_stop[$sig]}" "$(jq -r '[.machines[].stop_signal]|join(" ")' "$out/run.json")" \
	    "SIG$sig: the signal that ended the nodes (${sig_opts[$sig]:-TERM ignored})"
	assert_nothing_left "g$sig" "SIG$sig during the sweep"
done

# --- a run that ends by itself on nodes that ignore TERM ---------------
# The stop after the sweep's last probe (not after an interrupt) KILLs
# them after the grace too, and the run still exits 0: its records are
# whole and every node was verified gone.
out=$NETPROF_TEST_TMP/stubborn
rm -rf "$out"
assert_status 0 "$NETPROF_BIN" bench --config "$stubborn" --output "$out" --run-id g4 \
    --kind libp2p_ping --latency-count 2 --no-punch
assert_eq "ok ok ok ok" "$(jq -r '[.machines[].phases.teardown]|join(" ")' "$out/run.json")" "teardown on every host (TERM ignored, run not interrupted)"
assert_eq "KILL KILL KILL KILL" "$(jq -r '[.machines[].stop_signal]|join(" ")' "$out/run.json")" "KILL ended the nodes that ignore TERM after a whole run"
assert_nothing_left g4 "nodes that ignore TERM, run not interrupted"

# --- SIGKILL, then --teardown DIR/run.json ----------------------------
out=$NETPROF_TEST_TMP/killed
rm -rf "$out" "$out.tmp"
# A node API call's bridge socket lives in a directory of its own under
# $TMPDIR from its listen to its accept: a SIGKILL in that window leaves
# it, so the killed netprof's is the test's.
mkdir -p "$out.tmp"
env -u XDG_RUNTIME_DIR TMPDIR="$out.tmp" \
    "$NETPROF_BIN" bench --config "$inv" --output "$out" --run-id g3 "${long[@]}" &
pid=$!
wait_for 120 records_at_least "$out/measurements.jsonl" 1
kill -KILL $pid
wait $pid || true
sleep 0.5
assert_eq 4 "$(ls -d /tmp/otela-bench-g3-* | wc -l)" "a killed netprof leaves the run behind"
assert_ne "" "$(lab_nodes)" "a killed netprof leaves its nodes running"
assert_status 0 "$NETPROF_BIN" bench --config "$inv" --teardown "$out/run.json"
assert_contains "$OUT" "h1: torn down"
assert_nothing_left g3 "--teardown after SIGKILL"
# a second teardown finds nothing to do, and says so without failing
assert_status 0 "$NETPROF_BIN" bench --config "$inv" --teardown "$out/run.json"
rm -rf "$out.tmp"
test_pass
