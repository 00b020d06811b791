#!/usr/bin/env bash
# collect without a lab, over the "local" transport on loopback addresses:
# ping and iperf3 records for every pair, a machine without the tools on
# PATH gives error_class tool_missing (exit 1),
# and the summary is printed.
. "$(dirname "$0")/lib.sh"
require_cmd jq ping iperf3
ping -c 1 -W 1 127.0.0.2 >/dev/null 2>&1 || skip "cannot ping 127.0.0.2 here"

inv=$NETPROF_TEST_TMP/local-machines.json
out=$NETPROF_TEST_TMP/local.jsonl
cat >"$inv" <<'JSON'
{"transport": "local", "ping_count": 2, "ping_interval": 0.2,
 "iperf_seconds": 1, "iperf_port": 15311,
 "machines": [{"name": "a", "address": "127.0.0.1"},
              {"name": "b", "address": "127.0.0.2"},
              {"name": "c", "address": "127.0.0.3"}]}
JSON
assert_status 0 "$NETPROF_BIN" collect --config "$inv" --output "$out" --iperf
assert_contains "$OUT" "12 probes ok, 0 failed"
assert_contains "$OUT" "median RTT"
assert_eq 12 "$(jq -r '[.kind,.source,.target]|@tsv' "$out" | sort -u | wc -l)"
assert_eq "true" "$(jq -s 'all(.ok)' "$out")"

cat >"$inv" <<'JSON'
{"transport": "local", "ping_count": 2, "ping_interval": 0.2,
 "machines": [{"name": "a", "address": "127.0.0.1"},
              {"name": "notools", "address": "127.0.0.2",
               "remote_setup": "PATH=/nonexistent"}]}
JSON
assert_status 1 "$NETPROF_BIN" -q collect --config "$inv" --output "$out"
assert_eq "tool_missing" "$(jq -r 'select(.source=="notools")|.error_class' "$out")"
assert_contains "$(jq -r 'select(.source=="notools")|.error' "$out")" "ping is not installed"
assert_eq "true" "$(jq -r 'select(.source=="a")|.ok' "$out")"
test_pass
