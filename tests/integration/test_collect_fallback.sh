#!/usr/bin/env bash
# The ping fan-out's fallback, on a 3-host lab: a host whose shell cannot
# run the fan-out script (here h2's remote_setup turns printf, which the
# script tags every line with, into a no-op) gets its pairs back one
# channel per probe: every pair is recorded once and ok, h2's with mode
# "channel" and the others' with "fanout", and the run says why.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh ping jq

lab_up tcolfb 3
inv=$NETPROF_TEST_TMP/fallback.json
out=$NETPROF_TEST_TMP/fallback.jsonl
jq '.machines |= map(if .name == "h2" then
    .remote_setup = "printf() { return 0; }" else . end)' "$LAB_INVENTORY" >"$inv"

assert_status 0 "$NETPROF_BIN" collect --config "$inv" --output "$out" \
    --ping-tool ping --ping-count 2 --ping-interval 0.2
assert_contains "$OUT" "h2: the fan-out ping script did not run there"
assert_contains "$OUT" "6 probes ok, 0 failed"
assert_eq 6 "$(jq -r '[.kind,.source,.target]|@tsv' "$out" | sort -u | wc -l)" \
    "every pair once"
assert_eq 6 "$(wc -l <"$out")" "one record per pair"
assert_eq "channel channel" "$(jq -r 'select(.source=="h2")|.mode' "$out" | tr '\n' ' ' | sed 's/ $//')" \
    "h2's pairs fell back to a channel each"
assert_eq "fanout fanout fanout fanout" "$(jq -r 'select(.source!="h2")|.mode' "$out" | tr '\n' ' ' | sed 's/ $//')" \
    "the other hosts' pairs ran in their fan-out"
# h2's records reproduce as a plain ping, the others' as the fan-out's
assert_contains "$(jq -r 'select(.source=="h2")|.command' "$out")" "ping -c 2 -i 0.2"
assert_eq "true" "$(jq -s 'all(.[]; .ok and (.metrics.samples_ms|length) == 2)' "$out")" \
    "two samples per pair"
test_pass
