#!/usr/bin/env bash
# heatmap --advise proven on the lab: its advice taken from a first bench
# run, applied, and a second run measured against the prediction.
#   a: h1 h2 behind a stateful firewall, 10 ms from the core
#   b: h3 behind a stateful firewall, 20 ms from the core
#   n: h4 open, 5 ms from the core (near both, nearest site a)
#   f: h5 open, 60 ms from the core (far from both)
# h1 <-> h3 and h2 <-> h3 cannot dial each other either way: they meet
# only through a circuit. Run 1 makes the far host h5 the one public node
# (a node relays only while public), so the firewalled nodes reserve
# there: the worse relay, by construction. heatmap --advise on run 1
# gives h1, h2 and h3 the near host h4; its patch (h4 public, here the
# only change) is applied to a copy of the inventory, h5 left private as
# the advice did not choose it, and run 2 measures:
# - the advice: h4 for every firewalled host, the patch h4 alone public
#   (applied: its relays alone public in run 2);
# - in each run no member but the public one relays (every other
#   member's relay_circuits_served is 0);
# - run 1's relayed pairs went through h5, run 2's through h4;
# - per host, the median of its relayed pairs' libp2p_ping p50 in run 2
#   is within 10 % of the prediction made, as the advice makes it
#   (heatmap --advise, the legs' sum), from run 2's own legs, judged
#   when run 2's direct legs are near their configured round trips (a
#   loaded machine's are not, and then neither is anything timed); and
#   lower than run 1's (2.5x apart by construction), judged when both
#   runs' legs are. A relayed record the nodes' own counters contradict
#   (path_evidence) is no relayed measurement and is left out.
# Run 2 runs one probe at a time (--serial): in the sweep's overlap the
# relay is an end of other probes while it forwards, and every probe
# starts its client on its source; a relayed probe, 2-3x as long as a
# leg's, sits through more of that (in one of two overlapped runs at a
# load of 5-7 the relayed pairs came out 8-15 % over their own legs; one
# at a time 0-7 % in four). How close run 2 comes to run 1's
# prediction, the advice's own figure, is fidelity: legs measured
# minutes apart under another test's load are not the same legs.
# NETPROF_TEST_FIDELITY=1 (tests/perf/relay_advice.sh sets it, on a
# quiet machine) runs run 1 one probe at a time too and holds run 2
# within 10 % of that prediction.
# The stand-in by default; NETPROF_TEST_OTELA=/path/to/otela runs every
# node on that binary. The real node is held to the advice where it
# measured both legs through h4 (its dials fail now and then on the lab,
# "dial backoff", or TLS where both ends dial at once, and then a leg is
# missing), to the patch applied and to which members relay; which relay
# each pair used and the figures are reported, and the timing held for a
# host only where its pairs were relayed: the real node learns no circuit
# address of a peer it cannot dial through a member of the mesh (its
# AutoRelay announces none for a relay at a private address, and bench's
# --relay-circuits gives them only through a --bootstrap relay), so its
# pairs between the sites are connected by the two ends' own
# simultaneous dials through both firewalls (recorded hole-punched) or
# not at all.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd nft node jq
require_otela
sites=(--site a=2,firewall,delay=10 --site b=1,firewall,delay=20
    --site n=1,delay=5 --site f=1,delay=60)
lab_up tadvice 5 "${sites[@]}"
T=$NETPROF_TEST_TMP/relay-advice
rm -rf "$T" && mkdir -p "$T"
# the stand-in's AutoRelay reserves 300 ms after start, and a node's start
# waits up to 2 s on a static peer whose firewall drops its dial
setup="$(otela_setup); export OTELA_FAKE_RELAY_BOOT_MS=300 OTELA_FAKE_DIAL_WAIT_MS=2000"
public_h5=$(jq --arg p "$setup" '.remote_setup = $p |
    (.machines[] | select(.name == "h5")).remote_setup = $p + "; export NETPROF_OF_REACHABILITY=public"' \
    "$LAB_INVENTORY")
printf '%s\n' "$public_h5" >"$T/run1.json"
# one kind, few samples, no punch step (a punched pair would not need the
# relay); the real node's mesh needs longer to converge
common=(--kinds libp2p_ping --latency-count 9 --reachability private --no-punch)
[ -n "${NETPROF_TEST_OTELA:-}" ] && common+=(--converge-wait 120)
serial1=()
[ -z "${NETPROF_TEST_FIDELITY:-}" ] || serial1=(--serial)
relayed_pairs='h1 h3|h3 h1|h2 h3|h3 h2'
bench_run() {
	local inv=$1 out=$2 id=$3 rc=0
	shift 3
	"$NETPROF_BIN" bench --config "$inv" --output "$out" --run-id "$id" \
	    "${common[@]}" "$@" >"$out.summary" 2>&1 || rc=$?
	cat "$out.summary" >&2
	# the stand-in gets every probe through; the real node is reported
	[ -n "${NETPROF_TEST_OTELA:-}" ] || [ $rc = 0 ] ||
	    fail "bench $id: exit $rc"
	TEST_CHECKS=$((TEST_CHECKS + 1))
}
# relay_of RUN S T: the relay the pair's record names ("" if not relayed)
relay_of() {
	jq -r --arg s "$2" --arg t "$3" 'select(.kind == "libp2p_ping" and .source == $s and .target == $t) |
	    if .path == "relayed" then .relay // "?" else "" end' "$1/measurements.jsonl"
}
# median_of RUN HOST: the median p50 of HOST's relayed pairs, both ways
# (a record the counters contradict left out)
median_of() {
	jq -rs --arg h "$2" '[.[] | select(.kind == "libp2p_ping" and .ok and .path == "relayed" and
	    ((.path_evidence // "") | contains("counters disagree") | not) and
	    (.source == $h or .target == $h)) | .metrics.p50_ms] | sort |
	    if length == 0 then "none" else (if length % 2 == 1 then .[length / 2 | floor]
	    else (.[length / 2 - 1] + .[length / 2]) / 2 end) end' "$1/measurements.jsonl"
}

# relays_are RUN DIR HOST WHAT PUBLIC: every cross-site pair of the run
# went through HOST (the real node's relay is reported, not held to it),
# and no member but the PUBLIC ones served a circuit
relays_are() {
	local p s t r
	for p in "${pairs[@]}"; do
		read -r s t <<<"$p"
		r=$(relay_of "$2" "$s" "$t")
		echo "run $1: $s -> $t relayed through '$r'" >&2
		[ -n "${NETPROF_TEST_OTELA:-}" ] || assert_eq "$3" "$r" "run $1: $s -> $t through $4"
	done
	# go-libp2p runs the relay service only while public, the stand-in too
	assert_eq "" "$(jq -r --arg r " $5 " '[.machines[] | select(.name as $n | ($r | contains(" \($n) ") | not) and
	    (.counters.relay_circuits_served // 0) > 0) | .name] | join(" ")' "$2/run.json")" \
	    "run $1: no member but $5 served a circuit"
}
IFS='|' read -ra pairs <<<"$relayed_pairs"

# --- run 1: h5, the far host, the one relay ------------------------------
bench_run "$T/run1.json" "$T/r1" adv1 "${serial1[@]}"
relays_are 1 "$T/r1" h5 "the far host" h5

# --- the advice ------------------------------------------------------------
assert_status 0 "$NETPROF_BIN" heatmap --input "$T/r1/measurements.jsonl" \
    --input "$T/r1/run.json" --advise --advise-json "$T/advice.json"
advice=$OUT
printf '%s\n' "$advice" >&2
# (the real node where it measured both legs through h4: a leg it failed
# to measure leaves h4 no figure for that host)
for h in h1 h2 h3; do
	r=$(jq -r --arg h "$h" '.hosts[] | select(.host == $h) | .relay' "$T/advice.json")
	if [ -n "${NETPROF_TEST_OTELA:-}" ] && [ "$(jq -r --arg h "$h" '.hosts[] | select(.host == $h) |
	    .via_ms.h4 // "none"' "$T/advice.json")" = none ]; then
		echo "the advice: $h through '$r' (no figure through h4: a leg not measured)" >&2
		continue
	fi
	assert_eq h4 "$r" "the advice: $h through the near host"
done
public=$(jq -r '.public | sort | join(" ")' "$T/advice.json")
[ -n "${NETPROF_TEST_OTELA:-}" ] || assert_eq h4 "$public" "the patch: h4 made public"

# --- the patch applied: the text's lines into a copy of machines.json ----
# (each relay of the run's machines public in its remote_setup; each
# machine's bootstrap_extra and the --bootstrap line for a --bootstrap
# relay, of which this advice has none)
inv2=$(jq --arg p "$setup" '.remote_setup = $p' "$LAB_INVENTORY")
while read -r name cmd; do
	# a machine's remote_setup replaces the top level's: both, then
	inv2=$(jq --arg n "$name" --arg c "$setup; $cmd" '(.machines[] | select(.name == $n)).remote_setup = $c' <<<"$inv2")
done < <(sed -n '/ public (a node relays only then), in its remote_setup:$/,$ s/^  "\([^"]*\)": \(.*\)$/\1 \2/p' <<<"$advice")
inv2=$(jq --slurpfile a "$T/advice.json" '.machines[] |= (.name as $n | if $a[0].bootstrap_extra[$n] then
    .bootstrap_extra = (.bootstrap_extra // []) + $a[0].bootstrap_extra[$n] else . end)' <<<"$inv2")
printf '%s\n' "$inv2" >"$T/run2.json"
assert_eq "$public" "$(jq -r '[.machines[] | select((.remote_setup // "") | test("NETPROF_OF_REACHABILITY=public")) |
    .name] | sort | join(" ")' "$T/run2.json")" "the patch applied: its relays alone public"
boot=()
while read -r b; do boot+=(--bootstrap "$b"); done < <(jq -r '.bootstrap[]' "$T/advice.json")

# --- run 2: the advice applied -------------------------------------------
bench_run "$T/run2.json" "$T/r2" adv2 --serial "${boot[@]}"
relays_are 2 "$T/r2" h4 "the near host" "$public"
# The lab measures as configured only on a machine with time to spare: a
# run whose direct legs to h4 and h5 are off their configured round trips
# (2 x the two sites' one-way delays) by more than half and 15 ms is not
# judged on timing (at a load of 20 on two cores the legs came out at 10x).
delay_of() { case $1 in h1|h2) echo 10 ;; h3) echo 20 ;; h4) echo 5 ;; h5) echo 60 ;; esac; }
quiet() {
	local s t p
	while read -r s t p; do
		awk -v p="$p" -v c="$(( 2 * ($(delay_of "$s") + $(delay_of "$t")) ))" \
		    'BEGIN { exit !(p <= 1.5 * c + 15) }' || {
			echo "$1: $s -> $t at $p ms, configured $(( 2 * ($(delay_of "$s") + $(delay_of "$t")) )) ms" >&2
			return 1
		}
	done < <(jq -r 'select(.kind == "libp2p_ping" and .ok and .path == "direct" and
	    ((.source | test("^h[45]$")) or (.target | test("^h[45]$")))) | "\(.source) \(.target) \(.metrics.p50_ms)"' "$1/measurements.jsonl")
}
q1=1 q2=1
quiet "$T/r1" || q1=
quiet "$T/r2" || q2=
# run 2's own legs, the prediction made from them as the advice makes it
assert_status 0 "$NETPROF_BIN" heatmap --input "$T/r2/measurements.jsonl" \
    --input "$T/r2/run.json" --advise --advise-json "$T/advice2.json"
# every host's figures first, then the verdict
within() { awk -v m="$1" -v p="$2" 'BEGIN { exit !(m >= 0.9 * p && m <= 1.1 * p) }'; }
bad=()
for h in h1 h2 h3; do
	pred=$(jq -r --arg h "$h" '.hosts[] | select(.host == $h) | .predicted_ms' "$T/advice.json")
	own=$(jq -r --arg h "$h" '.hosts[] | select(.host == $h) | .via_ms.h4 // "none"' "$T/advice2.json")
	far=$(jq -r --arg h "$h" '.hosts[] | select(.host == $h) | .via_ms.h5 // "none"' "$T/advice.json")
	m1=$(median_of "$T/r1" "$h")
	m2=$(median_of "$T/r2" "$h")
	echo "$h: run 2 through h4 $m2 ms; predicted $own ms from its own legs, $pred ms by the advice (run 1); run 1 through h5 $m1 ms (its legs $far ms)" >&2
	if [ "$m2" = none ]; then
		[ -n "${NETPROF_TEST_OTELA:-}" ] || bad+=("$h: no relayed pair measured in run 2")
		continue
	fi
	[ -n "$q2" ] || continue
	within "$m2" "$own" ||
	    bad+=("$h: run 2's relayed pairs at a median of $m2 ms, not within 10 % of the $own ms its legs predict")
	TEST_CHECKS=$((TEST_CHECKS + 1))
	[ -n "$q1" ] || continue
	[ -z "${NETPROF_TEST_FIDELITY:-}" ] || within "$m2" "$pred" ||
	    bad+=("$h: run 2's relayed pairs at a median of $m2 ms, not within 10 % of the advice's $pred ms")
	[ "$m1" = none ] || awk -v a="$m2" -v b="$m1" 'BEGIN { exit !(a < b) }' ||
	    bad+=("$h: run 2's relayed pairs at $m2 ms, no better than run 1's $m1 ms")
	TEST_CHECKS=$((TEST_CHECKS + 2))
done
[ -n "$q2" ] || echo "timing not judged: the machine's load put run 2's legs off their configured round trips" >&2
[ -n "$q1" ] || echo "run 1 against run 2 not judged: the machine's load put run 1's legs off their configured round trips" >&2
[ ${#bad[@]} = 0 ] || fail "$(printf '%s; ' "${bad[@]}")"
rm -rf "$T"
test_pass
