#!/usr/bin/env bash
# The relay symptoms, each produced on a lab and read from what bench and
# heatmap say (the runs without a relay and with a limited one on a second
# lab of sites a-c, beside the run with one site cut off):
#   a: h1 h2 behind a stateful firewall   b: h3 behind a symmetric NAT
#   c: h4 behind a symmetric NAT          d: h5 open
#   relay: a public otela node outside every site (lab.sh --relay)
# - with the relay as --bootstrap: the mesh converges, every probe passes,
#   every record says its path: pairs inside site a direct, h3<->h4 (two
#   symmetric NATs) relayed, pairs into site a from a NAT site relayed, from
#   the open site over the connection site a opened out; the summary counts
#   the classes as the records do; a pair relayed through the public relay
#   takes at least the configured delays of its two legs and is within
#   tolerance of the sum of its two measured legs; a pair between a NAT
#   site and the open one is recorded direct only at a direct round trip
#   and relayed only at a relayed one;
# - without a relay (h1-h4 only): the pairs that cannot dial fail with the
#   node's dial error, inside site a they pass, and heatmap's diagnosis
#   says to add a relay;
# - one site cut off (site c's gateway lets nothing of h4's out but its
#   SSH answers), the relay as --bootstrap, over h3 h4 h5: convergence
#   times out, run.json and the summary name h4 as the host no other
#   host's table lists, and the rest of the pairs are measured;
# - a limited relay (lab.sh --relay relay,limited: 128 KiB and 2 min per
#   circuit) as --bootstrap, over h1 and h3 (whose pairs are relayed):
#   libp2p_ping passes both ways over it, throughput of 10 MiB fails on
#   the circuit's data limit, and heatmap's diagnosis names the spec's
#   "ping works, HTTP fails" (a relay v2 reservation problem). The limited
#   relay is the stand-in whatever otela runs the nodes.
# NETPROF_TEST_OTELA=/path/to/otela runs every node, the relay's too, on
# that binary.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/relay_named.sh"
. "$(dirname "$0")/counters_checks.sh"
require_root
require_cmd nft node jq
require_otela
relay_otela=()
[ -n "${NETPROF_TEST_OTELA:-}" ] && relay_otela=(--relay-otela "$NETPROF_TEST_OTELA")
sites=(--site a=2,firewall --site b=1,nat=symmetric,delay=10
    --site c=1,nat=symmetric,delay=10)
T=$NETPROF_TEST_TMP/relay
rm -rf "$T" && mkdir -p "$T"
# bench_inventory FILE: the inventory of the lab brought up last with the
# nodes on PATH. The stand-in's AutoRelay reserves 300 ms after start (5 s
# otherwise), and a node's start waits up to 2 s (10 s otherwise) on a
# static peer whose firewall drops its dial (site a's, from the NAT sites;
# h4 cut off), then dials it in the background
bench_inventory() {
	jq --arg p "$(otela_setup); export OTELA_FAKE_RELAY_BOOT_MS=300 OTELA_FAKE_DIAL_WAIT_MS=2000" \
	    '.remote_setup = $p' "$LAB_INVENTORY" >"$1"
}
common=(--throughput-count 1 --reachability private)
# (--no-punch in the runs whose pairs cannot all connect, --- b and c:
# the punch step's 5 attempts 2 s apart to each such pair took 10 s of
# each, and no claim of theirs reads it; the dial errors are the probes')
wait_s=()
[ -n "${NETPROF_TEST_OTELA:-}" ] && wait_s=(--converge-wait 120)
ok() { jq -r --arg s "$1" --arg t "$2" 'select(.source==$s and .target==$t)|.ok' "$rec" | sort -u | xargs; }

# --- b: no relay ------------------------------------------------------------
no_relay() {
	out=$T/b
	assert_status 1 "$NETPROF_BIN" bench --config "$inv" --output "$out" --run-id rb \
	    "${common[@]}" --no-punch --latency-count 5 --kinds libp2p_ping,latency --hosts h1,h2,h3,h4 --converge-wait 5
	printf '%s\n' "$OUT" >&2
	rec=$out/measurements.jsonl
	assert_eq true "$(ok h1 h2)" "h1 -> h2 inside the firewalled site, without a relay"
	assert_eq true "$(ok h2 h1)" "h2 -> h1 inside the firewalled site, without a relay"
	for p in h1:h3 h1:h4 h2:h3 h3:h1 h3:h4 h4:h1 h4:h2 h4:h3; do
		assert_eq false "$(ok "${p%:*}" "${p#*:}")" "${p%:*} -> ${p#*:} cannot dial without a relay"
	done
	assert_eq 0 "$(jq -r 'select((.ok|not) and (.error|contains("failed to dial")|not))|.error' "$rec" | wc -l)" \
	    "every failure is the node's dial error"
	assert_contains "$(jq -r 'select(.ok|not)|.error' "$rec")" "all dials failed"
	assert_status 0 "$NETPROF_BIN" heatmap --input "$rec" --input "$out/run.json" --text
	assert_contains "$OUT" "Add a relay node that every peer can reach with --bootstrap."
}

# --- d: a limited relay ----------------------------------------------------
# (its lab's relay: the stand-in whatever otela runs the nodes)
limited_relay() {
	out=$T/d
	# --serial: kind by kind, libp2p_ping first, each probe alone on the
	# circuit; --no-punch: DCUtR on a limited circuit retries for a minute
	assert_status 1 "$NETPROF_BIN" bench --config "$inv" --output "$out" --run-id rd \
	    "${common[@]}" "${wait_s[@]}" --latency-count 3 --hosts h1,h3 --serial --no-punch \
	    --kinds libp2p_ping,latency,throughput --throughput-bytes 10485760 \
	    --bootstrap "relay=$LAB_RELAY_ADDR" --relay-circuits
	printf '%s\n' "$OUT" >&2
	rec=$out/measurements.jsonl
	probe() { jq -r --arg s "$1" --arg t "$2" --arg k "$3" 'select(.source==$s and .target==$t and .kind==$k)|"\(.ok) \(.path)"' "$rec"; }
	for p in h1:h3 h3:h1; do
		s=${p%:*} t=${p#*:}
		assert_eq "true relayed" "$(probe "$s" "$t" libp2p_ping)" "$s -> $t: libp2p_ping over the limited relay"
		assert_eq "false relayed" "$(probe "$s" "$t" throughput)" "$s -> $t: 10 MiB over the limited relay fails"
		echo "$s -> $t latency: $(probe "$s" "$t" latency)" >&2
	done
	# (the real node's dial errors run over several lines: counted as records)
	jq -r 'select(.kind=="throughput" and (.ok|not))|"\(.source) -> \(.target): \(.error)"' "$rec" >&2
	assert_eq 2 "$(jq -s '[.[] | select(.kind=="throughput" and (.ok|not))] | length' "$rec")" \
	    "the two throughput probes failed"
	assert_status 0 "$NETPROF_BIN" heatmap --input "$rec" --input "$out/run.json" --text
	printf '%s\n' "$OUT" >&2
	assert_contains "$OUT" "h1 <-> h3: HTTP over libp2p fails while libp2p_ping works: a relay v2 reservation problem"
}

lab_up trelay 5 "${sites[@]}" --site d=1 --relay relay,delay=10 "${relay_otela[@]}"
inv=$T/bench.json
bench_inventory "$inv"

# The runs without a relay (--- b) and with a limited one (--- d) go on
# beside the cut-off one (--- c), on a lab of their own: sites a-c again,
# its relay limited (b gives the nodes none). They start once the first
# run (--- a), whose round trips are its claims, has ended; their output
# is shown at the end.
beside() {
	_at_exit_cmds=()	# its own: its lab
	trap _run_at_exit EXIT
	trap 'exit 130' INT TERM
	lab_up trelayd 4 "${sites[@]}" --relay relay,limited,delay=10
	inv=$T/bench-beside.json
	bench_inventory "$inv"
	until [ -e "$T/a.done" ]; do sleep 0.5; done
	no_relay
	limited_relay
	echo "$TEST_CHECKS" >"$T/beside.checks"
}
beside >"$T/beside.log" 2>&1 &
beside_pid=$!
at_exit "kill $beside_pid 2>/dev/null; wait $beside_pid 2>/dev/null; cat '$T/beside.log' >&2"

# --- a: the relay as --bootstrap ------------------------------------------
# --serial: every circuit crosses the one relay, and probes at once would
# measure each other there (the stand-in's relay is a Node.js process); 5
# samples a pair, whose fastest is held against the legs' fastest; 256 KiB
# of throughput a pair (that it passes on every path is the claim)
out=$T/a
assert_status 0 "$NETPROF_BIN" bench --config "$inv" --output "$out" --run-id ra \
    "${common[@]}" "${wait_s[@]}" --latency-count 5 --throughput-bytes 262144 --serial \
    --bootstrap "relay=$LAB_RELAY_ADDR" --relay-circuits
summary=$OUT
printf '%s\n' "$summary" >&2
rec=$out/measurements.jsonl
for h in h1 h2 h3 h4 h5; do
	assert_eq true "$(jq -r ".convergence.$h.complete" "$out/run.json")" "$h converged"
done
assert_eq 0 "$(jq -r 'select(.ok|not)' "$rec" | wc -l)" "every probe passed"
assert_eq 0 "$(jq -r 'select(.path != "direct" and .path != "hole-punched" and .path != "relayed")' "$rec" | wc -l)" \
    "every record names its path"
path() { jq -r --arg s "$1" --arg t "$2" 'select(.source==$s and .target==$t)|.path' "$rec" | sort -u | xargs; }
assert_eq direct "$(path h1 h2)" "h1 -> h2 inside the firewalled site"
assert_eq direct "$(path h2 h1)" "h2 -> h1 inside the firewalled site"
assert_eq relayed "$(path h3 h4)" "h3 -> h4 between two symmetric NATs"
assert_eq relayed "$(path h4 h3)" "h4 -> h3 between two symmetric NATs"
for s in h3 h4; do
	for t in h1 h2; do
		assert_eq relayed "$(path $s $t)" "$s -> $t from a NAT site into the firewalled one"
	done
done
for t in h1 h2; do
	# what the open site gets into site a: measured, whichever it is
	p=$(path h5 $t)
	case $p in direct|hole-punched|relayed) ;; *) fail "h5 -> $t: '$p'" ;; esac
	echo "h5 -> $t (into the firewalled site): $p" >&2
done
for h in h1 h2 h3 h4 h5; do
	assert_eq direct "$(path $h relay)" "$h -> relay: the relay is public"
done
assert_eq 0 "$(jq -r 'select(.path == "relayed" and (.relay == null or .relay_peer_id == null))' "$rec" | wc -l)" \
    "every relayed record names its relay"
# the summary counts the host pairs by class as the records say
count() { jq -r 'select(.target != "relay")|[.source,.target,.path]|@tsv' "$rec" | sort -u | awk -v c="$1" '$3 == c' | wc -l | xargs; }
assert_contains "$summary" "pairs: $(count direct) direct, $(count hole-punched) hole-punched, $(count relayed) relayed, 0 not connected"
assert_contains "$summary" "h3->h4 relayed through "

# a relayed pair's round trip (libp2p_ping's fastest sample) against its
# legs through the public relay: at least the configured delays on the way
# (each leg's sites' links, both ways), and within tolerance of the sum of
# its two legs' fastest measured samples. Only the pairs recorded through
# the public relay: any OpenTela node relays, and a pair recorded through
# another (the target's relay_peer, an inference) may have taken the
# public relay's circuit, whose address --relay-circuits gave every node.
delay_of() { case $1 in h3|h4|relay) echo 10 ;; *) echo 0 ;; esac; }
minp() { jq -r --arg s "$1" --arg t "$2" 'select(.kind=="libp2p_ping" and .source==$s and .target==$t)|"\(.metrics.min_ms) \(.path)"' "$rec"; }
checked=0
while read -r s t r; do
	read -r got _ <<<"$(minp "$s" "$t")"
	read -r l1 p1 <<<"$(minp "$s" "$r")"
	read -r l2 p2 <<<"$(minp "$t" "$r")"
	[ "$p1 $p2" = "direct direct" ] || continue
	floor=$(( 2 * ($(delay_of "$s") + 2 * $(delay_of "$r") + $(delay_of "$t")) ))
	echo "$s -> $t through $r: $got ms; legs $l1 + $l2 ms; configured $floor ms" >&2
	awk -v g="$got" -v f="$floor" 'BEGIN { exit !(g >= f - 1) }' ||
		fail "$s -> $t through $r: $got ms, under the configured $floor ms of its legs"
	awk -v g="$got" -v a="$l1" -v b="$l2" 'BEGIN { s = a + b; exit !(g >= 0.7 * s - 2 && g <= 1.5 * s + 10) }' ||
		fail "$s -> $t through $r: $got ms, not within tolerance of its legs' $l1 + $l2 ms"
	checked=$((checked + 1))
done < <(jq -r 'select(.kind=="libp2p_ping" and .path=="relayed" and .relay=="relay")|"\(.source) \(.target) \(.relay)"' "$rec")
[ "$checked" -ge 2 ] || fail "only $checked pairs recorded through the relay had both legs direct"

# between a NAT site and the open one either path can carry a pair: the
# NAT host dials h5 direct, or the circuit h5's own first dial opened
# through the relay stays in use (the real node's swarm keeps it). The
# record says the one its round trip shows: direct is 2 x 10 ms
# configured, through the relay 2 x (10 + 10) + 2 x 10 = 60 ms; 40 ms
# lies between.
for s in h3 h4; do
	for st in "$s h5" "h5 $s"; do
		read -r a b <<<"$st"
		read -r got p <<<"$(minp "$a" "$b")"
		echo "$a -> $b: $p, fastest libp2p_ping $got ms" >&2
		case $p in
		direct) awk -v g="$got" 'BEGIN { exit !(g < 40) }' ||
			fail "$a -> $b recorded direct at $got ms, the round trip through the relay (60 ms configured, direct 20)" ;;
		relayed) awk -v g="$got" 'BEGIN { exit !(g >= 40) }' ||
			fail "$a -> $b recorded relayed at $got ms, a direct round trip (20 ms configured, through the relay 60)" ;;
		*) fail "$a -> $b: path '$p'" ;;
		esac
		TEST_CHECKS=$((TEST_CHECKS + 1))
	done
done

relay_named_checks "$T/a" relay "$LAB_RELAY_ADDR"
counters_checks "$T/a"
touch "$T/a.done"

# --- c: one site cut off --------------------------------------------------
# Site c's gateway drops whatever h4 opens towards the lab but this
# machine (its SSH answers go on): h4's node reaches no peer and the relay,
# nothing reaches it.
lab run gw-c -- nft insert rule inet lab forward iifname eth1 oifname eth0 \
    ip daddr != "198.18.$LAB_SUBNET.1" drop
out=$T/c
cwait=5
[ -n "${NETPROF_TEST_OTELA:-}" ] && cwait=30
assert_status 1 "$NETPROF_BIN" bench --config "$inv" --output "$out" --run-id rc \
    "${common[@]}" --no-punch --latency-count 3 --kinds libp2p_ping,latency --hosts h3,h4,h5 \
    --converge-wait "$cwait" --bootstrap "relay=$LAB_RELAY_ADDR" --relay-circuits
summary=$OUT
printf '%s\n' "$summary" >&2
rec=$out/measurements.jsonl
missing() { jq -r --arg h "$1" '.convergence[$h] | "\(.complete) \(.missing // [] | sort | join(","))"' "$out/run.json"; }
assert_eq "false h3,h5" "$(missing h4)" "h4, cut off, lists neither peer"
assert_eq "false h4" "$(missing h3)" "h3 lacks only h4"
assert_eq "false h4" "$(missing h5)" "h5 lacks only h4"
assert_contains "$summary" "h4 did not converge: 2 peers missing (h3, h5)"
assert_contains "$summary" "h3 did not converge: 1 peer missing (h4)"
assert_contains "$summary" "in no other host's table (cut off from the mesh): h4"$'\n'
for p in h3:h5 h5:h3 h3:relay h5:relay; do
	assert_eq true "$(ok "${p%:*}" "${p#*:}")" "${p%:*} -> ${p#*:} measured while h4 is cut off"
done
for p in h3:h4 h5:h4 h4:h3 h4:h5 h4:relay; do
	assert_eq false "$(ok "${p%:*}" "${p#*:}")" "${p%:*} -> ${p#*:} fails: h4 is cut off"
done

wait "$beside_pid" || fail "the runs beside failed (their log follows)"
TEST_CHECKS=$((TEST_CHECKS + $(cat "$T/beside.checks")))
test_pass
