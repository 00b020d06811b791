#!/usr/bin/env bash
# collect's ping on a lab with distance (three sites and home, each behind
# a wirefilter): every pair's median RTT is close to its ground truth (a
# plain ping of that pair alone, run as root in the source's namespace),
# with the fan-out and with --serial, and the two runs are close to each
# other pair by pair; no median is below the configured RTT (less 1 ms:
# the emulator's clock), which the emulator only adds to. The lab's own
# parts are checked on the way: the inventory's sites, topology.json's
# RTTs, a pair of sites with a path of its own (--pair) taken by that pair
# only, and run-time changes of a site's link and of a pair's path through
# the management socket.
#
# Tolerance: max(3 ms, 10 %) of the ground truth, from docs/lab.md's
# figures: the emulator adds 1-3 ms per inter-site round trip on an idle
# machine, and its own jitter under CPU load (two tests at a time on two
# cores) moves a 20-echo median by up to about 3 ms; max(2 ms, 5 %) holds
# on an idle machine only. A round with a pair out of tolerance gets a
# second, and each pair's lower median counts, as for the ground truth.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ping fping jq wirefilter vde_switch unixcmd

# Bad site options: usage errors naming the option and the fix.
assert_status 2 "$LAB_SH" up --name wping --site x=2,foo=1
assert_contains "$OUT" "--site x=2,foo=1: unknown key 'foo' (keys: delay, jitter, loss, rate, mtu)"
assert_status 2 "$LAB_SH" up --name wping --site a=2 --hosts 3
assert_contains "$OUT" "--hosts 3: the sites hold 2 hosts"
assert_status 2 "$LAB_SH" up --name wping --home delay=3
assert_contains "$OUT" "give the sites too"
assert_status 2 "$LAB_SH" up --name wping --site a=1,rate=fast
assert_contains "$OUT" "rate=fast: like 100mbit"
assert_status 2 "$LAB_SH" up --name wping --site a=1 --site b=1 --pair a-x,delay=5
assert_contains "$OUT" "--pair a-x,delay=5: no site 'x' (sites: a b)"
assert_status 2 "$LAB_SH" up --name wping --site a=1 --pair a-a
assert_contains "$OUT" "a pair joins two different sites"
assert_status 2 "$LAB_SH" up --name wping --site a=1 --pair a-home
assert_contains "$OUT" "home's path is its link (--home)"
assert_status 2 "$LAB_SH" up --name wping --site a=1 --site b=1 --pair a-b --pair b-a,delay=1
assert_contains "$OUT" "the pair b-a is given twice"
assert_status 2 "$LAB_SH" up --name wping --pair a-b
assert_contains "$OUT" "--pair: give the sites too"

# b-c has a path of its own, longer than the star's 2 x (6 + 12).
lab_up wping 4 --site a=2,delay=2 --site b=1,delay=6 --site c=1,delay=12 \
    --home delay=3 --pair b-c,delay=25
inv=$LAB_INVENTORY
topo=$LAB_TOPOLOGY

# --- the lab: sites in the inventory and the topology --------------------
assert_eq "a a b c" "$(jq -r '[.machines[].site] | join(" ")' "$inv")" "machines' sites"
assert_eq "home a b c" "$LAB_SITES" "LAB_SITES"
assert_eq 0 "$(jq '.rtt_ms.h1.h2' "$topo")" "same site: no added delay"
assert_eq 16 "$(jq '.rtt_ms.h1.h3' "$topo")" "a-b: 2 x (2 + 6)"
assert_eq 28 "$(jq '.rtt_ms.h2.h4' "$topo")" "a-c: 2 x (2 + 12)"
assert_eq 30 "$(jq '.rtt_ms.home.h4' "$topo")" "home-c: 2 x (3 + 12)"
assert_eq 50 "$(jq '.rtt_ms.h3.h4' "$topo")" "b-c, a pair of its own: 2 x 25"
assert_eq "b c 25" "$(jq -r '.pairs[0] | "\(.sites[0]) \(.sites[1]) \(.delay_ms)"' "$topo")" "topology's pairs"

# The median of "time=" samples printed by ping on standard input.
ping_median() {
	sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' | sort -g |
	    awk '{ v[NR] = $1 } END { if (NR == 0) print "none";
		else if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Ground truth: each ordered pair alone, 20 echoes 50 ms apart, taken
# before netprof's runs and again after them; the lower median is the
# pair's. Load from other tests only adds to a round trip, and one burst of
# it once put a single median 10 ms over its pair's (60.7 on a 51 ms pair,
# the next median 51.2), so one measurement is not the link's.
declare -A truth=()
measure_truth() {
	local s t m
	for s in $LAB_HOSTS; do
		for t in $LAB_HOSTS; do
			[ "$s" = "$t" ] && continue
			m=$(lab run "$s" -- ping -n -c 20 -i 0.05 -W 2 "$(lab_addr "$t")" | ping_median)
			assert_ne none "$m" "ground truth $s -> $t has replies"
			if [ -z "${truth[$s,$t]:-}" ] ||
			    awk -v a="$m" -v b="${truth[$s,$t]}" 'BEGIN { exit !(a < b) }'; then
				truth[$s,$t]=$m
			fi
		done
	done
}
measure_truth

# netprof's runs, fan-out and --serial, each into its own file per round
# (wan-fanout.N.jsonl, wan-serial.N.jsonl).
runs=0
collect_round() {
	runs=$((runs + 1))
	local fan=$NETPROF_TEST_TMP/wan-fanout.$runs.jsonl ser=$NETPROF_TEST_TMP/wan-serial.$runs.jsonl
	rm -f "$fan" "$ser"
	assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$fan" \
	    --ping-count 20 --ping-interval 0.1
	assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$ser" \
	    --ping-count 20 --ping-interval 0.1 --serial
	assert_eq "12 fanout" "$(jq -r 'select(.ok)|.mode' "$fan" | uniq -c | awk '{print $1, $2}')" "fan-out: 12 pairs ok"
	assert_eq "12 serial" "$(jq -r 'select(.ok)|.mode' "$ser" | uniq -c | awk '{print $1, $2}')" "serial: 12 pairs ok"
}

# within A B: |A - B| <= max(3, 10 % of B)
within() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d;
		tol = b * 0.10; if (tol < 3) tol = 3; exit !(d <= tol) }'
}

# p50 MODE S T: the pair's lowest median over netprof's rounds so far, as
# for the ground truth: load only adds to a round trip
p50() {
	cat "$NETPROF_TEST_TMP"/wan-"$1".*.jsonl |
	    jq -r --arg s "$2" --arg t "$3" 'select(.source==$s and .target==$t)|.metrics.p50' |
	    sort -g | head -1
}

# Every pair against its ground truth and its configured RTT: the report
# in $report, the first miss in $miss (none: empty).
evaluate() {
	local s t want f r g
	report="" miss=""
	for s in $LAB_HOSTS; do
		for t in $LAB_HOSTS; do
			[ "$s" = "$t" ] && continue
			want=$(jq ".rtt_ms.$s.$t" "$topo")
			f=$(p50 fanout "$s" "$t") r=$(p50 serial "$s" "$t")
			g=${truth[$s,$t]}
			report="$report$s->$t configured $want truth $g fanout $f serial $r"$'\n'
			[ -n "$miss" ] && continue
			if ! within "$f" "$g"; then
				miss="$s -> $t: fan-out p50 $f ms is not within max(3 ms, 10 %) of the ground truth $g ms"
			elif ! within "$r" "$g"; then
				miss="$s -> $t: serial p50 $r ms is not within max(3 ms, 10 %) of the ground truth $g ms"
			elif ! within "$f" "$r"; then
				miss="$s -> $t: fan-out p50 $f ms and serial p50 $r ms differ by more than max(3 ms, 10 %)"
			elif ! awk -v v="$f" -v w="$want" 'BEGIN { exit !(v >= w - 1) }'; then
				miss="$s -> $t: fan-out p50 $f ms is below the configured $want ms"
			elif ! awk -v v="$r" -v w="$want" 'BEGIN { exit !(v >= w - 1) }'; then
				miss="$s -> $t: serial p50 $r ms is below the configured $want ms"
			fi
		done
	done
	[ -z "$miss" ]
}

# One round of netprof's runs between two of the ground truth's. A burst
# of load during it (the lab shares two cores with the suite's other
# tests) once put a fan-out median 3.75 ms over its pair's, the serial
# one 1.4 ms, with no other test running: then a second round, and again
# each pair's lower median is the pair's. A miss that is netprof's (a
# fan-out that delays its own probes, a parse in the wrong unit) is there
# in both rounds.
collect_round
measure_truth
if ! evaluate; then
	echo "round 1: $miss; a second round" >&2
	printf '%s' "$report" >&2
	collect_round
	measure_truth
	evaluate || fail "$miss (the lower of $runs rounds)"$'\n'"$report"
fi
TEST_CHECKS=$((TEST_CHECKS + 5 * 12))
echo "$report" | tee "$NETPROF_TEST_TMP/wan-ping-report.txt"

# The pair's path is the pair's: 50 ms where the star gives 36, both ways.
for st in h3,h4 h4,h3; do
	awk -v v="${truth[$st]}" 'BEGIN { exit !(v >= 49 && v < 56) }' ||
	    fail "${st/,/ -> }: ground truth ${truth[$st]} ms, expected the pair's 50 ms (2 x 25) and a little more, not the star's 36"
	TEST_CHECKS=$((TEST_CHECKS + 1))
done

# --- a link changed at run time ------------------------------------------
assert_status 0 lab link b delay 20
assert_contains "$OUT" "link b: delay 20 ms"
assert_contains "$(lab status)" "Delay L->R 20+0U R->L 20+0U" "b's wirefilter has the new delay"
g=$(lab run h1 -- ping -n -c 10 -i 0.05 -W 2 "$(lab_addr h3)" | ping_median)
awk -v v="$g" 'BEGIN { exit !(v >= 44 && v < 60) }' ||
    fail "h1 -> h3 after link b delay 20: median $g ms, expected 44 ms (2 x (2 + 20)) and a little more"
# b's link is not on the b-c pair's path; the pair's own change is.
g=$(lab run h3 -- ping -n -c 10 -i 0.05 -W 2 "$(lab_addr h4)" | ping_median)
awk -v v="$g" 'BEGIN { exit !(v >= 49 && v < 56) }' ||
    fail "h3 -> h4 after link b delay 20: median $g ms, expected the pair's 50 ms still"
assert_status 0 lab link b-c delay 40 loss 0
assert_contains "$OUT" "link b-c: delay 40 ms, jitter 0 ms, loss 0%, rate unlimited"
assert_contains "$(lab status)" "b-c:Loss L->R 0+0U R->L 0+0U;Delay L->R 40+0U R->L 40+0U" "the pair's wirefilter has the new delay"
g=$(lab run h4 -- ping -n -c 10 -i 0.05 -W 2 "$(lab_addr h3)" | ping_median)
awk -v v="$g" 'BEGIN { exit !(v >= 79 && v < 90) }' ||
    fail "h4 -> h3 after link b-c delay 40: median $g ms, expected 80 ms (2 x 40) and a little more"
TEST_CHECKS=$((TEST_CHECKS + 3))
assert_status 2 lab link a-b delay 1
assert_contains "$OUT" "no pair 'a-b'"
assert_status 2 lab link nosuch delay 1
assert_contains "$OUT" "no site 'nosuch'"
assert_status 2 lab link b loss lots
assert_contains "$OUT" "a percentage from 0 to 100"

test_pass
