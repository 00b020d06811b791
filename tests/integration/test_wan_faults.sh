#!/usr/bin/env bash
# Faults of a lab with distance, through the wirefilters' management
# sockets while netprof runs: a site link with 5 % loss each way shows a
# loss rate consistent with it over 400 echoes, and the record says how
# many were sent and received; a site cut off mid-sweep (loss 100 %) fails
# the pairs it sources with a reason naming the timeout, every pair between
# the other sites completes, collect exits 1 with valid JSONL and nothing
# is left running. `down` then stops every switch and wirefilter by PID.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ping fping jq wirefilter vde_switch unixcmd

lab_up wfault 4 --site a=2,delay=2 --site b=1,delay=4 --site c=1,delay=6 \
    --home delay=1
inv=$LAB_INVENTORY

# --- loss: 5 % each way on c's link ---------------------------------------
# An echo and its reply both cross c's wirefilter: the round trip is lost
# with p = 1 - 0.95^2 = 9.75 %. Over n = 400 echoes the count lost is
# binomial, sd = sqrt(n p (1 - p)) = 5.9; 4 sd either side is 2-18 %.
assert_status 0 lab link c loss 5
out=$NETPROF_TEST_TMP/wan-loss.jsonl
rm -f "$out"
assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --hosts h1,h4 \
    --output "$out" --ping-count 400 --ping-interval 0.02
for pair in "h1 h4" "h4 h1"; do
	read -r s t <<<"$pair"
	rec=$(jq -c --arg s "$s" --arg t "$t" 'select(.source==$s and .target==$t)' "$out")
	assert_eq 400 "$(jq .metrics.transmitted <<<"$rec")" "$s -> $t: echoes sent"
	lost=$(jq '.metrics.transmitted - .metrics.received' <<<"$rec")
	pct=$(jq .metrics.loss_pct <<<"$rec")
	echo "$s -> $t: $lost of 400 lost ($pct %), expected 39 (9.75 %)"
	TEST_CHECKS=$((TEST_CHECKS + 2))
	(( lost >= 8 && lost <= 72 )) ||
	    fail "$s -> $t: $lost of 400 echoes lost; 5 % each way loses 9.75 % of round trips (8-72 expected)"
	awk -v p="$pct" -v l="$lost" 'BEGIN { d = p - l / 4; exit !(d < 0.01 && d > -0.01) }' ||
	    fail "$s -> $t: loss_pct $pct does not match $lost of 400"
done
assert_status 0 lab link c loss 0

# --- a site cut off mid-sweep ---------------------------------------------
cut=$NETPROF_TEST_TMP/wan-cut.jsonl
rm -f "$cut"
log=$NETPROF_TEST_TMP/wan-cut.log
"$NETPROF_BIN" -vv collect --config "$inv" --output "$cut" \
    --ping-count 20 --ping-interval 0.3 >"$log" 2>&1 &
np=$!
at_exit "kill $np 2>/dev/null"
# Cut once every source's fan-out runs (6 s of echoes), a second into it.
for (( i = 0; i < 600; i++ )); do
	[ "$(grep -c 'ping fan-out to 3 targets' "$log")" -ge 4 ] && break
	kill -0 $np 2>/dev/null || break
	sleep 0.05
done
assert_eq 4 "$(grep -c 'ping fan-out to 3 targets' "$log")" "every source's fan-out started"
sleep 1
t0=$SECONDS
assert_status 0 lab link b loss 100%
assert_contains "$OUT" "loss 100%"
rc=0
wait $np || rc=$?
echo "collect ended $(( SECONDS - t0 )) s after the cut, exit $rc"
assert_eq 1 "$rc" "collect's exit status with a site cut off"
assert_status 0 lab link b loss 0

# Valid JSONL, every ordered pair once.
assert_eq 12 "$(jq -c . "$cut" | wc -l)" "12 records, each valid JSON"
assert_eq 12 "$(jq -r '[.source,.target]|@tsv' "$cut" | sort -u | wc -l)" "every pair once"
# h3 is site b. Its own pings cannot report back: timed out.
assert_eq "3 timeout" "$(jq -r 'select(.source=="h3")|.error_class' "$cut" | sort | uniq -c | awk '{print $1, $2}')" \
    "h3's pairs time out"
assert_contains "$(jq -r 'select(.source=="h3")|.error' "$cut" | head -1)" "timed out"
# Pings to h3 lost (most of) their replies: failed, or ok with the loss.
assert_eq 3 "$(jq -r 'select(.target=="h3" and (.ok == false or .metrics.loss_pct >= 50))|.source' "$cut" | wc -l)" \
    "pings to h3 show the cut"
# Every pair between the other sites is complete and clean.
assert_eq "6 true 0" "$(jq -r 'select(.source!="h3" and .target!="h3")|"\(.ok) \(.metrics.loss_pct)"' "$cut" | sort | uniq -c | awk '{print $1, $2, $3}')" \
    "pairs without h3 all ok, no loss"

# Nothing left running: no netprof, and the lab's namespaces drain (h3's
# fping ends by itself once its echoes are sent).
assert_status 1 kill -0 $np
assert_contains "$OUT" "No such process" "no collect left"
for (( i = 0; i < 200; i++ )); do
	[ -z "$(lab pids)" ] && break
	sleep 0.05
done
assert_eq "" "$(lab pids)" "nothing left in the lab's namespaces"

# --- down stops the WAN by PID --------------------------------------------
pids=$(cat "$LAB_DIR"/wan/*.pid | sort -n | paste -sd' ' -)
assert_eq 9 "$(wc -w <<<"$pids")" "the core switch, and home and 3 sites x (switch, wirefilter)"
assert_status 0 "$LAB_SH" down --name "$LAB_NAME" --dir "$LAB_DIR"
for p in $pids; do
	if [ -d "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; then
		fail "pid $p ($(cat "/proc/$p/comm" 2>/dev/null)) still runs after down"
	fi
done
TEST_CHECKS=$((TEST_CHECKS + 1))
assert_eq "" "$(ip -o link show | grep -E "np[bw]-$LAB_NAME-" || true)" "no site bridge or tap left"

test_pass
