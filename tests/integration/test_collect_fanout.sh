#!/usr/bin/env bash
# Fan-out ping and duplex iperf3 on an 8-host lab, with both fan-out tools
# (fping -C and one ping per target): every ordered pair recorded once,
# each source's pairs run by one command; one target that nobody answers
# among many fails only its own pairs; SIGINT during the fan-out exits 130
# and leaves no ping or fping in any namespace, and --resume then runs
# exactly the missing pairs; duplex iperf3 runs each host as client and
# server at once but never two clients or two servers on one host.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ping fping iperf3 jq

lab_up tcfan 8
inv=$LAB_INVENTORY
pairs=56

# Names of the processes in the lab's namespaces (sshd aside), one ps call.
lab_comms() {
	local p
	p=$(lab pids | paste -sd, -)
	[ -z "$p" ] || ps -o comm= -p "$p" || true
}

for tool in fping ping; do
	out=$NETPROF_TEST_TMP/fan-$tool.jsonl
	assert_status 0 "$NETPROF_BIN" -vv collect --config "$inv" --output "$out" \
	    --ping-count 3 --ping-interval 0.2 --ping-tool $tool
	assert_eq $pairs "$(jq -r 'select(.kind=="ping")|[.source,.target]|@tsv' "$out" | sort -u | wc -l)" \
	    "$tool: every pair"
	assert_eq $pairs "$(wc -l <"$out")" "$tool: every pair once"
	assert_eq "$pairs fanout" "$(jq -r 'select(.ok and .metrics.received == 3)|.mode' "$out" | sort | uniq -c | awk '{print $1, $2}')" \
	    "$tool: all ok, 3 replies each, measured by fan-out"
	assert_contains "$(jq -r .command "$out" | head -1)" "LC_ALL=C $tool "
	# one fan-out command (one channel) per source, not one per pair
	assert_eq 8 "$(grep -c 'ping fan-out to 7 targets' <<<"$OUT")" "$tool: fan-outs"
done

# --- one target nobody answers ------------------------------------------
ghost=198.18.$LAB_SUBNET.250
ginv=$NETPROF_TEST_TMP/ghost.json
jq --arg a "$ghost" '.machines += [{"name": "ghost", "address": $a, "ssh_host": $a}]' \
    "$inv" >"$ginv"
for tool in fping ping; do
	out=$NETPROF_TEST_TMP/ghost-$tool.jsonl
	assert_status 1 "$NETPROF_BIN" -q collect --config "$ginv" --output "$out" \
	    --ping-count 2 --ping-interval 0.2 --ping-tool $tool
	assert_eq 72 "$(wc -l <"$out")" "$tool: 9 hosts, every pair once"
	assert_eq $pairs "$(jq -r 'select(.ok)|.source' "$out" | wc -l)" \
	    "$tool: the pairs without ghost are all ok"
	assert_eq "8 tool_failed" "$(jq -r 'select(.target=="ghost")|.error_class' "$out" | sort | uniq -c | awk '{print $1, $2}')" \
	    "$tool: pings to ghost fail alone"
	assert_contains "$(jq -r 'select(.target=="ghost")|.error' "$out" | head -1)" "100% packet loss"
	assert_eq "8 unreachable" "$(jq -r 'select(.source=="ghost")|.error_class' "$out" | sort | uniq -c | awk '{print $1, $2}')" \
	    "$tool: ghost's own pairs fail unreachable"
done

# --- SIGINT during the fan-out, then --resume ----------------------------
for tool in fping ping; do
	int=$NETPROF_TEST_TMP/int-$tool.jsonl
	rm -f "$int"
	"$NETPROF_BIN" -q collect --config "$inv" --output "$int" \
	    --ping-count 150 --ping-interval 0.2 --ping-tool $tool &
	pid=$!
	# the sweep lasts 30 s: the interrupt once every source's fan-out
	# runs (an fping per source, a ping per pair), looked for every 0.1 s
	want=$([ $tool = fping ] && echo 8 || echo $pairs)
	for _ in $(seq 200); do
		n=$(lab_comms | grep -cxE 'ping|fping' || true)
		[ "$n" -ge "$want" ] && break
		sleep 0.1
	done
	[ "$n" -ge "$want" ] || fail "$tool: the fan-outs did not start ($n of $want running)"
	kill -INT $pid
	rc=0
	wait $pid || rc=$?
	assert_eq 130 "$rc" "$tool: exit status after SIGINT"
	sleep 0.3
	left=$(lab_comms | grep -xE 'ping|fping|sh' || true)
	assert_eq "" "$left" "$tool: processes left in the lab after SIGINT"
	n1=$(wc -l <"$int" 2>/dev/null || echo 0)
	[ "$n1" -lt $pairs ] || fail "$tool: the run finished before the interrupt"
	assert_status 0 "$NETPROF_BIN" collect --config "$inv" --output "$int" \
	    --resume --ping-count 2 --ping-interval 0.2 --ping-tool $tool
	assert_eq $pairs "$(wc -l <"$int")" "$tool: records after --resume"
	assert_eq $pairs "$(jq -r '[.source,.target]|@tsv' "$int" | sort -u | wc -l)" \
	    "$tool: each pair exactly once after --resume"
done

# --- duplex iperf3 -------------------------------------------------------
out=$NETPROF_TEST_TMP/duplex.jsonl
assert_status 0 "$NETPROF_BIN" collect --config "$inv" --output "$out" \
    --hosts h1,h2,h3,h4 --iperf --iperf-mode duplex --iperf-seconds 1 \
    --ping-count 1
assert_eq "12 duplex" "$(jq -r 'select(.kind=="iperf3" and .ok)|.mode' "$out" | sort | uniq -c | awk '{print $1, $2}')" \
    "duplex: every iperf3 pair ok, recorded as duplex"
assert_contains "$OUT" "iperf3 round 3/3 done"
# overlaps in time: two clients (or two servers) on a host never; a client
# and a server on a host, yes
overlaps() {
	jq -s --arg by "$1" '[.[]|select(.kind=="iperf3")] as $r |
	    [$r[] as $a | $r[] as $b |
	     select($a != $b and $a[$by] == $b[$by] and
	            $a.started_at < $b.ended_at and $b.started_at < $a.ended_at)] |
	    length' "$out"
}
assert_eq 0 "$(overlaps source)" "two tests with the same client at once"
assert_eq 0 "$(overlaps target)" "two tests with the same server at once"
both=$(jq -s '[.[]|select(.kind=="iperf3")] as $r |
    [$r[] as $a | $r[] as $b |
     select($a.source == $b.target and
            $a.started_at < $b.ended_at and $b.started_at < $a.ended_at)] |
    length' "$out")
[ "$both" -gt 0 ] || fail "duplex: no host was client and server at once"
test_pass
