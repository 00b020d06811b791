#!/usr/bin/env bash
# A slowed link on the WAN lab shows up in Prometheus between sweeps: two
# sites of two hosts (a, b; 2 ms each way), `collect --every` scraped by a
# real Prometheus on loopback; then `lab.sh link b delay 42` adds 40 ms
# each way to site b's link. At an instant before the change and one after
# it (two sweeps later, so no sweep of the "after" straddles the change),
# every pair's p50 RTT from /api/v1/query equals the JSONL's for the sweep
# Prometheus holds then; the pairs across the sites (a <-> b) rose by about
# 2 x 40 ms, the pairs inside a site did not move; and over the whole
# window, max_over_time - min_over_time of the series says the same.
#
# Tolerance: the rise of a cross-site pair is 80 ms - 8 / + 15 ms (a
# 5-echo median under two tests at a time on two cores; the emulator only
# adds, so the upper side is the looser one, docs/lab.md); a pair inside a
# site moves by less than 5 ms (it crosses no emulator).
. "$(dirname "$0")/lib.sh"
require_root
require_cmd prometheus curl jq python3 wirefilter vde_switch unixcmd

lab_up wmetric 4 --site a=2,delay=2 --site b=2,delay=2
T=$NETPROF_TEST_TMP/metrics-wan
rm -rf "$T"
mkdir -p "$T/tsdb"
cd "$T" || exit 1

"$NETPROF_BIN" collect --config "$LAB_INVENTORY" --output sweeps.jsonl \
    --every 1s --ping-count 5 --ping-interval 0.1 \
    --metrics-listen 127.0.0.1:0 2>netprof.log &
np_pid=$!
at_exit "kill $np_pid 2>/dev/null; wait $np_pid 2>/dev/null"
listening() { grep -q 'metrics on http://127.0.0.1:' netprof.log; }
wait_for 20 listening || fail "no listener: $(cat netprof.log)"
np_port=$(sed -n 's|.*metrics on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' netprof.log)

prom_port=$(free_port)
cat >prometheus.yml <<EOC
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: netprof
    static_configs:
      - targets: [ "127.0.0.1:$np_port" ]
EOC
prometheus --config.file=prometheus.yml --storage.tsdb.path="$T/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" >prometheus.log 2>&1 &
prom_pid=$!
at_exit "kill $prom_pid 2>/dev/null; wait $prom_pid 2>/dev/null"
api="http://127.0.0.1:$prom_port/api/v1"

# query EXPR [TIME]: the first result's value, or "" if none
query() {
	curl -sf --get "$api/query" --data-urlencode "query=$1" \
	    ${2:+--data-urlencode "time=$2"} |
	    jq -r '.data.result[0].value[1] // empty'
}
# pairs EXPR TIME: "source target value" per result, sorted
pairs() {
	curl -sf --get "$api/query" --data-urlencode "query=$1" \
	    --data-urlencode "time=$2" |
	    jq -r '.data.result[] | "\(.metric.source) \(.metric.target) \(.value[1])"' | sort
}
rtt='netprof_ping_rtt_p50_seconds'
# a full mesh of the 4 hosts in Prometheus, from a sweep after the first
meshed() {
	[ "$(query "count($rtt)" 2>/dev/null)" = 12 ] &&
	    [ "$(query 'netprof_sweep_number' 2>/dev/null)" -ge 2 ] 2>/dev/null
}
wait_for 60 meshed || fail "Prometheus has no full mesh: $(tail -5 prometheus.log)"

# an instant after the sample it is to see (date +%s truncates)
sleep 1
t0=$(date +%s)
sleep 1
s0=$(query 'netprof_sweep_number' "$t0")

# --- slow site b's link by 40 ms each way ---------------------------------
last=$(jq -s 'map(.sweep) | max' sweeps.jsonl)
assert_status 0 lab link b delay 42
assert_contains "$OUT" "link b: delay 42 ms"
# sweep last + 1 may have begun before the change; last + 2 began after it
clean=$((last + 2))
after() { [ "$(query 'netprof_sweep_number' 2>/dev/null)" -ge $clean ] 2>/dev/null; }
wait_for 40 after || fail "no sweep $clean in Prometheus: $(tail -5 netprof.log)"
sleep 1
t1=$(date +%s)
sleep 1
s1=$(query 'netprof_sweep_number' "$t1")
[ "$s1" -ge $clean ] || fail "sweep at the instant after: $s1, expected >= $clean"

# jsonl SWEEP SOURCE TARGET: the pair's p50 in seconds from the JSONL
jq -r --argjson a "$s0" --argjson b "$s1" \
    'select((.sweep == $a or .sweep == $b) and .kind == "ping" and .ok) | "\(.sweep) \(.source) \(.target) \(.metrics.p50 / 1000)"' \
    sweeps.jsonl >jsonl.txt
jsonl() {
	awk -v s="$1" -v a="$2" -v b="$3" '$1 == s && $2 == a && $3 == b { print $4 }' jsonl.txt
}
site() { case $1 in h1 | h2) echo a ;; *) echo b ;; esac; }

pairs "$rtt" "$t0" >before.txt
pairs "$rtt" "$t1" >after.txt
# the spread of each series over the window from before to after
span=$((t1 - t0 + 2))
pairs "max_over_time($rtt[${span}s]) - min_over_time($rtt[${span}s])" "$t1" >spread.txt
assert_eq 12 "$(wc -l <before.txt)" "pairs before"
assert_eq 12 "$(wc -l <after.txt)" "pairs after"
assert_eq 12 "$(wc -l <spread.txt)" "pairs in the spread"

report="sweeps $s0 -> $s1 (link b changed after sweep $last)"$'\n'
while read -r src dst v0; do
	v1=$(awk -v s="$src" -v d="$dst" '$1 == s && $2 == d { print $3 }' after.txt)
	sp=$(awk -v s="$src" -v d="$dst" '$1 == s && $2 == d { print $3 }' spread.txt)
	j0=$(jsonl "$s0" "$src" "$dst")
	j1=$(jsonl "$s1" "$src" "$dst")
	[ -n "$v1" ] && [ -n "$sp" ] && [ -n "$j0" ] && [ -n "$j1" ] ||
	    fail "$src->$dst: after '$v1', spread '$sp', JSONL '$j0' '$j1'"
	for p in "$v0 $j0 $s0" "$v1 $j1 $s1"; do
		set -- $p
		awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9) }' ||
		    fail "$src->$dst, sweep $3: Prometheus $1 s, JSONL $2 s"
	done
	rise=$(awk -v a="$v0" -v b="$v1" 'BEGIN { printf "%.2f", (b - a) * 1000 }')
	spread=$(awk -v a="$sp" 'BEGIN { printf "%.2f", a * 1000 }')
	report="$report$src->$dst ($(site "$src")-$(site "$dst")) p50 $(awk -v a="$v0" 'BEGIN { printf "%.2f", a * 1000 }') -> $(awk -v a="$v1" 'BEGIN { printf "%.2f", a * 1000 }') ms, rise $rise ms, spread $spread ms"$'\n'
	TEST_CHECKS=$((TEST_CHECKS + 4))
	if [ "$(site "$src")" != "$(site "$dst")" ]; then
		awk -v r="$rise" 'BEGIN { exit !(r >= 72 && r <= 95) }' ||
		    fail "$src->$dst crosses b's link: rose by $rise ms, expected 80 (72-95)"$'\n'"$report"
		awk -v r="$spread" 'BEGIN { exit !(r >= 72 && r <= 95) }' ||
		    fail "$src->$dst: max_over_time - min_over_time $spread ms, expected 80 (72-95)"$'\n'"$report"
	else
		awk -v r="$rise" 'BEGIN { if (r < 0) r = -r; exit !(r < 5) }' ||
		    fail "$src->$dst inside a site: moved by $rise ms, expected < 5"$'\n'"$report"
		awk -v r="$spread" 'BEGIN { exit !(r < 5) }' ||
		    fail "$src->$dst inside a site: spread $spread ms, expected < 5"$'\n'"$report"
	fi
done <before.txt
printf '%s' "$report" | tee "$NETPROF_TEST_TMP/metrics-wan-report.txt"

kill -TERM $np_pid
rc=0
wait $np_pid || rc=$?
assert_eq 130 "$rc" "collect's exit status after SIGTERM"
test_pass
