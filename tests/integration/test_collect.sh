#!/usr/bin/env bash
# collect on a 4-host lab over real SSH, with real ping and iperf3: every
# ordered pair exactly once per kind and all ok; the rate-limited host's
# iperf3 Mbps is within 15% of its tbf/htb rate; no host is in two
# overlapping iperf3 tests (checked from the records' timestamps); the
# records carry upstream's time forms and the added fields; a record's
# command, pasted into a shell, runs the probe again through OpenSSH;
# --serial measures the same pairs.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh ping iperf3 jq tc

lab_up tcol 4 --rate h4=40mbit
out=$NETPROF_TEST_TMP/collect.jsonl
inv=$LAB_INVENTORY

assert_status 0 "$NETPROF_BIN" collect --config "$inv" --output "$out" \
    --iperf --ping-count 3 --ping-interval 0.2 --iperf-seconds 2
assert_contains "$OUT" "24 probes ok, 0 failed"
assert_contains "$OUT" "iperf3 round 6/6 done"

# every ordered pair exactly once per kind, all ok
assert_eq 24 "$(wc -l <"$out")" "records"
assert_eq 24 "$(jq -r '[.kind,.source,.target]|@tsv' "$out" | sort -u | wc -l)" \
    "distinct (kind, source, target)"
assert_eq 12 "$(jq -r 'select(.kind=="ping")|.source+">"+.target' "$out" | sort -u | wc -l)"
assert_eq 12 "$(jq -r 'select(.kind=="iperf3")|.source+">"+.target' "$out" | sort -u | wc -l)"
assert_eq 0 "$(jq -r 'select(.source==.target)' "$out" | wc -l)" "self pairs"
assert_eq "true" "$(jq -s 'all(.ok)' "$out")" "all ok"

# upstream fields and the added ones
rec=$(jq -c 'select(.kind=="ping" and .source=="h1" and .target=="h2")' "$out")
assert_eq "$(lab_addr h2)" "$(jq -r .target_address <<<"$rec")"
assert_eq "null" "$(jq -r .error <<<"$rec")"
# fan-out: fping -C where the host has it, else a ping per target; the
# record's command is the line that reproduces the probe, run again here
if command -v fping >/dev/null; then
	inner="LC_ALL=C fping -C 3 -p 200 -t 500 -q $(lab_addr h2)"
	want="$(lab_addr h2) : "
else
	inner="LC_ALL=C ping -c 3 -i 0.2 $(lab_addr h2)"
	want="3 packets transmitted, 3 received"
fi
cmd="ssh -l $LAB_USER -i $LAB_DIR/id_ed25519 -F $LAB_DIR/ssh_config -o UserKnownHostsFile=$LAB_DIR/known_hosts $(lab_addr h1) '$inner'"
assert_eq "$cmd" "$(jq -r .command <<<"$rec")" "the line that reproduces the probe"
again=$(timeout 30 setsid sh -c "$(jq -r .command <<<"$rec")" </dev/null 2>&1)
assert_contains "$again" "$want"
assert_eq "fanout" "$(jq -r .mode <<<"$rec")"
assert_eq 3 "$(jq -r '.metrics.samples_ms|length' <<<"$rec")" "ping samples"
assert_eq "0" "$(jq -r '.metrics.loss_pct' <<<"$rec")"
assert_eq "true" "$(jq -r '(.metrics|has("min") and has("avg") and has("max") and has("jitter") and has("p50") and has("p95")) and (.timestamp|test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+]00:00$")) and (.started_at|test("^[0-9-]{10}T[0-9:]{8}[.][0-9]{3}[+]00:00$")) and (.timestamp == .ended_at[0:19] + "+00:00") and (.ended_at >= .started_at) and .round >= 1' <<<"$rec")" "ping record fields"
rec=$(jq -c 'select(.kind=="iperf3" and .source=="h1" and .target=="h2")' "$out")
assert_eq "true" "$(jq -r '.metrics|(.mbps>0) and (.sender_mbps>0) and (.receiver_mbps>0) and has("retransmits") and (.bytes>0) and (.seconds>1.5)' <<<"$rec")" "iperf3 metrics"
assert_contains "$(jq -r .server_command <<<"$rec")" "$(lab_addr h2) 'LC_ALL=C iperf3 -s -1 -p 5201 --forceflush --idle-timeout 15'"

# the rate limit is measured: 40 Mbit/s within 15%
for t in h1 h2 h3; do
	mbps=$(jq -r "select(.kind==\"iperf3\" and .source==\"h4\" and .target==\"$t\")|.metrics.mbps" "$out")
	assert_eq 1 "$(awk -v m="$mbps" 'BEGIN{print (m >= 34 && m <= 46) ? 1 : 0}')" \
	    "h4->$t measured $mbps Mbps for a 40 Mbit/s limit"
done

# exclusivity: no host in two iperf3 tests whose [started_at, ended_at] overlap
overlaps=$(jq -r 'select(.kind=="iperf3")|[.started_at,.ended_at,.source,.target]|@tsv' "$out" |
    awk '{s[NR]=$1; e[NR]=$2; a[NR]=$3; b[NR]=$4}
	END {for (i=1;i<=NR;i++) for (j=i+1;j<=NR;j++)
		if ((a[i]==a[j]||a[i]==b[j]||b[i]==a[j]||b[i]==b[j]) &&
		    s[i] < e[j] && s[j] < e[i])
			print a[i]">"b[i]" overlaps "a[j]">"b[j]}')
assert_eq "" "$overlaps" "overlapping iperf3 tests on a host"
# ...and the checker itself sees a planted overlap
planted=$(printf '1\t3\th1\th2\n2\t4\th2\th3\n' | awk '{s[NR]=$1; e[NR]=$2; a[NR]=$3; b[NR]=$4}
	END {for (i=1;i<=NR;i++) for (j=i+1;j<=NR;j++)
		if ((a[i]==a[j]||a[i]==b[j]||b[i]==a[j]||b[i]==b[j]) &&
		    s[i] < e[j] && s[j] < e[i]) print "x"}')
assert_eq "x" "$planted" "overlap checker"
# ping and iperf3 never at once: every iperf3 test starts after the last ping
assert_eq "true" "$(jq -s '([.[]|select(.kind=="ping")|.ended_at]|max) <= ([.[]|select(.kind=="iperf3")|.started_at]|min)' "$out")" \
    "ping phase ends before iperf3 starts"

# ping in parallel: some pings overlap in time (all 12 run at once)
assert_eq 1 "$(jq -s '[.[]|select(.kind=="ping")|.round]|max' "$out")" "ping rounds"

# --serial: the same pairs, one at a time
sout=$NETPROF_TEST_TMP/serial.jsonl
assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$sout" \
    --serial --ping-count 2 --ping-interval 0.2
assert_eq 12 "$(jq -r '.source+">"+.target' "$sout" | sort -u | wc -l)" "serial pairs"
assert_eq "" "$(jq -r '[.started_at,.ended_at]|@tsv' "$sout" | sort |
    awk 'NR>1 && $1 < prev {print "overlap"} {prev=$2}')" "--serial runs one at a time"
# --rounds: N-1 = 3 shift rounds
assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$sout" \
    --rounds --ping-count 2 --ping-interval 0.2
assert_eq 3 "$(jq -s '[.[].round]|max' "$sout")" "--rounds: N-1 rounds"
test_pass
