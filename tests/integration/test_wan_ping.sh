#!/usr/bin/env bash
# collect's ping on a lab with distance (three sites and home, each behind
# a wirefilter): every pair ok with the fan-out and with --serial, and its
# median RTT shows the lab's distance: none below the configured RTT (less
# 1 ms: the emulator's clock), which the emulator only adds to, and the
# pair inside a site well below the nearest pair across sites. The lab's
# own parts are checked on the way: the inventory's sites, topology.json's
# RTTs, a pair of sites with a path of its own (--pair) taken by that pair
# only, and run-time changes of a site's link and of a pair's path through
# the management socket.
#
# These bounds hold under any load (load only adds to a round trip, and
# each is the configured figure or a gap of 7 ms and more, the lower of
# two medians counting where one misses), so the test
# runs beside the others. How close the medians come to the lab's ground
# truth (a plain ping of each pair alone: within max(3 ms, 10 %), fan-out
# and --serial alike, and the changed links' figures from above) is
# fidelity, measured on the same lab by tests/perf/wan_fidelity.sh.
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

# netprof's runs, fan-out and --serial.
fan=$NETPROF_TEST_TMP/wan-ping-fanout.jsonl ser=$NETPROF_TEST_TMP/wan-ping-serial.jsonl
rm -f "$fan" "$ser"
at_exit "rm -f '$fan' '$ser'"
assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$fan" \
    --ping-count 10 --ping-interval 0.1
assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$ser" \
    --ping-count 10 --ping-interval 0.1 --serial
assert_eq "12 fanout" "$(jq -r 'select(.ok)|.mode' "$fan" | uniq -c | awk '{print $1, $2}')" "fan-out: 12 pairs ok"
assert_eq "12 serial" "$(jq -r 'select(.ok)|.mode' "$ser" | uniq -c | awk '{print $1, $2}')" "serial: 12 pairs ok"

# p50 FILE S T: the pair's median in the run's records
p50() {
	jq -r --arg s "$2" --arg t "$3" 'select(.source==$s and .target==$t)|.metrics.p50' "$1"
}
for f in "$fan" "$ser"; do
	mode=$(jq -r '.mode' "$f" | head -1)
	for s in $LAB_HOSTS; do
		for t in $LAB_HOSTS; do
			[ "$s" = "$t" ] && continue
			want=$(jq ".rtt_ms.$s.$t" "$topo") v=$(p50 "$f" "$s" "$t")
			awk -v v="$v" -v w="$want" 'BEGIN { exit !(v != "" && v >= w - 1) }' ||
			    fail "$s -> $t: $mode p50 '$v' ms is below the configured $want ms"
		done
	done
	# h1 and h2 share site a: no emulator between them; the nearest pair
	# across sites is 16 ms (a-b).
	for st in "h1 h2" "h2 h1"; do
		v=$(p50 "$f" $st)
		awk -v v="$v" 'BEGIN { exit !(v < 15) }' ||
		    fail "${st/ / -> }: $mode p50 $v ms inside site a, expected below a-b's 16 ms"
	done
	TEST_CHECKS=$((TEST_CHECKS + 14))
done

# A plain ping's median from S to T, COUNT echoes.
plain() {
	lab run "$1" -- ping -n -c "$3" -i 0.05 -W 2 "$(lab_addr "$2")" | ping_median
}
# The pair's path is the pair's: 50 ms where the star gives 36, both ways.
for st in "h3 h4" "h4 h3"; do
	g=$(plain $st 10)
	awk -v v="$g" 'BEGIN { exit !(v >= 49) }' ||
	    fail "${st/ / -> }: median $g ms, expected the pair's 50 ms (2 x 25), not the star's 36"
	TEST_CHECKS=$((TEST_CHECKS + 1))
done

# --- a link changed at run time ------------------------------------------
assert_status 0 lab link b delay 20
assert_contains "$OUT" "link b: delay 20 ms"
assert_contains "$(lab status)" "Delay L->R 20+0U R->L 20+0U" "b's wirefilter has the new delay"
g=$(plain h1 h3 10)
awk -v v="$g" 'BEGIN { exit !(v >= 44) }' ||
    fail "h1 -> h3 after link b delay 20: median $g ms, expected 44 ms (2 x (2 + 20)) at least"
# b's link is not on the b-c pair's path (through the star, b and c's
# links, 64 ms; through b's link and the pair's, 90); the pair's own
# change is. Load only adds: a median that misses gets a second, and the
# lower counts.
g=$(plain h3 h4 10)
awk -v v="$g" 'BEGIN { exit !(v >= 49 && v < 57) }' || g=$(printf '%s\n' "$g" "$(plain h3 h4 10)" | sort -g | head -1)
awk -v v="$g" 'BEGIN { exit !(v >= 49 && v < 57) }' ||
    fail "h3 -> h4 after link b delay 20: median $g ms, expected the pair's 50 ms still, not the star's 64"
assert_status 0 lab link b-c delay 40 loss 0
assert_contains "$OUT" "link b-c: delay 40 ms, jitter 0 ms, loss 0%, rate unlimited"
assert_contains "$(lab status)" "b-c:Loss L->R 0+0U R->L 0+0U;Delay L->R 40+0U R->L 40+0U" "the pair's wirefilter has the new delay"
g=$(plain h4 h3 10)
awk -v v="$g" 'BEGIN { exit !(v >= 79) }' ||
    fail "h4 -> h3 after link b-c delay 40: median $g ms, expected 80 ms (2 x 40) at least"
TEST_CHECKS=$((TEST_CHECKS + 3))
assert_status 2 lab link a-b delay 1
assert_contains "$OUT" "no pair 'a-b'"
assert_status 2 lab link nosuch delay 1
assert_contains "$OUT" "no site 'nosuch'"
assert_status 2 lab link b loss lots
assert_contains "$OUT" "a percentage from 0 to 100"

test_pass
