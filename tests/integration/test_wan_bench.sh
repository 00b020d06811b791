#!/usr/bin/env bash
# bench on a lab with distance (two sites and home behind wirefilters):
# every probe ok; no libp2p_ping p50 below the configured RTT (less 1 ms)
# nor below --baseline's ICMP p50 of the same pair (the overlay cannot beat
# the link); latency (HTTP over libp2p) not below ICMP either, and its
# fastest sample not below libp2p_ping's (less 1 ms; with the stand-in, less
# its own spread too).
# With the real otela (NETPROF_TEST_OTELA) also the target: libp2p_ping
# p50 within 10 % + 2 ms of the configured RTT, and latency within 10 % +
# 2 ms of libp2p_ping (one round trip on a kept-alive stream). With the
# stand-in that target does not hold on this machine: the Node.js node
# adds 4-38 ms of its own CPU per round trip under load (docs/lab.md); the
# test prints the excess either way.
# throughput through site b's 30 Mbit/s cap, as test_wan_iperf holds
# collect's iperf3: bench's default (auto: the pairs across sites
# exclusive, site a's h1-h2 both ways at once) and --throughput-mode duplex
# (collect's duplex rounds: N-1, each node the source of one transfer and
# the target of another) each get a rate for every pair, none above the
# cap (+10 %): load on the machine only takes from a transfer.
# With NETPROF_TEST_FIDELITY=1 (tests/perf/wan_fidelity.sh runs it so) also
# how close to the cap they come, which load spoils: exclusive not below
# 60 % of it (the stand-in's transfer counts its request and TCP's start,
# 0.85-0.9 of the cap; a pair out of range gets a second exclusive run, the
# higher rate the pair's), duplex not below 40 % of exclusive (its
# replies queue behind the other direction's data in the capped link:
# 0.70-0.99 measured).
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh jq node ping wirefilter vde_switch unixcmd
require_otela

cap=30		# Mbit/s, site b's link; site a's 100, well under the emulator's
lab_up wbench 3 --site a=2,delay=4 --site b=1,delay=8 --home delay=2
topo=$LAB_TOPOLOGY
inv=$NETPROF_TEST_TMP/wan-bench.json
jq --arg s "$(otela_setup real-timing)" '.remote_setup = $s' "$LAB_INVENTORY" >"$inv"

out=$NETPROF_TEST_TMP/wan-bench
rm -rf "$out"
assert_status 0 "$NETPROF_BIN" -q bench --config "$inv" --output "$out" \
    --kinds libp2p_ping,latency --latency-count 20 --baseline
rec=$out/measurements.jsonl
assert_eq 18 "$(jq -r 'select(.ok)|.kind' "$rec" | wc -l)" "6 pairs x (libp2p_ping, latency, ping), all ok"

report=""
for s in $LAB_HOSTS; do
	for t in $LAB_HOSTS; do
		[ "$s" = "$t" ] && continue
		want=$(jq ".rtt_ms.$s.$t" "$topo")
		get() {
			jq -r --arg s "$s" --arg t "$t" --arg k "$1" \
			    "select(.source==\$s and .target==\$t and .kind==\$k)|.metrics.$2" "$rec"
		}
		p2p=$(get libp2p_ping p50_ms) lat=$(get latency p50_ms) icmp=$(get ping p50)
		report="$report$s->$t configured $want libp2p_ping $p2p latency $lat ping $icmp excess $(awk -v p="$p2p" -v i="$icmp" 'BEGIN { printf "%.1f", p - i }') ms"$'\n'
		TEST_CHECKS=$((TEST_CHECKS + 3))
		awk -v v="$p2p" -v w="$want" 'BEGIN { exit !(v >= w - 1) }' ||
		    fail "$s -> $t: libp2p_ping p50 $p2p ms is below the configured $want ms"$'\n'"$report"
		awk -v v="$p2p" -v i="$icmp" 'BEGIN { exit !(v >= i - 1) }' ||
		    fail "$s -> $t: libp2p_ping p50 $p2p ms is below ICMP's $icmp ms"$'\n'"$report"
		# Both are one round trip on a kept-alive stream (the real
		# node's transport, and the stand-in's since it copies it), so
		# their medians differ by the node's own noise, which on the
		# stand-in is milliseconds (a p50 of latency 2.6 ms under
		# libp2p_ping's 3.7 inside a site, both 3-4 ms over ICMP). What
		# holds: the HTTP round trip cannot beat the link (p50 not below
		# ICMP's), and its floor is not below the ping's (min against
		# min), each less the 1 ms of the emulator's clock.
		# With the stand-in, less its own spread too: the Node.js
		# node's CPU per round trip (libp2p_ping's p50 less its min,
		# 1-10 ms here) puts its ping's floor 1-5 ms above its HTTP's
		# in some runs, serial or not; the real node is held to 1 ms.
		lmin=$(get latency min_ms) pmin=$(get libp2p_ping min_ms)
		slack=1
		[ -n "${NETPROF_TEST_OTELA:-}" ] ||
		    slack=$(awk -v p="$p2p" -v m="$pmin" 'BEGIN { print 1 + p - m }')
		TEST_CHECKS=$((TEST_CHECKS + 1))
		awk -v l="$lat" -v i="$icmp" 'BEGIN { exit !(l >= i - 1) }' ||
		    fail "$s -> $t: latency p50 $lat ms is below ICMP's $icmp ms"$'\n'"$report"
		awk -v l="$lmin" -v p="$pmin" -v k="$slack" 'BEGIN { exit !(l >= p - k) }' ||
		    fail "$s -> $t: latency's fastest sample $lmin ms is below libp2p_ping's $pmin ms (less $slack ms)"$'\n'"$report"
		if [ -n "${NETPROF_TEST_OTELA:-}" ]; then
			TEST_CHECKS=$((TEST_CHECKS + 2))
			awk -v v="$p2p" -v w="$want" 'BEGIN { exit !(v <= w * 1.1 + 2) }' ||
			    fail "$s -> $t: the real node's libp2p_ping p50 $p2p ms is not within 10 % + 2 ms of the configured $want ms"$'\n'"$report"
			# a request per sample on a kept-alive stream: one round
			# trip, not the two a new stream would add
			awk -v l="$lat" -v p="$p2p" 'BEGIN { exit !(l <= p * 1.1 + 2) }' ||
			    fail "$s -> $t: the real node's latency p50 $lat ms is not within 10 % + 2 ms of its libp2p_ping $p2p ms (a stream per sample?)"$'\n'"$report"
		fi
	done
done

# throughput in exclusive rounds, then in duplex rounds, each a run of its
# own (the stand-in's short waits: only the sweep is measured here)
# the caps from here on only (a capped link's queue would add to the
# light probes' round trips above)
lab link a rate 100mbit >/dev/null
lab link b rate ${cap}mbit >/dev/null
jq --arg s "$(otela_setup)" '.remote_setup = $s' "$LAB_INVENTORY" >"$inv.short"
# a transfer of 1 MiB in the suite (a rate measured from the request to the
# last byte cannot pass the link's however short), 4 MiB for fidelity
fidelity=${NETPROF_TEST_FIDELITY:-}
bytes=1048576
[ -n "$fidelity" ] && bytes=4194304
ex=$NETPROF_TEST_TMP/wan-bench-exclusive
rm -rf "$ex".*
runs=0
exclusive_round() {
	runs=$((runs + 1))
	assert_status 0 "$NETPROF_BIN" -q bench --config "$inv.short" --output "$ex.$runs" \
	    --kinds throughput --throughput-bytes $bytes --no-punch
	assert_eq 6 "$(jq -r 'select(.ok)|.kind' "$ex.$runs/measurements.jsonl" | wc -l)" \
	    "6 pairs x throughput, exclusive, all ok"
	check_sites_both_ways "$ex.$runs"
}
# The default's pairs both ways at once are those of one site: h1-h2 (a),
# in one round; the pairs with h3 (site b, across the cap) exclusive,
# each in a round of its own.
check_sites_both_ways() {
	assert_eq auto "$(jq -r .config.throughput_mode "$1/run.json")" "auto by default"
	assert_eq "h1 h2" "$(jq -r '.config.throughput_both_ways[]|sort|join(" ")' "$1/run.json")" \
	    "both ways: site a's pair alone"
	assert_eq 1 "$(jq -r 'select(.source!="h3" and .target!="h3")|.round' "$1/measurements.jsonl" | sort -u | wc -l)" \
	    "h1->h2 and h2->h1 in one round"
	assert_eq 4 "$(jq -r 'select(.source=="h3" or .target=="h3")|.round' "$1/measurements.jsonl" | sort -u | wc -l)" \
	    "the pairs across sites in rounds of their own"
}
exclusive_round
du=$NETPROF_TEST_TMP/wan-bench-duplex
rm -rf "$du"
assert_status 0 "$NETPROF_BIN" -q bench --config "$inv.short" --output "$du" \
    --kinds throughput --throughput-bytes $bytes --throughput-mode duplex --no-punch
assert_eq "duplex" "$(jq -r .config.throughput_mode "$du/run.json")" "duplex in run.json"
assert_eq "2" "$(jq -r 'select(.ok)|.round' "$du/measurements.jsonl" | sort -un | wc -l)" \
    "N-1 = 2 duplex rounds, all ok"
# mbps FILE... S T: the pair's highest rate in the files (load on the two
# shared cores only takes from a transfer)
mbps() {
	local t=${*: -1} s=${*: -2:1}
	cat "${@:1:$#-2}" | jq -r --arg s "$s" --arg t "$t" \
	    'select(.kind=="throughput" and .source==$s and .target==$t)|.metrics.mbps' |
	    sort -g | tail -1
}
# A burst of load (a Slurm test's daemons beside this one) once held one
# exclusive transfer at 15.0 Mbit/s on the 30 Mbit/s cap, its duplex
# round at 25.3: a pair out of range gets a second exclusive run, and its
# higher rate is the pair's. A rate that is bench's doing is there twice.
for pair in "h1 h3" "h3 h1" "h2 h3" "h3 h2"; do
	[ -n "$fidelity" ] || break
	read -r s t <<<"$pair"
	awk -v v="$(mbps "$ex.1/measurements.jsonl" "$s" "$t")" -v c=$cap \
	    'BEGIN { exit !(v >= 0.6 * c && v <= 1.1 * c) }' && continue
	echo "run 1: $s -> $t exclusive $(mbps "$ex.1/measurements.jsonl" "$s" "$t") Mbit/s: a second run" >&2
	exclusive_round
	break
done
report="${report}exclusive runs: $runs"$'\n'
for pair in "h1 h3" "h3 h1" "h2 h3" "h3 h2"; do
	read -r s t <<<"$pair"
	e=$(mbps "$ex".*/measurements.jsonl "$s" "$t") d=$(mbps "$du/measurements.jsonl" "$s" "$t")
	report="$report$s->$t throughput through b's $cap Mbit/s: exclusive $e, duplex $d Mbit/s, ratio $(awk -v d="$d" -v e="$e" 'BEGIN { printf "%.2f", d / e }')"$'\n'
	TEST_CHECKS=$((TEST_CHECKS + 2))
	awk -v v="$e" -v c=$cap 'BEGIN { exit !(v > 0 && v <= 1.1 * c) }' ||
	    fail "$s -> $t exclusive: $e Mbit/s is above the $cap Mbit/s cap (or none)"$'\n'"$report"
	awk -v v="$d" -v c=$cap 'BEGIN { exit !(v > 0 && v <= 1.1 * c) }' ||
	    fail "$s -> $t duplex: $d Mbit/s is above the $cap Mbit/s cap (or none)"$'\n'"$report"
	[ -n "$fidelity" ] || continue
	TEST_CHECKS=$((TEST_CHECKS + 2))
	awk -v v="$e" -v c=$cap 'BEGIN { exit !(v >= 0.6 * c) }' ||
	    fail "$s -> $t exclusive: $e Mbit/s is below 60 % of the $cap Mbit/s cap"$'\n'"$report"
	awk -v d="$d" -v e="$e" 'BEGIN { exit !(d >= 0.4 * e) }' ||
	    fail "$s -> $t: duplex $d Mbit/s is below 40 % of exclusive $e Mbit/s"$'\n'"$report"
done
echo "$report" | tee "$NETPROF_TEST_TMP/wan-bench-report.txt"
sleep 0.3
left=$(for p in $(lab pids); do ps -o pid=,args= -p "$p" 2>/dev/null; done || true)
assert_eq "" "$left" "nothing left in the lab after bench"

test_pass
