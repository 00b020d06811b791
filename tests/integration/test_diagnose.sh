#!/usr/bin/env bash
# The diagnosis as CI reads it, on a 4-host lab: a healthy collect with
# --fail-on warning exits 0; with h2 refusing ICMP echo (nftables in its
# own namespace) collect --fail-on error exits 3 and says on stderr that
# h2 refuses ICMP from every other host, and so does heatmap --fail-on
# error, whose --diagnosis-json names the finding (rule, place, protocol,
# the cells); --fail-on info on the healthy run still exits 0 (no finding
# at all on a healthy lab); the options' misuses are usage errors.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd jq nft ping

lab_up tdiag 4
inv=$LAB_INVENTORY
dir=$NETPROF_TEST_TMP/diagnose
rm -rf "$dir"
mkdir -p "$dir"
ping_opts=(--ping-count 5 --ping-interval 0.2)

# --- healthy: no finding, exit 0 ---------------------------------------------
assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$dir/ok.jsonl" \
    "${ping_opts[@]}" --fail-on warning
assert_not_contains "$OUT" "finding"
assert_status 0 "$NETPROF_BIN" -q heatmap -i "$dir/ok.jsonl" --config "$inv" \
    --diagnosis-json "$dir/ok.json" --text --fail-on info
assert_contains "$OUT" "Diagnosis: nothing wrong found"
assert_eq 0 "$(json_get "$dir/ok.json" '.findings | length')" "no finding on a healthy lab"
assert_eq none "$(json_get "$dir/ok.json" .worst)"

# --- h2 refuses ICMP echo ----------------------------------------------------
lab run h2 -- nft -f - <<'EOF'
table inet npdiag {
	chain in { type filter hook input priority 0; icmp type echo-request drop; }
}
EOF
at_exit "lab run h2 -- nft delete table inet npdiag 2>/dev/null || true"
assert_status 3 "$NETPROF_BIN" -q collect --config "$inv" --output "$dir/blocked.jsonl" \
    "${ping_opts[@]}" --fail-on error
assert_contains "$OUT" "netprof: finding 1 [error] h2 refuses ICMP echo from every other host; what it sends works"
assert_contains "$OUT" "at or above --fail-on error"
lab run h2 -- nft delete table inet npdiag

assert_status 3 "$NETPROF_BIN" -q heatmap -i "$dir/blocked.jsonl" --config "$inv" \
    --diagnosis-json "$dir/blocked.json" --output "$dir/blocked.html" --fail-on error
assert_contains "$OUT" "finding 1 [error] h2 refuses ICMP echo"
j=$dir/blocked.json
assert_eq 1 "$(json_get "$j" '.findings | length')" "one finding: the cause, not its three pairs"
assert_eq "host_blocked h2 in icmp" "$(json_get "$j" '.findings[0] | "\(.rule) \(.place.host) \(.place.direction) \(.protocols | join(","))"')"
assert_eq "h1 h3 h4" "$(json_get "$j" '[.findings[0].cells[].source] | sort | join(" ")')" \
    "its cells: every other host's ping to h2"
assert_eq 3 "$(json_get "$j" '.findings[0].bad_cells')"
assert_file_contains "$dir/blocked.html" 'data-rule=host_blocked'
# the page's findings come before its matrix
assert_eq 1 "$(awk '/id=diagnosis/ { d = NR } /id=view/ { v = NR } END { print (d && v && d < v) }' "$dir/blocked.html")"
# at warning and info too; not at a severity above the finding's
assert_status 3 "$NETPROF_BIN" -q heatmap -i "$dir/blocked.jsonl" --text --fail-on warning
# --fail-on-worse against the healthy run: failed since, infinitely worse
assert_status 3 "$NETPROF_BIN" -q heatmap -i "$dir/blocked.jsonl" --compare "$dir/ok.jsonl" \
    --config "$inv" --text --fail-on-worse 10
assert_contains "$OUT" "(failed since the old run)"

# --- misuse ------------------------------------------------------------------
assert_status 2 "$NETPROF_BIN" heatmap -i "$dir/ok.jsonl" --text --fail-on fatal
assert_contains "$OUT" "--fail-on: 'fatal' is not error, warning or info"
assert_status 2 "$NETPROF_BIN" heatmap -i "$dir/ok.jsonl" --text --fail-on-worse 2
assert_contains "$OUT" "--fail-on-worse needs --compare"
assert_status 2 "$NETPROF_BIN" collect --config "$inv" --output "$dir/w.jsonl" --every 1m --fail-on error
assert_contains "$OUT" "--fail-on judges one run"
assert_status 2 "$NETPROF_BIN" collect --config "$inv" --output - --fail-on error
assert_contains "$OUT" "--fail-on reads the run's records back"
test_pass
