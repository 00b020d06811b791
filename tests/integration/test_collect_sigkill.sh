#!/usr/bin/env bash
# collect --iperf killed with SIGKILL (no cleanup at all) while an iperf3
# server is up and its client has not connected, on a 4-host lab: every
# iperf3 server the killed run started ends by itself within its bound
# (none is left in any lab namespace), and --resume then records exactly
# the missing pairs, each once, keeping the killed run's records.
# h1's iperf3 client never connects (a wrapper on h1's PATH, through its
# remote_setup, sleeps instead), as a client host that hangs would; tests
# between the other hosts run meanwhile.
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
	[ "\$a" = -c ] && exec sleep 47
done
exec $real "\$@"
EOF
chmod 755 "$wrap" "$wrap/iperf3"
inv=$T/stall.json
jq --arg s "export PATH=$wrap:\$PATH" '.machines |= map(if .name == "h1"
    then .remote_setup = $s else . end)' "$LAB_INVENTORY" >"$inv"
opts=(--iperf --ping-count 1 --ping-interval 0.2 --iperf-seconds 2)

# the processes of the lab named $1 (iperf3, or timeout running one)
lab_procs() {
	for p in $(lab pids); do ps -o comm= -p "$p" 2>/dev/null; done |
	    grep -E "^($1)$" || true
}

"$NETPROF_BIN" -q collect --config "$inv" --output "$T/kill.jsonl" \
    "${opts[@]}" &
pid=$!
stalled=0
for _ in $(seq 300); do
	for p in $(ip netns pids "np-$LAB_NAME-h1" 2>/dev/null); do
		[ "$(ps -o args= -p "$p" 2>/dev/null)" = "sleep 47" ] && stalled=1
	done
	[ $stalled = 1 ] && break
	sleep 0.1
done
[ $stalled = 1 ] || fail "h1's iperf3 client never started"
# its server listens (the client is started only then)
[ -n "$(lab_procs iperf3)" ] || fail "no iperf3 server up before SIGKILL"
kill -KILL $pid
wait $pid 2>/dev/null || true
killed_at=$(date +%s)
n1=$(wc -l <"$T/kill.jsonl")
[ "$n1" -lt 24 ] || fail "the run finished before SIGKILL"

# every server the killed run started ends by itself; its bound is well
# under a minute for this lab (iperf_seconds 2, connect_timeout 5)
for _ in $(seq 120); do
	[ -z "$(lab_procs 'iperf3|timeout')" ] && break
	sleep 1
done
assert_eq "" "$(lab_procs 'iperf3|timeout')" \
    "iperf3 servers of the killed run still up $(( $(date +%s) - killed_at )) s after SIGKILL"
echo "the killed run's servers were gone $(( $(date +%s) - killed_at )) s after SIGKILL"

# --resume over the plain inventory completes exactly the missing pairs
before=$(jq -r '[.kind,.source,.target]|@tsv' "$T/kill.jsonl" | sort)
assert_status 0 "$NETPROF_BIN" collect --config "$LAB_INVENTORY" \
    --output "$T/kill.jsonl" --resume "${opts[@]}"
assert_contains "$OUT" "resuming: $n1 probes already recorded ok"
assert_eq 24 "$(wc -l <"$T/kill.jsonl")" "records after --resume"
assert_eq 24 "$(jq -r '[.kind,.source,.target]|@tsv' "$T/kill.jsonl" | sort -u | wc -l)" \
    "each pair exactly once"
assert_eq "$before" "$(head -n "$n1" "$T/kill.jsonl" | jq -r '[.kind,.source,.target]|@tsv' | sort)" \
    "the killed run's records are kept"
assert_eq "" "$(lab_procs 'iperf3|timeout')" "iperf3 left after --resume"
test_pass
