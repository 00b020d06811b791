#!/usr/bin/env bash
# A real Prometheus scrapes `collect --every --metrics-listen` on loopback:
# after two scrapes, /api/v1/query answers a pair's RTT and its sweep
# number, and the RTT is the JSONL's for that sweep (ms as seconds); a
# link is cut (nftables in h3's namespace: SSH reset, pings dropped) and the query of a
# pair to h3 says probe_ok 0, as the JSONL of that sweep does; the example
# rules (examples/prometheus/, their `for:` shortened to 0s) fire:
# ALERTS has NetprofHostUnreachable for h3 and NetprofProbeFailing for
# h1->h3. Then node_exporter's textfile collector serves --metrics-file.
# Everything listens on 127.0.0.1; Prometheus' storage is in the test's
# directory; both servers are stopped by PID.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd prometheus promtool prometheus-node-exporter curl jq python3 nft

lab_up tmprom 3
T=$NETPROF_TEST_TMP/metrics-prometheus
rm -rf "$T"
mkdir -p "$T/tsdb" "$T/textfile"
cd "$T" || exit 1

# --- netprof, sweeping every 2 s ------------------------------------------
"$NETPROF_BIN" collect --config "$LAB_INVENTORY" --output sweeps.jsonl \
    --every 2s --ping-count 3 --ping-interval 0.2 \
    --metrics-listen 127.0.0.1:0 2>netprof.log &
np_pid=$!
at_exit "kill $np_pid 2>/dev/null; wait $np_pid 2>/dev/null"
listening() { grep -q 'metrics on http://127.0.0.1:' netprof.log; }
wait_for 20 listening || fail "no listener: $(cat netprof.log)"
np_port=$(sed -n 's|.*metrics on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' netprof.log)
curl -sf "http://127.0.0.1:$np_port/metrics" >first.prom || fail "GET /metrics failed"
assert_file_contains first.prom 'netprof_build_info{version='
# OpenMetrics for a scraper that asks as Prometheus does (which makes
# every scrape below an OpenMetrics one, read by Prometheus' strict parser)
om_accept='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
assert_eq 'application/openmetrics-text; version=1.0.0; charset=utf-8' \
    "$(curl -sf -H "Accept: $om_accept" -o first.om -w '%{content_type}' "http://127.0.0.1:$np_port/metrics")"
assert_eq '# EOF' "$(tail -n 1 first.om)" "OpenMetrics ends in # EOF"
assert_file_contains first.om 'netprof_build_info{version='
assert_eq 'text/plain; version=0.0.4; charset=utf-8' \
    "$(curl -sf -o /dev/null -w '%{content_type}' "http://127.0.0.1:$np_port/metrics")"
assert_ne '# EOF' "$(tail -n 1 first.prom)" "the text format has no # EOF"
assert_eq 404 "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$np_port/other")"
assert_eq 405 "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$np_port/metrics")"

# --- Prometheus, scraping every second, the example rules at once --------
sed 's/^\(\s*for:\).*/\1 0s/' "$NETPROF_SRC/examples/prometheus/netprof-rules.yml" >rules.yml
assert_status 0 promtool check rules "$NETPROF_SRC/examples/prometheus/netprof-rules.yml"
prom_port=$(free_port)
cat >prometheus.yml <<EOC
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [ "$T/rules.yml" ]
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
two_scrapes() {
	[ "$(query 'count_over_time(up{job="netprof"}[5m]) >= 2 and up{job="netprof"} == 1' 2>/dev/null)" != "" ]
}
swept() { [ -n "$(query 'netprof_sweep_number')" ]; }
wait_for 60 two_scrapes || fail "Prometheus did not scrape twice: $(tail -5 prometheus.log)"
wait_for 30 swept || fail "no sweep in Prometheus"

# the RTT of h1->h2 and the sweep it came with, at one instant
t=$(date +%s)
sleep 1
sweep=$(query 'netprof_sweep_number' "$t")
rtt=$(query 'netprof_ping_rtt_avg_seconds{source="h1",target="h2"}' "$t")
[ -n "$sweep" ] && [ -n "$rtt" ] || fail "queries answered sweep '$sweep', rtt '$rtt'"
want=$(jq -r --argjson s "$sweep" 'select(.sweep == $s and .kind == "ping" and .source == "h1" and .target == "h2") | .metrics.avg / 1000' sweeps.jsonl)
[ -n "$want" ] || fail "no h1->h2 record of sweep $sweep in the JSONL"
awk -v a="$rtt" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9) }' ||
    fail "h1->h2 RTT of sweep $sweep: Prometheus $rtt s, JSONL $want s"
assert_eq 1 "$(query 'netprof_probe_ok{kind="ping",source="h1",target="h3"}' "$t")" "h1->h3 before the cut"

# --- cut h3's link --------------------------------------------------------
# in h3's namespace: SSH answered with a reset, echo requests dropped
lab run h3 -- nft -f - <<'EON'
table inet netprofcut {
	chain input {
		type filter hook input priority 0;
		tcp dport 22 reject with tcp reset
		icmp type echo-request drop
	}
}
EON
at_exit "\"\$LAB_SH\" run --name tmprom h3 -- nft delete table inet netprofcut 2>/dev/null"
h3_failed() { [ "$(query 'netprof_probe_ok{kind="ping",source="h1",target="h3"}')" = 0 ]; }
wait_for 60 h3_failed || fail "h1->h3 never failed in Prometheus"
# an instant after the failure was seen: date +%s truncates, so a time
# taken at once can fall before the sample that failed
sleep 1
t=$(date +%s)
sleep 1
sweep=$(query 'netprof_sweep_number' "$t")
assert_eq 0 "$(query 'netprof_probe_ok{kind="ping",source="h1",target="h3"}' "$t")"
assert_eq false "$(jq -r --argjson s "$sweep" 'select(.sweep == $s and .kind == "ping" and .source == "h1" and .target == "h3") | .ok' sweeps.jsonl)" \
    "the JSONL of sweep $sweep: h1->h3"
assert_eq 1 "$(query 'netprof_probe_failure_info{kind="ping",source="h1",target="h3"}' "$t")"

firing() {
	[ -n "$(query "ALERTS{alertname=\"$1\",alertstate=\"firing\"$2}")" ]
}
wait_for 60 firing NetprofHostUnreachable ',host="h3"' ||
    fail "NetprofHostUnreachable did not fire for h3"
wait_for 30 firing NetprofProbeFailing ',source="h1",target="h3"' ||
    fail "NetprofProbeFailing did not fire for h1->h3"
[ -z "$(query 'ALERTS{alertname="NetprofHostUnreachable",host="h1"}')" ] ||
    fail "NetprofHostUnreachable fired for h1, which is up"

# SIGTERM: netprof ends, 130, its listener gone
kill -TERM $np_pid
rc=0
wait $np_pid || rc=$?
assert_eq 130 "$rc" "collect's exit status after SIGTERM"
curl -s -o /dev/null "http://127.0.0.1:$np_port/metrics" && fail "the listener is still there"
kill $prom_pid; wait $prom_pid 2>/dev/null || true
lab run h3 -- nft delete table inet netprofcut

# --- node_exporter's textfile collector reads --metrics-file ---------------
assert_status 0 "$NETPROF_BIN" collect --config "$LAB_INVENTORY" --output once.jsonl \
    --ping-count 2 --ping-interval 0.2 --metrics-file textfile/netprof.prom -q
ne_port=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$ne_port" \
    --collector.disable-defaults --collector.textfile \
    --collector.textfile.directory="$T/textfile" >node_exporter.log 2>&1 &
ne_pid=$!
at_exit "kill $ne_pid 2>/dev/null; wait $ne_pid 2>/dev/null"
ne_up() { curl -sf "http://127.0.0.1:$ne_port/metrics" >node.prom; }
wait_for 20 ne_up || fail "node_exporter did not answer: $(cat node_exporter.log)"
assert_file_contains node.prom 'node_textfile_scrape_error 0'
want=$(jq -r 'select(.kind == "ping" and .source == "h2" and .target == "h1") | .metrics.avg / 1000' once.jsonl)
got=$(awk '$1 == "netprof_ping_rtt_avg_seconds{source=\"h2\",target=\"h1\"}" { print $2 }' node.prom)
[ -n "$got" ] || fail "node_exporter does not serve h2->h1's RTT"
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * (b < 0 ? -b : b) + 1e-12) }' ||
    fail "h2->h1 via node_exporter: $got s, JSONL $want s"
test_pass
