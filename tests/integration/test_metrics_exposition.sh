#!/usr/bin/env bash
# heatmap --metrics / --metrics-file: collect and bench records (and a
# hostile file) become Prometheus' text format that `promtool check
# metrics` accepts; the values are the latest record of each pair in base
# units (the JSONL's milliseconds as seconds, Mbit/s as bytes/s, loss in
# percent as a ratio); a failed pair has probe_ok 0 and its error class;
# label values are escaped, and bytes that are not UTF-8 replaced; the
# file is replaced whole. No host contacted.
. "$(dirname "$0")/lib.sh"
require_cmd promtool jq strace

T=$NETPROF_TEST_TMP/metrics-exposition
rm -rf "$T"
mkdir -p "$T"
cd "$T" || exit 1
np() { "$NETPROF_BIN" "$@"; }
collect=$NETPROF_FIXTURES/heatmap/collect.jsonl
bench=$NETPROF_FIXTURES/heatmap/measurements.jsonl
hostile=$NETPROF_FIXTURES/heatmap/hostile.jsonl

# sample NAME LABELS FILE: the value of the sample NAME{LABELS}
sample() {
	awk -v want="$1{$2}" '$1 == want { print $2 }' "$3"
}
# the same number? (awk compares as numbers, to 1e-9 relative)
same_number() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d;
	    m = a < 0 ? -a : a; exit !(a != "" && b != "" && d <= 1e-9 * m + 1e-15) }'
}

for f in "$collect" "$bench" "$hostile"; do
	np heatmap --input "$f" --metrics >"$(basename "$f").prom" 2>err.txt ||
	    fail "heatmap --metrics $f: $(cat err.txt)"
	assert_status 0 promtool check metrics <"$(basename "$f").prom"
	assert_eq "" "$OUT" "promtool finds nothing to say about $(basename "$f")"
done
[ ! -e results/network-heatmap.html ] || fail "--metrics alone wrote a page"

# Host names that are not UTF-8 (bytes FF FE, a surrogate's encoding) are
# not refused by the records' reader; in the exposition each such byte is
# U+FFFD, so promtool (and Prometheus) still take the whole of it.
printf '{"kind":"ping","source":"h\xff\xfe","target":"b\xed\xa0\x80\xc3\xa9","ok":true,"metrics":{"avg":1}}\n' >not-utf8.jsonl
np heatmap --input not-utf8.jsonl --metrics >not-utf8.prom 2>err.txt || fail "heatmap --metrics: $(cat err.txt)"
assert_status 0 promtool check metrics <not-utf8.prom
assert_eq "" "$OUT" "promtool finds nothing to say about hosts that are not UTF-8"
assert_file_contains not-utf8.prom "$(printf 'netprof_probe_ok{kind="ping",source="h\xef\xbf\xbd\xef\xbf\xbd",target="b\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9"} 1')"

# collect: alpha->beta's latest ping (round 2: 0.5 ms), as seconds
c=collect.jsonl.prom
latest=$(jq -rs '[.[] | select(.kind=="ping" and .source=="alpha" and .target=="beta")]
    | max_by(.ended_at) | .metrics' "$collect")
for stat in min avg max p50 p95; do
	want=$(jq -r ".$stat / 1000" <<<"$latest")
	got=$(sample netprof_ping_rtt_${stat}_seconds 'source="alpha",target="beta"' $c)
	same_number "$want" "$got" || fail "ping $stat alpha->beta: JSONL $want s, exposition '$got'"
done
want=$(jq -r '.loss_pct / 100' <<<"$latest")
same_number "$want" "$(sample netprof_ping_loss_ratio 'source="alpha",target="beta"' $c)" ||
    fail "loss ratio alpha->beta"
assert_eq 1 "$(sample netprof_probe_ok 'kind="ping",source="alpha",target="beta"' $c)"

# a failed pair: probe_ok 0, its class, no RTT sample
read -r fs ft fc < <(jq -rs '[.[] | select(.ok == false)] | last | "\(.source) \(.target) \(.error_class)"' "$collect")
fk=$(jq -rs --arg s "$fs" --arg t "$ft" '[.[] | select(.ok == false and .source==$s and .target==$t)] | last | .kind' "$collect")
assert_eq 0 "$(sample netprof_probe_ok "kind=\"$fk\",source=\"$fs\",target=\"$ft\"" $c)" "failed pair $fs->$ft"
assert_eq 1 "$(sample netprof_probe_failure_info "kind=\"$fk\",source=\"$fs\",target=\"$ft\",error_class=\"$fc\"" $c)"
assert_file_contains $c 'netprof_build_info{version="'

# iperf3: Mbit/s -> bytes/s
read -r is it im < <(jq -rs '[.[] | select(.kind=="iperf3" and .ok)] | last | "\(.source) \(.target) \(.metrics.mbps)"' "$collect")
same_number "$(awk -v m="$im" 'BEGIN { printf "%.6f", m * 1e6 / 8 }')" \
    "$(sample netprof_iperf3_throughput_bytes_per_second "source=\"$is\",target=\"$it\"" $c)" ||
    fail "iperf3 $is->$it throughput"

# bench kinds
b=measurements.jsonl.prom
want=$(jq -rs '[.[] | select(.kind=="libp2p_ping" and .source=="alpha" and .target=="beta")] | last | .metrics.p50_ms / 1000' "$bench")
same_number "$want" "$(sample netprof_libp2p_ping_rtt_p50_seconds 'source="alpha",target="beta"' $b)" ||
    fail "libp2p_ping p50 alpha->beta"
want=$(jq -rs '[.[] | select(.kind=="throughput" and .source=="alpha" and .target=="beta")] | last | .metrics.mbps * 1e6 / 8' "$bench")
same_number "$want" "$(sample netprof_libp2p_throughput_bytes_per_second 'source="alpha",target="beta"' $b)" ||
    fail "throughput alpha->beta"
assert_file_contains $b 'netprof_libp2p_latency_p95_seconds{source="alpha",target="beta"}'

# label values escaped as the text format wants
assert_file_contains hostile.jsonl.prom 'netprof_probe_ok{kind="ping",source="b&\"q'"'"'",target="<script>alert(1)</script>"} 0'

# --metrics-file: written whole, replaced whole, no temporary file left
assert_status 0 np heatmap --input "$collect" --metrics-file out/netprof.prom
cmp -s out/netprof.prom collect.jsonl.prom || fail "--metrics-file differs from --metrics"
assert_status 0 np heatmap --input "$bench" --metrics-file out/netprof.prom
cmp -s out/netprof.prom measurements.jsonl.prom || fail "--metrics-file not replaced"
assert_eq "out/netprof.prom" "$(echo out/*)" "nothing but the file in its directory"
# Its temporary file has a name nobody could plant a file at in advance
# (not NAME.tmp.PID), made with O_EXCL, and is synced before the rename.
# (LeakSanitizer does not run under ptrace: the ASan build's leak check is
# left to the runs above.)
assert_status 0 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -qq -e trace=openat,fsync,fdatasync,rename -o trace.txt \
    "$NETPROF_BIN" heatmap --input "$collect" --metrics-file out/netprof.prom
tmp=$(sed -n 's|.*openat(AT_FDCWD, "\(out/[^"/]*netprof\.prom[^"]*\)", [^)]*O_EXCL.*) = \([0-9]*\)$|\1 \2|p' trace.txt)
read -r tmpname tmpfd <<<"$tmp"
[ -n "$tmpname" ] || fail "no temporary file opened with O_EXCL: $(grep netprof.prom trace.txt)"
case $tmpname in
*.tmp.[0-9]*) fail "a predictable temporary name: $tmpname" ;;
esac
assert_eq 1 "$(awk -v t="$tmpname" -v fd="$tmpfd" '
    index($0, "openat(AT_FDCWD, \"" t "\"") { open = 1 }
    open && ($2 == "fsync(" fd ")" || $2 == "fdatasync(" fd ")") { synced = 1 }
    index($0, "rename(\"" t "\"") { print synced + 0; exit }' trace.txt)" \
    "the temporary file synced before its rename"
assert_status 2 np heatmap --input "$collect" --metrics-file "$collect"
assert_contains "$OUT" "is the input"
mkdir ro && chmod 555 ro
if [ "$(id -u)" != 0 ]; then
	assert_status 1 np heatmap --input "$collect" --metrics-file ro/x.prom
	assert_contains "$OUT" "ro/x.prom"
fi
# collect's metrics options, refused before anything runs
inv=$NETPROF_FIXTURES/inventory/ssh.json
assert_status 2 np collect --config "$inv" --count 3
assert_contains "$OUT" "--count and --rotate go with --every DURATION"
assert_status 2 np collect --config "$inv" --every 5x
assert_contains "$OUT" "--every: '5x' is not a duration up to a week"
assert_status 2 np collect --config "$inv" --every 1m --metrics-listen 0.0.0.0:9464
assert_contains "$OUT" "0.0.0.0 is not a loopback address"
assert_contains "$OUT" "--metrics-public"
assert_status 2 np collect --config "$inv" --metrics-listen 127.0.0.1:99999
assert_contains "$OUT" "is not [ADDR:]PORT"
assert_status 2 np collect --config "$inv" --every 1m --resume --output x.jsonl
assert_contains "$OUT" "does not go with --every"
test_pass
