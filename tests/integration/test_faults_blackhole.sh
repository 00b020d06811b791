#!/usr/bin/env bash
# 32 hosts of which 16 drop every packet to their SSH port (nftables in
# each of those hosts' own network namespace): the connects run at once, so
# the 16 fail together after one connect_timeout_seconds (3 s), not one
# after another. `check` says the 16 timed out and the 16 others are ready;
# `collect` (ping) records every pair once: the 16 dropping sources' pairs
# failed `unreachable` with the timeout as reason, every pair between good
# hosts ok (pings to a dropping host are ok too: only its SSH port drops).
#
# The time bound is generous on purpose: the run may take the same sweep on
# the 16 good hosts alone (measured just before, on the same machine and
# load) plus 4 connect timeouts. A 2-core machine shared with other work can
# be slow to start 32 handshakes, so a bound of 1 timeout would be flaky;
# a design that waits for the dropping hosts one by one takes 16 timeouts
# (48 s) more than the sweep and fails it by far.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh ping jq nft

TIMEOUT=3
lab_up tfdrop 32
inv=$NETPROF_TEST_TMP/blackhole.json
jq ".connect_timeout_seconds = $TIMEOUT" "$LAB_INVENTORY" >"$inv"
good=$(seq -s, -f 'h%g' 1 16)
bad=$(seq -s' ' -f 'h%g' 17 32)

# now(): wall clock in seconds, with decimals
now() {
	date +%s.%N
}

# elapsed START: seconds since START, rounded to a whole number
elapsed() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%d", b - a + 0.5 }'
}

# --- the sweep's own time: the 16 good hosts alone -------------------------
t0=$(now)
assert_status 0 "$NETPROF_BIN" -q check --config "$inv" --hosts "$good"
check_own=$(elapsed "$t0")
t0=$(now)
assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --hosts "$good" \
    --output "$NETPROF_TEST_TMP/good.jsonl" --ping-count 2 --ping-interval 0.2
collect_own=$(elapsed "$t0")

# --- 16 hosts drop every packet to port 22 --------------------------------
for h in $bad; do
	lab run "$h" -- nft -f - <<'NFT'
table inet npdrop {
	chain in { type filter hook input priority 0; tcp dport 22 drop; }
}
NFT
	at_exit "lab run $h -- nft delete table inet npdrop 2>/dev/null || true"
done

# --- check -------------------------------------------------------------------
t0=$(now)
assert_status 1 "$NETPROF_BIN" check --config "$inv" --json
took=$(elapsed "$t0")
json=$OUT
bound=$((check_own + 4 * TIMEOUT))
echo "check: $took s with 16 hosts dropping (good hosts alone: $check_own s; bound $bound s)"
[ "$took" -le "$bound" ] ||
    fail "check took $took s with 16 hosts dropping: more than the good hosts' own $check_own s + 4 x $TIMEOUT s (additive connects?)"
assert_eq 16 "$(jq '[.hosts[]|select(.ready)]|length' <<<"$json")" "the 16 good hosts ready"
for h in $bad; do
	assert_contains "$(jq -r ".hosts[]|select(.name==\"$h\")|.error" <<<"$json")" \
	    "timed out after $TIMEOUT s" "$h failed on the connect timeout"
done

# --- collect -----------------------------------------------------------------
out=$NETPROF_TEST_TMP/blackhole.jsonl
t0=$(now)
assert_status 1 "$NETPROF_BIN" -q collect --config "$inv" --output "$out" \
    --ping-count 2 --ping-interval 0.2
took=$(elapsed "$t0")
bound=$((collect_own + 4 * TIMEOUT))
echo "collect: $took s with 16 hosts dropping (good hosts alone: $collect_own s; bound $bound s)"
[ "$took" -le "$bound" ] ||
    fail "collect took $took s with 16 hosts dropping: more than the good hosts' own $collect_own s + 4 x $TIMEOUT s (additive connects?)"
assert_eq $((32 * 31)) "$(jq -r '[.source,.target]|@tsv' "$out" | sort -u | wc -l)" "every pair recorded"
assert_eq $((32 * 31)) "$(wc -l <"$out")" "every pair recorded once"
isbad='(.source|ltrimstr("h")|tonumber) > 16'
tobad='(.target|ltrimstr("h")|tonumber) > 16'
assert_eq $((16 * 31)) "$(jq -r "select($isbad and (.ok|not) and .error_class==\"unreachable\")|.source" "$out" | wc -l)" \
    "every pair from a dropping host failed unreachable"
assert_eq $((16 * 31)) "$(jq -r "select($isbad)|.error|select(test(\"timed out after $TIMEOUT s\"))" "$out" | wc -l)" \
    "with the timeout as reason"
assert_eq $((16 * 15)) "$(jq -r "select(($isbad|not) and ($tobad|not) and .ok)|.source" "$out" | wc -l)" \
    "every pair between good hosts ok"
assert_eq $((16 * 16)) "$(jq -r "select(($isbad|not) and $tobad and .ok)|.source" "$out" | wc -l)" \
    "pings to a dropping host ok: only its SSH port drops"
test_pass
