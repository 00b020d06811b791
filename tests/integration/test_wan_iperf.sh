#!/usr/bin/env bash
# iperf3 over a lab with distance where one site's link is capped by its
# wirefilter: every pair across the capped link measures its cap within
# 10 % when tests are exclusive; the pair that crosses no cap measures well
# above it.
#
# --iperf-mode duplex on the capped link is a finding (docs/lab.md): the
# host behind the cap is client and server at once, and each test's ACKs
# queue behind the other test's data in the link's one queue per
# direction, so duplex measures 0.54-0.98 of exclusive there. The test
# holds what is true of it: never above the cap (+10 %), never below 40 %
# of exclusive, and it prints the ratios.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd iperf3 jq wirefilter vde_switch unixcmd

cap=30		# Mbit/s, well under what a userspace hop carries (docs/lab.md)
lab_up wiperf 3 --site a=1,delay=2 --site b=1,delay=3,rate=${cap}mbit \
    --site c=1,delay=2 --home delay=1
inv=$LAB_INVENTORY

ex=$NETPROF_TEST_TMP/wan-iperf-exclusive.jsonl
du=$NETPROF_TEST_TMP/wan-iperf-duplex.jsonl
rm -f "$ex" "$du"
assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$ex" \
    --ping-count 2 --ping-interval 0.2 --iperf --iperf-seconds 4
assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$du" \
    --ping-count 2 --ping-interval 0.2 --iperf --iperf-seconds 4 \
    --iperf-mode duplex
assert_eq "6 duplex" "$(jq -r 'select(.kind=="iperf3" and .ok)|.mode' "$du" | uniq -c | awk '{print $1, $2}')" \
    "duplex: 6 tests ok"

mbps() {
	jq -r --arg s "$2" --arg t "$3" \
	    'select(.kind=="iperf3" and .source==$s and .target==$t)|.metrics.mbps' "$1"
}
report=""
for pair in "h1 h2" "h2 h1" "h3 h2" "h2 h3"; do
	read -r s t <<<"$pair"
	e=$(mbps "$ex" "$s" "$t") d=$(mbps "$du" "$s" "$t")
	report="$report$s->$t cap $cap exclusive $e duplex $d ratio $(awk -v d="$d" -v e="$e" 'BEGIN { printf "%.2f", d / e }')"$'\n'
	TEST_CHECKS=$((TEST_CHECKS + 3))
	awk -v v="$e" -v c=$cap 'BEGIN { exit !(v >= 0.9 * c && v <= 1.1 * c) }' ||
	    fail "$s -> $t exclusive: $e Mbit/s is not within 10 % of the $cap Mbit/s cap"$'\n'"$report"
	awk -v v="$d" -v c=$cap 'BEGIN { exit !(v <= 1.1 * c) }' ||
	    fail "$s -> $t duplex: $d Mbit/s is above the $cap Mbit/s cap"$'\n'"$report"
	awk -v d="$d" -v e="$e" 'BEGIN { r = d / e; exit !(r >= 0.4) }' ||
	    fail "$s -> $t: duplex $d Mbit/s is below 40 % of exclusive $e Mbit/s"$'\n'"$report"
done
for pair in "h1 h3" "h3 h1"; do
	read -r s t <<<"$pair"
	e=$(mbps "$ex" "$s" "$t")
	report="$report$s->$t (sites a and c, no cap) exclusive $e"$'\n'
	TEST_CHECKS=$((TEST_CHECKS + 1))
	awk -v v="$e" -v c=$cap 'BEGIN { exit !(v > 1.5 * c) }' ||
	    fail "$s -> $t between uncapped sites: $e Mbit/s, expected well above b's cap"$'\n'"$report"
done
echo "$report" | tee "$NETPROF_TEST_TMP/wan-iperf-report.txt"

test_pass
