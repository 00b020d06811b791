#!/usr/bin/env bash
# collect when things go wrong, on a 4-host lab: a host whose sshd is
# stopped has its pairs recorded failed with error_class "unreachable" and
# the rest of the sweep goes on (exit 1); a busy iperf3 port gives a failed
# record with iperf3's words, not a hang; SIGINT mid-run leaves valid JSONL,
# exits 130 and no ping or iperf3 in any lab namespace, and --resume then
# runs exactly the missing pairs.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh ping iperf3 jq

lab_up tcolf 4
inv=$LAB_INVENTORY
out=$NETPROF_TEST_TMP/faults.jsonl

# --- one host's sshd stopped ------------------------------------------
lab sshd-stop h3 >/dev/null
assert_status 1 "$NETPROF_BIN" collect --config "$inv" --output "$out" \
    --iperf --ping-count 2 --ping-interval 0.2 --iperf-seconds 1
assert_contains "$OUT" "failed"
assert_eq 24 "$(jq -r '[.kind,.source,.target]|@tsv' "$out" | sort -u | wc -l)" "every pair recorded"
# pings from h3, and iperf3 tests with h3 on either side, fail unreachable
assert_eq 3 "$(jq -r 'select(.kind=="ping" and .source=="h3" and (.ok|not) and .error_class=="unreachable")|.target' "$out" | wc -l)" \
    "h3's pings failed unreachable"
assert_eq 6 "$(jq -r 'select(.kind=="iperf3" and (.source=="h3" or .target=="h3") and (.ok|not) and .error_class=="unreachable")|.target' "$out" | wc -l)" \
    "iperf3 with h3 failed unreachable"
assert_contains "$(jq -r 'select(.source=="h3")|.error' "$out" | head -1)" "h3"
# the others are ok (pings to h3 work: only its sshd is down)
assert_eq 15 "$(jq -r 'select(.ok)|.kind' "$out" | wc -l)" "ok records"
lab sshd-start h3 >/dev/null

# --- a busy iperf3 port -------------------------------------------------
lab run h2 -- iperf3 -s -p 5299 -D >/dev/null
busy=$NETPROF_TEST_TMP/busy.jsonl
assert_status 1 timeout 60 "$NETPROF_BIN" -q collect --config "$inv" \
    --output "$busy" --iperf --hosts h1,h2 --ping-count 1 \
    --iperf-seconds 1 --iperf-port 5299
rec=$(jq -c 'select(.kind=="iperf3" and .target=="h2")' "$busy")
assert_eq "false" "$(jq -r .ok <<<"$rec")" "iperf3 to a busy port"
assert_eq "tool_failed" "$(jq -r .error_class <<<"$rec")"
assert_contains "$(jq -r .error <<<"$rec")" "Address already in use"
lab run h2 -- pkill -x iperf3 || true

# --- SIGINT mid-run, then --resume -------------------------------------
int=$NETPROF_TEST_TMP/interrupted.jsonl
# a file left by an earlier run would end the wait below at once
rm -f "$int"
"$NETPROF_BIN" -q collect --config "$inv" --output "$int" --iperf \
    --ping-count 2 --ping-interval 0.2 --iperf-seconds 1 &
pid=$!
# wait until the iperf3 phase has begun, then interrupt mid-test
for _ in $(seq 100); do
	grep -q '"iperf3"' "$int" 2>/dev/null && break
	sleep 0.1
done
sleep 0.5
kill -INT $pid
rc=0
wait $pid || rc=$?
assert_eq 130 "$rc" "exit status after SIGINT"
assert_eq "" "$(jq -c . "$int" >/dev/null 2>&1 || echo invalid)" "output is valid JSONL"
assert_eq "" "$(tail -c 1 "$int" | tr -d '\n')" "last line complete"
n1=$(wc -l <"$int")
[ "$n1" -lt 24 ] || fail "the run finished before the interrupt ($n1 records)"
sleep 0.5
left=$(for p in $(lab pids); do ps -o comm= -p "$p" 2>/dev/null; done | grep -E '^(ping|iperf3)$' || true)
assert_eq "" "$left" "ping/iperf3 left in the lab after SIGINT"

before=$(jq -r '[.kind,.source,.target]|@tsv' "$int" | sort)
assert_status 0 "$NETPROF_BIN" collect --config "$inv" --output "$int" \
    --iperf --resume --ping-count 2 --ping-interval 0.2 --iperf-seconds 1
assert_contains "$OUT" "resuming: $n1 probes already recorded ok"
assert_eq 24 "$(wc -l <"$int")" "records after --resume"
assert_eq 24 "$(jq -r '[.kind,.source,.target]|@tsv' "$int" | sort -u | wc -l)" \
    "each pair exactly once after --resume"
assert_eq "$before" "$(head -n "$n1" "$int" | jq -r '[.kind,.source,.target]|@tsv' | sort)" \
    "the first run's records are kept"
test_pass
