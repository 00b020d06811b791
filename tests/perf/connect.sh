#!/usr/bin/env bash
# Cold connection time and libp2p against the raw IP path, on the lab with
# the stand-in node: collect's ICMP ping and iperf3, then bench's
# libp2p_ping, throughput and connect (the stand-in's, OTELA_KIND_CONNECT=1)
# over the same hosts. Prints, over the ordered pairs (median, smallest,
# largest): connect (a new connection and its first ping) in ms and in
# round trips of the pair's ICMP RTT, libp2p_ping in RTTs, and libp2p
# throughput as a fraction of iperf3's; the ratios as the heatmap's overlay
# takes them (the RTT at least 1 ms).
#
# usage: tests/perf/connect.sh [N]   (default 4 hosts; needs root)
# env:   NETPROF_BIN (default: build/main/netprof, built),
#        CONNECT_WAN (1: the hosts in 3 sites one-way 5, 15 and 30 ms from
#        the core, as tests/perf/bench.sh's BENCH_WAN; else a flat lab)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
BIN=$(bench_binary "${NETPROF_BIN:-}") || exit 1
N=${1:-4}
tools=(jq node iperf3)
[ "${CONNECT_WAN:-0}" = 1 ] && tools+=(wirefilter vde_switch)
bench_lab_setup connect.sh connb "${tools[@]}"
"$SRC/tests/otela-node/install.sh" >/dev/null

sites=()
if [ "${CONNECT_WAN:-0}" = 1 ]; then
	sites=(--site "a=$(( (N + 2) / 3 )),delay=5" --site "b=$(( (N + 1) / 3 )),delay=15"
	    --site "c=$(( N / 3 )),delay=30" --home delay=10)
fi
"$LAB" up --name connb --hosts "$N" --dir "$WORK/lab" "${sites[@]}" >/dev/null
jq --arg p "$SRC/tests/otela-node/bin" \
    '.remote_setup = "export PATH=\($p):$PATH OTELA_KIND_CONNECT=1"' \
    "$WORK/lab/machines.json" >"$WORK/inv.json"
echo "connect.sh: $N hosts, $([ "${CONNECT_WAN:-0}" = 1 ] &&
    echo "3 sites 5/15/30 ms from the core" || echo "a flat lab"); load $(cut -d' ' -f1-3 /proc/loadavg)"
"$BIN" -q collect --config "$WORK/inv.json" --output "$WORK/collect.jsonl" \
    --kinds ping,iperf3 || echo "  warning: collect exited $?" >&2
"$BIN" -q bench --config "$WORK/inv.json" --output "$WORK/bench" --run-id connect \
    --kinds libp2p_ping,throughput,connect --latency-count 10 >/dev/null ||
	echo "  warning: bench exited $?" >&2
jq -r 'select(.ok|not)|"  warning: \(.source)->\(.target) \(.kind): \(.error)"' \
    "$WORK/collect.jsonl" "$WORK/bench/measurements.jsonl" | head -3 >&2 || true

# name, then the figure per pair from the records of both runs
jq -rs '
  def at(k; f): map(select(.kind == k and .ok) | {key: "\(.source)>\(.target)", value: f}) | from_entries;
  def stats(n): sort | if length == 0 then "\(n): none"
    else "\(n): median \(.[(length - 1) / 2 | floor] * 1000 | round / 1000), \(.[0] * 1000 | round / 1000) .. \(.[-1] * 1000 | round / 1000) (\(length) pairs)" end;
  at("ping"; .metrics.avg) as $rtt | at("iperf3"; .metrics.mbps) as $ip |
  at("connect"; .metrics.p50_ms) as $c | at("libp2p_ping"; .metrics.p50_ms) as $p |
  at("throughput"; .metrics.mbps) as $t |
  def over(a; b; floor): [a | to_entries[] | select(b[.key] != null) |
    .value / ([b[.key], floor] | max)];
  ([$rtt[]] | stats("ICMP RTT (ms)")),
  ([$c[]] | stats("connect + first ping (ms)")),
  (over($c; $rtt; 1) | stats("connect in ICMP RTTs (connect_x_rtt)")),
  (over($p; $rtt; 1) | stats("libp2p_ping in ICMP RTTs (libp2p_ping_x_rtt)")),
  ([$ip[]] | stats("iperf3 (Mbit/s)")), ([$t[]] | stats("libp2p throughput (Mbit/s)")),
  (over($t; $ip; 0) | stats("libp2p / iperf3 (throughput_x_iperf3)"))
' "$WORK/collect.jsonl" "$WORK/bench/measurements.jsonl"
for m in dial_ms first_rtt_ms; do
	jq -r "select(.kind == \"connect\" and .ok) | .metrics.$m" "$WORK/bench/measurements.jsonl" |
	    sort -g | awk -v m=$m '{v[NR]=$1} END { if (NR) printf "connect'"'"'s %s: median %.1f\n", m, v[int((NR+1)/2)] }'
done
