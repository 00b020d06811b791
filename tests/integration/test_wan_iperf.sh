#!/usr/bin/env bash
# iperf3 over a lab with distance where one site's link is capped by its
# wirefilter: every pair across the capped link measures its cap within
# 10 % when tests are exclusive; the pair between the two wider sites
# measures their rate within 10 % (a pair out of it gets a second
# exclusive round, the higher rate the pair's).
#
# --iperf-mode duplex on the capped link is a finding (docs/lab.md): the
# host behind the cap is client and server at once, and each test's ACKs
# queue behind the other test's data in the link's one queue per
# direction, so duplex measures 0.52-0.98 of exclusive there (a test from
# the host behind the cap the lower). The test holds what is true of it:
# never above the cap (+10 %), never below 40 % of exclusive, and it
# prints the ratios and the hosts' congestion control.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd iperf3 jq wirefilter vde_switch unixcmd

cap=30		# Mbit/s, well under what a userspace hop carries (docs/lab.md)
# Sites a and c have a rate too, well above b's and well under what the
# emulator carries: a link without one is bounded only by the emulator's
# CPU, and a flow that fills it (300+ Mbit/s, thousands of drops in the
# core switch) delays the capped tests of the same duplex round, which no
# real network does (docs/lab.md).
wide=100	# Mbit/s, sites a and c
lab_up wiperf 3 --site a=1,delay=2,rate=${wide}mbit --site b=1,delay=3,rate=${cap}mbit \
    --site c=1,delay=2,rate=${wide}mbit --home delay=1
inv=$LAB_INVENTORY

ex=$NETPROF_TEST_TMP/wan-iperf-exclusive
du=$NETPROF_TEST_TMP/wan-iperf-duplex.jsonl
rm -f "$ex".*.jsonl "$du"
runs=0
exclusive_round() {
	runs=$((runs + 1))
	assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$ex.$runs.jsonl" \
	    --ping-count 2 --ping-interval 0.2 --iperf --iperf-seconds 4
	assert_eq "6 exclusive" "$(jq -r 'select(.kind=="iperf3" and .ok)|.mode' "$ex.$runs.jsonl" | uniq -c | awk '{print $1, $2}')" \
	    "exclusive: 6 tests ok"
}
exclusive_round
assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$du" \
    --ping-count 2 --ping-interval 0.2 --iperf --iperf-seconds 4 \
    --iperf-mode duplex
assert_eq "6 duplex" "$(jq -r 'select(.kind=="iperf3" and .ok)|.mode' "$du" | uniq -c | awk '{print $1, $2}')" \
    "duplex: 6 tests ok"

# mbps FILE... S T: the pair's highest rate in the files (load on the two
# shared cores only takes from a transfer)
mbps() {
	local t=${*: -1} s=${*: -2:1}
	cat "${@:1:$#-2}" | jq -r --arg s "$s" --arg t "$t" \
	    'select(.kind=="iperf3" and .source==$s and .target==$t)|.metrics.mbps' |
	    sort -g | tail -1
}
# A burst of load on the lab's two cores (other tests' nodes) once held
# an exclusive test at 24.6 and another at 26.4 Mbit/s on the 30 Mbit/s
# cap while every other pair measured it: a pair out of 10 % gets a
# second exclusive round, and its higher rate is the pair's. A rate that
# is netprof's doing (a wrong unit, a test cut short) is there twice.
for pair in "h1 h2" "h2 h1" "h3 h2" "h2 h3" "h1 h3" "h3 h1"; do
	read -r s t <<<"$pair"
	c=$cap
	case $pair in "h1 h3"|"h3 h1") c=$wide ;; esac
	awk -v v="$(mbps "$ex".1.jsonl "$s" "$t")" -v c="$c" \
	    'BEGIN { exit !(v >= 0.9 * c && v <= 1.1 * c) }' && continue
	echo "round 1: $s -> $t exclusive $(mbps "$ex".1.jsonl "$s" "$t") Mbit/s, cap $c: a second round" >&2
	exclusive_round
	break
done
# the hosts' TCP congestion control (the machine's): duplex depends on it
report="congestion control $(lab run h2 -- sysctl -n net.ipv4.tcp_congestion_control); exclusive rounds $runs"$'\n'
for pair in "h1 h2" "h2 h1" "h3 h2" "h2 h3"; do
	read -r s t <<<"$pair"
	e=$(mbps "$ex".*.jsonl "$s" "$t") d=$(mbps "$du" "$s" "$t")
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
	e=$(mbps "$ex".*.jsonl "$s" "$t")
	report="$report$s->$t (sites a and c, $wide Mbit/s) exclusive $e"$'\n'
	TEST_CHECKS=$((TEST_CHECKS + 1))
	awk -v v="$e" -v c=$wide 'BEGIN { exit !(v >= 0.9 * c && v <= 1.1 * c) }' ||
	    fail "$s -> $t between sites a and c: $e Mbit/s is not within 10 % of their $wide Mbit/s"$'\n'"$report"
done
echo "$report" | tee "$NETPROF_TEST_TMP/wan-iperf-report.txt"

test_pass
