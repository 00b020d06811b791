#!/usr/bin/env bash
# collect and signals, on a 4-host lab: SIGTERM is handled as SIGINT (exit
# 130, whole lines, nothing left running in the lab); after a SIGKILL
# mid-run (no cleanup at all) --resume records exactly the missing pairs,
# each pair once, keeping the first run's records, and the probes the
# killed run had started end by themselves (ping -c) within their bound.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh ping jq

lab_up tfsig 4
inv=$LAB_INVENTORY
T=$NETPROF_TEST_TMP/faults-signals
rm -rf "$T"
mkdir -p "$T"
pings=(--ping-count 4 --ping-interval 0.5 --rounds)

# wait_records FILE N: until FILE has at least N lines
wait_records() {
	for _ in $(seq 200); do
		[ "$(wc -l <"$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.1
	done
	fail "no $2 records in $1"
}

lab_procs() {
	for p in $(lab pids); do ps -o comm= -p "$p" 2>/dev/null; done |
	    grep -E '^(ping|iperf3)$' || true
}

# --- SIGTERM like SIGINT -----------------------------------------------
"$NETPROF_BIN" -q collect --config "$inv" --output "$T/term.jsonl" \
    "${pings[@]}" &
pid=$!
wait_records "$T/term.jsonl" 2
kill -TERM $pid
rc=0
wait $pid || rc=$?
assert_eq 130 "$rc" "exit status after SIGTERM"
n=$(wc -l <"$T/term.jsonl")
[ "$n" -lt 12 ] || fail "the run finished before SIGTERM"
assert_eq "$n" "$(jq -c . "$T/term.jsonl" | wc -l)" "every line a record"
sleep 0.5
assert_eq "" "$(lab_procs)" "probes left in the lab after SIGTERM"

# --- SIGKILL, then --resume ----------------------------------------------
"$NETPROF_BIN" -q collect --config "$inv" --output "$T/kill.jsonl" \
    "${pings[@]}" &
pid=$!
wait_records "$T/kill.jsonl" 4
kill -KILL $pid
wait $pid 2>/dev/null || true
n1=$(wc -l <"$T/kill.jsonl")
[ "$n1" -lt 12 ] || fail "the run finished before SIGKILL"
before=$(jq -r '[.kind,.source,.target]|@tsv' "$T/kill.jsonl" | sort)
# the killed run's pings end by themselves: -c 4 -i 0.5 is about 2 s
sleep 4
assert_eq "" "$(lab_procs)" "probes of the killed run still running"
assert_status 0 "$NETPROF_BIN" collect --config "$inv" --output "$T/kill.jsonl" \
    --resume "${pings[@]}"
assert_contains "$OUT" "resuming: $n1 probes already recorded ok"
assert_eq 12 "$(wc -l <"$T/kill.jsonl")" "records after --resume"
assert_eq 12 "$(jq -r '[.kind,.source,.target]|@tsv' "$T/kill.jsonl" | sort -u | wc -l)" \
    "each pair exactly once"
assert_eq "$before" "$(head -n "$n1" "$T/kill.jsonl" | jq -r '[.kind,.source,.target]|@tsv' | sort)" \
    "the killed run's records are kept"
test_pass
