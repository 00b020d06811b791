#!/usr/bin/env bash
# collect --iperf killed with SIGKILL (no cleanup at all) while an iperf3
# server is up and its client has not connected, on a 4-host lab, in both
# modes at once, each on a lab of its own (exclusive: a one-off server per
# test; duplex: one server per host for the phase, tests of other pairs
# running meanwhile): every
# iperf3 server the killed run started ends by itself within its bound
# (none is left in any lab namespace), and --resume then records exactly
# the missing pairs, each once, keeping the killed run's records.
# h1's iperf3 client never connects (a wrapper on h1's PATH, through its
# remote_setup, sleeps instead), as a client host that hangs would; tests
# between the other hosts run meanwhile.
# The stalled client outlives the killed run (nothing signals it: it is the
# hung host's), so each mode's wrapper writes its PID to a marker file of
# its own: a mode waits for its own stall, never for the other mode's,
# which may be asleep already when its run starts and would let the
# SIGKILL land before that run started any iperf3 server.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh ping iperf3 jq

lab_up tcolk 4
T=$NETPROF_TEST_TMP/collect-sigkill
rm -rf "$T"
mkdir -p "$T"
real=$(command -v iperf3)
# the lab user runs the wrapper: a directory it can read, outside the tree
wrap=$(mktemp -d /tmp/netprof-stall.XXXXXX)
at_exit "rm -rf '$wrap'"
cat >"$wrap/iperf3" <<EOF
#!/bin/sh
# a client that never connects; the server side is the real iperf3
for a in "\$@"; do
	if [ "\$a" = -c ]; then
		echo \$\$ >"$wrap/stall/\$NETPROF_TEST_STALL"
		exec sleep 47
	fi
done
exec $real "\$@"
EOF
mkdir "$wrap/stall"
chown "$LAB_USER" "$wrap/stall"
chmod 755 "$wrap" "$wrap/iperf3"
# stall_inventory MODE: the lab's inventory with h1's client stalling,
# its marker file named MODE
stall_inventory() {
	jq --arg s "export PATH=$wrap:\$PATH NETPROF_TEST_STALL=$1" \
	    '.machines |= map(if .name == "h1" then .remote_setup = $s else . end)' \
	    "$LAB_INVENTORY" >"$T/stall-$1.json"
	echo "$T/stall-$1.json"
}
opts=(--iperf --ping-count 1 --ping-interval 0.2 --iperf-seconds 2)

# the processes of the lab named $1 (iperf3, or timeout running one)
lab_procs() {
	for p in $(lab pids); do ps -o comm= -p "$p" 2>/dev/null; done |
	    grep -E "^($1)$" || true
}

# killed_run MODE: collect --iperf-mode MODE killed while h1's client
# stalls, then every server gone within its bound, then --resume
killed_run() {
	local mode=$1 out=$T/kill-$1.jsonl pid stalled=0 killed_at n1 before p
	local inv
	inv=$(stall_inventory "$mode")
	"$NETPROF_BIN" -q collect --config "$inv" --output "$out" \
	    --iperf-mode "$mode" "${opts[@]}" &
	pid=$!
	for _ in $(seq 300); do
		p=$(cat "$wrap/stall/$mode" 2>/dev/null || true)
		[ -n "$p" ] && [ "$(ps -o args= -p "$p" 2>/dev/null)" = "sleep 47" ] &&
		    stalled=1
		[ $stalled = 1 ] && break
		sleep 0.1
	done
	[ $stalled = 1 ] || fail "$mode: h1's iperf3 client never started"
	# its server listens (the client is started only then)
	[ -n "$(lab_procs iperf3)" ] || fail "$mode: no iperf3 server up before SIGKILL"
	kill -KILL $pid
	wait $pid 2>/dev/null || true
	killed_at=$(date +%s)
	n1=$(wc -l <"$out")
	[ "$n1" -lt 24 ] || fail "$mode: the run finished before SIGKILL"

	# every server the killed run started ends by itself; its bound is
	# well under a minute for this lab (iperf_seconds 2, connect_timeout 5)
	for _ in $(seq 120); do
		[ -z "$(lab_procs 'iperf3|timeout')" ] && break
		sleep 1
	done
	assert_eq "" "$(lab_procs 'iperf3|timeout')" \
	    "$mode: iperf3 servers of the killed run still up $(( $(date +%s) - killed_at )) s after SIGKILL"
	echo "$mode: the killed run's servers were gone $(( $(date +%s) - killed_at )) s after SIGKILL"

	# --resume over the plain inventory completes exactly the missing pairs
	before=$(jq -r '[.kind,.source,.target]|@tsv' "$out" | sort)
	assert_status 0 "$NETPROF_BIN" collect --config "$LAB_INVENTORY" \
	    --output "$out" --resume --iperf-mode "$mode" "${opts[@]}"
	assert_contains "$OUT" "resuming: $n1 probes already recorded ok"
	assert_eq 24 "$(wc -l <"$out")" "$mode: records after --resume"
	assert_eq 24 "$(jq -r '[.kind,.source,.target]|@tsv' "$out" | sort -u | wc -l)" \
	    "$mode: each pair exactly once"
	assert_eq "$before" "$(head -n "$n1" "$out" | jq -r '[.kind,.source,.target]|@tsv' | sort)" \
	    "$mode: the killed run's records are kept"
	assert_eq "true" "$(jq -s 'map(select(.kind == "iperf3")) | all(.mode == "'"$mode"'")' "$out")" \
	    "$mode: the records say the mode"
	assert_eq "" "$(lab_procs 'iperf3|timeout')" "$mode: iperf3 left after --resume"
}

# one-off servers, one per test: on a lab of its own, beside the other
# mode (the wait for the servers' end and --resume's iperf3 runs are
# time, not work); its output is shown at the end
exclusive_beside() {
	_at_exit_cmds=()	# its own: its lab
	trap _run_at_exit EXIT
	trap 'exit 130' INT TERM
	lab_up tcolkx 4
	killed_run exclusive
	echo "$TEST_CHECKS" >"$T/exclusive.checks"
}
exclusive_beside >"$T/exclusive.log" 2>&1 &
beside_pid=$!
at_exit "kill $beside_pid 2>/dev/null; wait $beside_pid 2>/dev/null; cat '$T/exclusive.log' >&2"
# one server per host for the phase
killed_run duplex
wait "$beside_pid" || fail "the exclusive mode failed (its log follows)"
TEST_CHECKS=$((TEST_CHECKS + $(cat "$T/exclusive.checks")))
test_pass
