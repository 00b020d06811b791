#!/usr/bin/env bash
# heatmap --advise on the WAN fixtures, no host contacted: n2 <-> n3 run
# relayed (paths.jsonl), so n2 and n3 are the hosts that need a relay and
# every other host is a candidate; each gets the relay whose legs give its
# pair the lowest median, drawn among those within --relay-within of it;
# the machines.json patch and the --bootstrap line carry the relay's
# multiaddr from run.json; the same seed gives the same advice, a cap of
# one host a relay puts them on two relays; the JSON says the same as the
# text; no page is written; without libp2p_ping records it is an error.
. "$(dirname "$0")/lib.sh"

T=$NETPROF_TEST_TMP/heatmap-advise
rm -rf "$T"
mkdir -p "$T"
cd "$T" || exit 1
W=$NETPROF_FIXTURES/wan
wan=(--input "$W/measurements.jsonl" --input "$W/paths.jsonl" --input "$W/run-sites.json")

# with 0 % every host gets its best: n6, 91.9 ms for either
OUT=$("$NETPROF_BIN" heatmap "${wan[@]}" --advise --relay-within 0 2>/dev/null) ||
    fail "heatmap --advise: exit $?"
assert_contains "$OUT" "  n2: relay n6, 1 pair through it at a median of 91.9 ms (today 90.9 ms: 1.1 ms worse); others: n4 92.7, n7 93.2, n8 93.6"
assert_contains "$OUT" "  n3: relay n6, 1 pair through it at a median of 91.9 ms (today 92.2 ms: 0.2 ms better)"
# n6 is a machine of the run: its PeerID is new every run and bench
# refuses a machine's name as --bootstrap, so the patch makes it public
assert_eq '  "n6": export NETPROF_OF_REACHABILITY=public' \
    "$(tail -n 1 <<<"$OUT")" "the patch: the one relay chosen made public"
assert_not_contains "$OUT" "bootstrap_extra" "no bootstrap_extra names a machine of the run"
assert_not_contains "$OUT" "--bootstrap" "no --bootstrap line names a machine of the run"
[ ! -e results ] || fail "--advise wrote a page"

# a cap of one: two relays
OUT=$("$NETPROF_BIN" heatmap "${wan[@]}" --advise --relay-within 0 --relay-cap 1 2>/dev/null)
assert_contains "$OUT" "at most 1 host a relay"
assert_contains "$OUT" "  n2: relay n6,"
assert_contains "$OUT" "  n3: relay n4,"

# the draw: reproducible by its seed; the chosen relay within 10 % of the best
"$NETPROF_BIN" heatmap "${wan[@]}" --advise-json a.json --seed 7 2>/dev/null
"$NETPROF_BIN" heatmap "${wan[@]}" --advise-json b.json --seed 7 2>/dev/null
assert_eq "$(cat a.json)" "$(cat b.json)" "the same seed, the same advice"
assert_eq "2" "$(jq '.hosts | length' a.json)" "n2 and n3 need a relay"
assert_eq 0 "$(jq '[.hosts[] | select(.predicted_ms > 1.1 * ([.via_ms[]] | min))] | length' a.json)" \
    "each relay within 10 % of the best"
assert_eq 0 "$(jq '[.hosts[] | select(.via_ms[.relay] != .predicted_ms or .gain_ms != ((.today_ms - .predicted_ms) * 1000 | round / 1000))] | length' a.json)" \
    "the prediction is the chosen relay's figure, the gain today's less it"
assert_eq "$(jq -c '[.hosts[].relay] | unique' a.json)" "$(jq -c '.public' a.json)" \
    "each relay chosen, a machine of the run, made public"
assert_eq '{} []' "$(jq -c '.bootstrap_extra, .bootstrap' a.json | xargs)" \
    "no bootstrap_extra or --bootstrap names a machine of the run"

# a --bootstrap relay (run.json's "relays"), measured, keeps its PeerID:
# the hosts it is best for get it as bootstrap_extra, and the --bootstrap line
jq '.relays = {"r": "/ip4/198.18.1.99/tcp/19091/p2p/12D3KooWRxxxxxxxxx"}' "$W/run-sites.json" >run-r.json
jq -c '.machines[] | {kind: "libp2p_ping", source: .name, target: "r", ok: true, metrics: {p50_ms: 1}, path: "direct"}' \
    "$W/run-sites.json" >r.jsonl
OUT=$("$NETPROF_BIN" heatmap --input "$W/measurements.jsonl" --input "$W/paths.jsonl" --input r.jsonl --input run-r.json --advise --relay-within 0 2>/dev/null) ||
    fail "heatmap --advise with a --bootstrap relay: exit $?"
assert_contains "$OUT" "  n2: relay r,"
assert_contains "$OUT" '  "n2": {"bootstrap_extra": ["/ip4/198.18.1.99/tcp/19091/p2p/12D3KooWRxxxxxxxxx"]}'
assert_contains "$OUT" "bench: --bootstrap r=/ip4/198.18.1.99/tcp/19091/p2p/12D3KooWRxxxxxxxxx"
rm -f run-r.json r.jsonl

# --advise-json FILE is written as --diagnosis-json's: a planted symlink
# is refused before anything is read, and its target is left as it was
echo keep > target.txt
ln -s target.txt link.json
assert_status 2 "$NETPROF_BIN" heatmap "${wan[@]}" --advise-json link.json
assert_eq keep "$(cat target.txt)" "--advise-json: the symlink's target untouched"
rm -f link.json target.txt

# no libp2p_ping records: a usage error that says what to give
assert_status 2 "$NETPROF_BIN" heatmap --input "$W/collect.jsonl" --advise
assert_contains "$OUT" "--advise: no libp2p_ping records"

test_pass
