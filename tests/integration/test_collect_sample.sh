#!/usr/bin/env bash
# collect --sample K on a lab of three sites of two hosts (a, b, c): each
# sweep measures every pair inside a site and K pairs per host across
# sites, the records say they are a sample (sample: K), and consecutive
# sweeps (--every, --count) measure every ordered pair, the cross-site
# pairs of one sweep not those of the next; the plan says so too. A sweep's
# partial matrix: the heatmap shows the pairs not measured ('?') as not in
# the sweep's sample, not as failures, with the site blocks from the
# sampled pairs, and its diagnosis has nothing at warning; the metrics
# file of a sweep has a series for the sampled pairs only, none of them
# failed, and says the sample's K and cycle. Without --sample no record
# has the field; --sample 0 is a usage error.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd jq wirefilter vde_switch unixcmd

lab_up wsample 6 --site a=2 --site b=2 --site c=2
inv=$LAB_INVENTORY
T=$NETPROF_TEST_TMP/collect-sample
rm -rf "$T"
mkdir -p "$T"
cd "$T" || exit 1
at_exit "cd /; rm -rf '$T'"

assert_eq "a a b b c c" "$(jq -r '[.machines[].site] | join(" ")' "$inv")" "machines' sites"

# --- options and the plan -------------------------------------------------
assert_status 2 "$NETPROF_BIN" collect --config "$inv" --sample 0 --dry-run
assert_contains "$OUT" "--sample"
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --sample 1
assert_contains "$OUT" "every pair inside a site and 1 per host across sites; every pair measured within 4 sweeps"
assert_contains "$OUT" "ping: 1 round, 12 probes"

# across FILTER: the records of s.jsonl through FILTER whose hosts are in
# two sites (the inventory's)
across() {
	jq -s --slurpfile inv "$inv" "(\$inv[0].machines | map({(.name): .site}) |
	    add) as \$site | [.[] | $1 | select(\$site[.source] != \$site[.target])] |
	    length" s.jsonl
}

# --- four sweeps of a sample of K = 1 --------------------------------------
# 6 pairs inside the sites (3 x 2) and 6 across (one per host) a sweep; a
# host has 4 peers in other sites, so 4 sweeps cover all 30 pairs. Four
# echoes a pair: the median of two is the slower (one echo held up by the
# emulator under load once made a 6.46 ms median on a 0.3 ms pair, which
# the diagnosis rightly called slow), of four the third.
assert_status 0 "$NETPROF_BIN" collect --config "$inv" --output s.jsonl \
    --sample 1 --every 0 --count 4 --ping-count 4 --ping-interval 0.2 \
    --metrics-file sweep.prom -q
assert_eq 48 "$(wc -l <s.jsonl)" "records of 4 sweeps of 12 pairs"
assert_eq 0 "$(jq -s '[.[] | select(.ok | not)] | length' s.jsonl)" "failed records"
assert_eq 48 "$(jq -s '[.[] | select(.sample == 1)] | length' s.jsonl)" "records saying sample: 1"
for s in 1 2 3 4; do
	assert_eq 12 "$(jq -s "[.[] | select(.sweep == $s)] | length" s.jsonl)" "sweep $s: its pairs"
	assert_eq 6 "$(across "select(.sweep == $s)")" "sweep $s: one pair across sites per host"
	assert_eq 6 "$(jq -s "[.[] | select(.sweep == $s)] | map(.source) | unique | length" s.jsonl)" \
	    "sweep $s: every host a source"
done
assert_eq 30 "$(jq -s 'map("\(.source)>\(.target)") | unique | length' s.jsonl)" \
    "every ordered pair over the 4 sweeps"
assert_eq 24 "$(jq -s '[.[] | select(.sweep <= 3)] | map("\(.source)>\(.target)") |
    unique | length' s.jsonl)" "3 sweeps leave cross-site pairs out"
assert_eq 4 "$(jq -s '[.[] | select(.source == "h1" and .target == "h2")] | length' s.jsonl)" \
    "a pair inside a site, every sweep"

# The last sweep's metrics: 12 pairs' series, none failed; the sample said.
assert_eq 12 "$(grep -c '^netprof_probe_ok{.*kind="ping"' sweep.prom)" "series of the sampled pairs"
assert_eq 0 "$(grep '^netprof_probe_ok{' sweep.prom | grep -c ' 0$')" "series saying failed"
assert_contains "$(cat sweep.prom)" "netprof_sweep_sample_pairs_per_host 1"
assert_contains "$(cat sweep.prom)" "netprof_sweep_sample_cycle_sweeps 4"

# --- the heatmap of one sweep: a partial matrix ---------------------------
jq -c 'select(.sweep == 1)' s.jsonl >one.jsonl
# cells MARK: the ping matrix's cells of $OUT that are MARK
cells() {
	sed -n '/^ping:/,/^$/p' <<<"$OUT" | tail -n +3 | tr -s ' ' '\n' | grep -cxF -- "$1"
}
assert_status 0 "$NETPROF_BIN" heatmap --input one.jsonl --text --config "$inv"
# 36 cells: 6 self, 12 measured, 18 not measured ('?'), none failed ('x')
assert_contains "$OUT" "12 records, 0 failed"
assert_eq 18 "$(cells '?')" "sweep 1: cells not measured"
assert_eq 0 "$(cells x)" "sweep 1: cells failed"
assert_eq 6 "$(cells -)" "sweep 1: self cells"
assert_contains "$OUT" "Failures: none."
assert_contains "$OUT" "? not in this sweep's sample (collect --sample 1"
assert_not_contains "$OUT" "? missing (no record"
# the diagnosis of the partial matrix: the pairs not measured are no
# failure, no host down or refusing; nothing at warning or above
assert_status 0 "$NETPROF_BIN" heatmap --input one.jsonl --config "$inv" \
    --diagnosis-json one-dx.json --fail-on warning --text
assert_eq 0 "$(jq '[.findings[] | select(.severity != "info")] | length' one-dx.json)" \
    "sweep 1: findings at warning or above"
# site blocks from the sampled pairs: inside a site all measured; sweep 1
# sends a site's two hosts to one other site (h1 -> h3, h2 -> h4): half of
# a -> b measured, none of a -> c
assert_eq 3 "$(grep -cE '^  ([abc]) -> \1: median .*, 0 of 2 failed$' <<<"$OUT")" \
    "sweep 1: site pairs inside, every pair measured"
assert_eq 3 "$(grep -cE '^  [abc] -> [abc]: median .*, 0 of 4 failed, 2 not measured$' <<<"$OUT")" \
    "sweep 1: site pairs across, half their pairs measured"
assert_eq 3 "$(grep -cE '^  [abc] -> [abc]: no value, 0 of 4 failed, 4 not measured$' <<<"$OUT")" \
    "sweep 1: site pairs across, none measured"
# the page: the site blocks across say what was not measured, none failed
assert_status 0 "$NETPROF_BIN" heatmap --input one.jsonl --config "$inv" --output one.html
assert_eq 3 "$(grep -o '<br>2 not measured' one.html | wc -l)" "sweep 1: site blocks half measured on the page"
assert_eq 3 "$(grep -o '<td class=m>4 not measured</td>' one.html | wc -l)" "sweep 1: site blocks not measured on the page"
assert_eq 0 "$(grep -c '<td class=f>' one.html)" "sweep 1: site blocks failed on the page"
assert_contains "$(cat one.html)" "not in this sweep's sample (--sample 1)"
assert_contains "$(cat one.html)" '"sample":1,'
assert_status 0 "$NETPROF_BIN" heatmap --input s.jsonl --text --config "$inv"
assert_eq 0 "$(cells '?')" "4 sweeps: cells not measured"
assert_eq 6 "$(cells -)" "4 sweeps: self cells"
assert_not_contains "$OUT" "not measured"

# --- without --sample: no record says it is a sample -----------------------
assert_status 0 "$NETPROF_BIN" collect --config "$inv" --output all.jsonl \
    --ping-count 2 --ping-interval 0.2 -q
assert_eq 30 "$(wc -l <all.jsonl)" "every pair without --sample"
assert_eq 0 "$(jq -s '[.[] | select(has("sample"))] | length' all.jsonl)" "records with sample"
test_pass
