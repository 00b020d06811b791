#!/usr/bin/env bash
# heatmap --text's headings, byte for byte, no host contacted: each kind's
# range in one unit (µs only when both ends are below a millisecond, else
# the unit after the second end); the scale its colours are on (against
# the site pair's typical value where there are sites, else the range's
# best to worst) and the key that says what the colours mean; a derived
# kind (overlay, path) counts its pairs with a value, not records it has
# none of; the path's classes in words; and with stderr on the same stream
# the line about the page written comes after the table, not inside it.
. "$(dirname "$0")/lib.sh"

T=$NETPROF_TEST_TMP/heatmap-text
rm -rf "$T"
mkdir -p "$T"
cd "$T" || exit 1
W=$NETPROF_FIXTURES/wan
wan=(--input "$W/collect.jsonl" --input "$W/measurements.jsonl"
    --input "$W/run-sites.json" --input "$W/paths.jsonl")
# the first heading of kind $1 (the overlay has one per ratio)
heading() { grep -m1 "^$1: " <<<"$OUT"; }

OUT=$("$NETPROF_BIN" heatmap "${wan[@]}" --text 2>/dev/null) || fail "heatmap: exit $?"
assert_eq "ping: avg (ms), lower is better, range 0.298 .. 151 ms; colour: p50 vs typical; 72 records, 0 failed" \
    "$(heading ping)" "ping's heading"
assert_eq "iperf3: mbps (Mbit/s), higher is better, range 20.0 .. 953 Mbit/s; colour: mbps vs typical; 72 records, 0 failed" \
    "$(heading iperf3)" "iperf3's heading"
assert_eq "overlay: libp2p_ping_x_rtt (x ICMP RTT), lower is better, range 0.692 .. 1.88 x ICMP RTT; colour: libp2p_ping_x_rtt vs typical; 72 pairs with a value" \
    "$(heading overlay)" "the overlay counts its pairs"
assert_eq "path: class: 1 direct, 2 hole-punched, 3 relayed; 4 pairs with a value" \
    "$(heading path)" "the path's classes in words"
assert_contains "$OUT" "Colours (on a terminal): a cell against its site pair's typical value (the diagnosis'), green at or better, yellow twice as far off, red named by the diagnosis."

# The overlay's other ratios, each a matrix coloured on its range:
# connect in round trips of the ICMP RTT, libp2p throughput over iperf3's;
# a connect the node did not know (400) is neither a cell nor a failure.
OUT=$("$NETPROF_BIN" heatmap --input "$NETPROF_FIXTURES/heatmap/connect.jsonl" --text 2>/dev/null) ||
	fail "heatmap connect.jsonl: exit $?"
assert_eq "connect: p50_ms (ms), lower is better, range 4 .. 100 ms; colour: its range; 3 records, 0 failed" \
    "$(heading connect)" "connect's heading"
assert_eq "overlay: throughput_x_iperf3 (x iperf3), higher is better, range 0.18 .. 0.5 x iperf3; colour: its range; 5 pairs with a value" \
    "$(grep '^overlay: throughput_x_iperf3 ' <<<"$OUT")" "libp2p over iperf3"
assert_eq "overlay: connect_x_rtt (x ICMP RTT), lower is better, range 3 .. 5 x ICMP RTT; colour: its range; 5 pairs with a value" \
    "$(grep '^overlay: connect_x_rtt ' <<<"$OUT")" "connect in round trips"
assert_eq "2 b         3 |   -   4" "$(grep -A4 '^overlay: connect_x_rtt ' <<<"$OUT" | grep '^2 b')" \
    "b->a 3 round trips, b->c 4 ms over the 1 ms floor"
assert_contains "$OUT" "Failures: none."

# No sites: each matrix's range, which the key says.
OUT=$("$NETPROF_BIN" heatmap --input "$W/collect.jsonl" --group-by none --text 2>/dev/null)
assert_eq "ping: avg (ms), lower is better, range 0.298 .. 151 ms; 72 records, 0 failed" \
    "$(heading ping)" "without sites"

# Both ends below a millisecond: both in µs.
printf '%s\n' '{"kind":"ping","source":"a","target":"b","ok":true,"metrics":{"avg":0.047}}' \
    '{"kind":"ping","source":"b","target":"a","ok":true,"metrics":{"avg":0.3}}' >us.jsonl
OUT=$("$NETPROF_BIN" heatmap --input us.jsonl --text 2>/dev/null)
assert_eq "ping: avg (ms), lower is better, range 47µs .. 300µs; 2 records, 0 failed" \
    "$(heading ping)" "a range in µs"
assert_contains "$OUT" "Colours (on a terminal): each matrix's range, its best green to its worst red."

# stdout and stderr one stream: "wrote" is a line of its own, the last.
OUT=$("$NETPROF_BIN" heatmap "${wan[@]}" --text --output page.html 2>&1) || fail "heatmap: exit $?"
assert_eq 1 "$(grep -c wrote <<<"$OUT")" "one line about the page"
assert_eq "wrote page.html (9 hosts, 5 kinds, 364 records, 0 failed)" "$(tail -n 1 <<<"$OUT")" \
    "the page's line after the table"
cd / && rm -rf "$T"
test_pass
