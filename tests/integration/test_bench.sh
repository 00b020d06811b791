#!/usr/bin/env bash
# bench on a 4-host lab with the stand-in otela node on the hosts' PATH:
# every phase runs, every ordered pair x 3 kinds is recorded once and ok in
# upstream's record shape (plus netprof's fields), run.json is complete,
# and afterwards no node process is left in any lab namespace and no bench
# directory on the hosts. Then --keep leaves the mesh up and --teardown
# RUN_ID takes it down; --serial and --baseline give the same pairs.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh jq node ping
require_otela

small=(--latency-count 5 --throughput-count 2 --throughput-bytes 1048576)

# --- the local transport (the node API through curl on the host), and
# --- per-machine ports: two nodes on this machine ---------------------
# (the stand-in only: this machine is not a lab namespace, and a real
# node's traffic must stay in the lab); beside the lab's start and runs,
# checked at the end
local_pid=
if [ -z "${NETPROF_TEST_OTELA:-}" ]; then
	cat >"$NETPROF_TEST_TMP/$TEST_NAME.local.json" <<EOF
{"remote_setup": "$(otela_setup)",
 "machines": [
  {"name": "a", "address": "127.0.0.1", "transport": "local",
   "http_port": 29090, "libp2p_port": 29091},
  {"name": "b", "address": "127.0.0.1", "transport": "local",
   "http_port": 29190, "libp2p_port": 29191}]}
EOF
	# an earlier run's output is refused, and so are the directories of
	# its nodes where it was killed (lib.sh's reaper ends the nodes)
	rm -rf "$NETPROF_TEST_TMP/local" /tmp/otela-bench-t7-a /tmp/otela-bench-t7-b
	"$NETPROF_BIN" bench --config "$NETPROF_TEST_TMP/$TEST_NAME.local.json" \
	    --output "$NETPROF_TEST_TMP/local" --run-id t7 "${small[@]}" >"$NETPROF_TEST_TMP/local.out" 2>&1 &
	local_pid=$!
	at_exit "kill $local_pid 2>/dev/null || true"
fi

lab_up tbench 4
inv=$NETPROF_TEST_TMP/bench.json
jq --arg p "$(otela_setup)" '.remote_setup = $p' "$LAB_INVENTORY" >"$inv"
# the baseline's pings: 3 echoes 0.2 s apart each, where the inventory's
# defaults (5, 1 s apart) took 49 of the test's 105 s
fast=$NETPROF_TEST_TMP/bench-fastping.json
jq '.ping_count = 3 | .ping_interval = 0.2' "$inv" >"$fast"
# the same with the stand-in's connect kind (the real node has none)
fastc=$NETPROF_TEST_TMP/bench-fastping-connect.json
jq '.remote_setup += "; export OTELA_KIND_CONNECT=1"' "$fast" >"$fastc"

# Nothing of run $1 left: no process in the lab, no directory on the hosts.
assert_nothing_left() {
	local left
	sleep 0.3
	left=$(for p in $(lab pids); do ps -o pid=,args= -p "$p" 2>/dev/null; done || true)
	assert_eq "" "$left" "processes left in the lab after $2"
	assert_eq "" "$(ls -d /tmp/otela-bench-"$1"-* 2>/dev/null || true)" \
	    "bench directories left after $2"
}

# The path phase's reach checks in run $1: begun as soon as every node is
# up, beside the convergence (each host's path step from the start's end),
# every pair's TCP connect taken; with --serial ($2 = serial) after the
# punch, in upstream's order.
check_reach_early() {
	local run=$1/run.json
	if [ "${2:-}" = serial ]; then
		assert_eq 0 "$(jq '[.machines[].phase_times|select(.path[0] < .converge[1])]|length' "$run")" \
		    "--serial: each host's reach checks after its convergence"
		return
	fi
	assert_eq 0 "$(jq '[.machines[].phase_times|select(.path[0] > .converge[0] or .path[0] < .start[1])]|length' "$run")" \
	    "each host's reach checks begun at the start's end, beside the convergence"
	assert_eq 0 "$(jq '[.reach[]|select(.tcp != true)]|length' "$run")" \
	    "every reach check connected"
}

# Throughput with the defaults (--throughput-mode auto) in run $1: the
# pairs run both ways at once are those of no site whose faster reach
# handshake took at most 1 ms (run.json's reach), each with its two ways
# in one round and at once; no node in two transfers at once otherwise.
check_both_ways() {
	local run=$1/run.json rec=$1/measurements.jsonl want got bad
	assert_eq auto "$(jq -r .config.throughput_mode "$run")" "throughput_mode auto by default"
	want=$(jq -r '.reach|to_entries|map(select(.value.connect_ms != null)|
	    {k: (.key|split("->")|sort|join(" ")), v: .value.connect_ms})|
	    group_by(.k)|map(select(map(.v)|min <= 1)|.[0].k)|.[]' "$run" | sort)
	got=$(jq -r '.config.throughput_both_ways[]|sort|join(" ")' "$run" | sort)
	assert_eq "$want" "$got" "both ways: the pairs one LAN apart by their reach checks"
	[ -n "$got" ] || fail "no pair of the flat lab ran both ways"
	# throughput records as "start end source target round", ms
	jq -r 'select(.kind=="throughput")|def ms: (.[0:19]+"Z"|fromdateiso8601) * 1000 + (.[20:23]|tonumber);
	    "\(.started_at|ms) \(.ended_at|ms) \(.source) \(.target) \(.round)"' "$rec" >"$1/tp.txt"
	TEST_CHECKS=$((TEST_CHECKS + 1))
	bad=$(awk -v both="$(tr '\n' ',' <<<"$got")" '
	    { s[NR] = $1; e[NR] = $2; a[NR] = $3; b[NR] = $4; r[NR] = $5 }
	    END { n = split(both, p, ",")
		for (i = 1; i <= n; i++) if (p[i] != "") pair[p[i]] = 1
		for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) {
			k = a[i] < b[i] ? a[i] " " b[i] : b[i] " " a[i]
			rev = a[i] == b[j] && b[i] == a[j]
			if (rev && (k in pair) && r[i] != r[j])
				print a[i] "->" b[i] " and back in rounds " r[i] ", " r[j]
			if (s[i] >= e[j] || s[j] >= e[i]) continue
			if (a[i] != a[j] && a[i] != b[j] && b[i] != a[j] && b[i] != b[j]) continue
			if (!(rev && (k in pair)))
				print a[i] "->" b[i] " and " a[j] "->" b[j] " at once"
		} }' "$1/tp.txt")
	[ -z "$bad" ] || fail "throughput with the defaults: $bad"
}

# --- the whole run ----------------------------------------------------
out=$NETPROF_TEST_TMP/run1
rm -rf "$out"
assert_status 0 "$NETPROF_BIN" bench --config "$inv" --output "$out" \
    --run-id t1 "${small[@]}"
rec=$out/measurements.jsonl
assert_eq 36 "$(wc -l <"$rec")" "records: 12 ordered pairs x 3 kinds"
assert_eq 36 "$(jq -r '[.source,.target,.kind]|@tsv' "$rec" | sort -u | wc -l)" \
    "each (source, target, kind) once"
assert_eq 36 "$(jq -r 'select(.ok and .error == null and .error_class == null)|.kind' "$rec" | wc -l)" \
    "every record ok"
assert_eq "12 12 12" "$(for k in libp2p_ping latency throughput; do
	jq -r "select(.kind==\"$k\")|.kind" "$rec" | wc -l; done | xargs)" "12 per kind"
assert_eq 0 "$(jq -r 'select(.source == .target)' "$rec" | wc -l)" "no self pairs"
assert_eq 36 "$(jq -r 'select(.path == "direct" and .relay == null)|.kind' "$rec" | wc -l)" \
    "every pair of an open lab direct"
# upstream's keys, in upstream's (sorted) order, plus netprof's (the
# times, the round, the error class and the path)
keys='command config ended_at error error_class kind metrics ok path path_evidence path_known relay relay_peer_id round run_id source source_peer_id started_at target target_peer_id timestamp'
assert_eq "$keys" "$(head -1 "$rec" | jq -r 'keys_unsorted|join(" ")')" "record keys"
first=$(head -1 "$rec")
assert_eq "t1" "$(jq -r .run_id <<<"$first")"
[[ $(jq -r .timestamp <<<"$first") =~ ^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\+00:00$ ]] ||
	fail "timestamp not in upstream's form: $(jq -r .timestamp <<<"$first")"
[[ $(jq -r .started_at <<<"$first") =~ ^20[0-9-]{8}T[0-9:]{8}\.[0-9]{3}\+00:00$ ]] ||
	fail "started_at not ISO-8601 with ms: $(jq -r .started_at <<<"$first")"
assert_eq 0 "$(jq -r 'select(.timestamp != (.ended_at | sub("\\.[0-9]+"; "")))' "$rec" | wc -l)" \
    "timestamp is when the probe ended"
# the command reproduces the probe: the otela probe line, run on the
# source host through ssh from here
tp=$(jq -c 'select(.kind=="throughput")' "$rec" | sed -n 1p)
src=$(jq -r .source <<<"$tp")
assert_contains "$(jq -r .command <<<"$tp")" \
    "otela probe --target $(jq -r .target_peer_id <<<"$tp") --kind throughput --count 2 --bytes 1048576 --config /tmp/otela-bench-t1-$src/cfg.yaml --timeout 60s" \
    "command of a throughput record"
assert_contains "$(jq -r .command <<<"$tp")" "ssh " "the command goes through ssh"
assert_contains "$(jq -r .command <<<"$tp")" "$(lab_addr "$src")" "the command names the source host"
assert_eq '{"bytes":1048576,"count":2}' "$(jq -c .config <<<"$tp")"
assert_eq '{"bytes":null,"count":5}' "$(jq -c 'select(.kind=="latency")|.config' "$rec" | sed -n 1p)"
assert_eq 12 "$(jq -r 'select(.kind=="libp2p_ping")|.metrics|keys|length' "$rec" | sed -n 1p)" \
    "libp2p_ping metrics as the node gave them"
assert_eq 2 "$(jq -r 'select(.kind=="throughput")|.metrics.iterations|length' "$rec" | sed -n 1p)"
# peer ids agree with run.json
run=$out/run.json
for h in h1 h2 h3 h4; do
	pid=$(jq -r ".machines[]|select(.name==\"$h\")|.peer_id" "$run")
	[[ $pid =~ ^(12D3KooW|Qm)[1-9A-HJ-NP-Za-km-z]{44}$ ]] || fail "$h: peer_id '$pid'"
	assert_eq "$pid" "$(jq -r "select(.source==\"$h\")|.source_peer_id" "$rec" | sort -u)" "$h's source_peer_id"
done

# run.json: upstream's fields, then netprof's per-host phase status
assert_eq "config convergence ended_at interrupted kept machines phase_times phases punch reach run_id started_at totals" \
    "$(jq -r 'keys|join(" ")' "$run")" "run.json keys"
assert_eq t1 "$(jq -r .run_id "$run")"
assert_eq '{"failed":0,"ok":36}' "$(jq -c .totals "$run")"
assert_eq "configure_s converge_s discover_s init_s path_s punch_s push_s start_s sweep_s teardown_s" \
    "$(jq -r '.phases|keys|join(" ")' "$run")" "phase keys"
assert_eq 0 "$(jq '[.phases[]|select(type!="number")]|length' "$run")" "phase times are numbers"
assert_eq "true true true true" "$(jq -r '[.convergence[].complete]|map(tostring)|join(" ")' "$run")"
assert_eq 12 "$(jq '[.punch[]|select(.ok and .connectedness=="Connected")]|length' "$run")" "punch: 12 direct pairs"
assert_eq "h1->h2" "$(jq -r '.punch|keys[0]' "$run")"
assert_eq "address circuits counters dir error error_class failed_phase http_port libp2p_port log_tail name peer_id phase_times phases pid pid_start status stop_signal" \
    "$(jq -r '.machines[0]|keys|join(" ")' "$run")" "machine keys"
# the nodes' own counters over the sweep: on an open lab no circuit, none
# relayed (a node without the relay service's counters has no
# relay_circuits_served), and no record they disagree with
assert_eq 4 "$(jq '[.machines[].counters|select(.circuits_open_before == 0 and
    .circuits_opened == 0 and .circuits_closed == 0 and (.relay_circuits_served // 0) == 0)]|length' "$run")" \
    "counters: no circuit anywhere"
assert_eq 0 "$(jq -r 'select(.path_evidence|contains("counters disagree"))' "$rec" | wc -l)" \
    "no record the counters disagree with"
# The timeline's times: every phase that ran, each host's steps, start <= end.
assert_eq "configure converge discover init path punch push start sweep teardown" \
    "$(jq -r '.phase_times|keys|join(" ")' "$run")" "phase_times keys"
assert_eq "configure converge discover init path push start teardown" \
    "$(jq -r '.machines[0].phase_times|keys|join(" ")' "$run")" "a host's steps"
assert_eq 0 "$(jq '[.phase_times[], .machines[].phase_times[]|select(.[0] > .[1] or .[0] < 0)]|length' "$run")" \
    "every step starts at or after the run and ends after it starts"
assert_eq 19090 "$(jq -r '.machines[0].http_port' "$run")"
assert_eq "ok" "$(jq -r '[.machines[].status]|unique|join(",")' "$run")"
assert_eq "ok" "$(jq -r '[.machines[].phases[]]|unique|join(",")' "$run")" "every host ok in every phase"
check_both_ways "$out"
check_reach_early "$out"
assert_started_in_turn "$run"
assert_nothing_left t1 "a run"

# connect_checks DIR: run DIR's connect records (--kinds connect beside
# --baseline's pings): the stand-in's a new connection and its first ping
# per pair, in round trips of the pair's ICMP RTT on the heatmap; the real
# node's 400 "unknown kind" recorded unsupported, no failure.
connect_checks() {
	local rec=$1/measurements.jsonl
	if [ -n "${NETPROF_TEST_OTELA:-}" ]; then
		assert_eq 12 "$(jq -r 'select(.kind=="connect" and (.ok|not) and .error_class=="unsupported")|.kind' "$rec" | wc -l)" \
		    "the real node: connect unsupported on every pair"
		assert_eq '{"failed":0,"ok":12,"unsupported":12}' "$(jq -c .totals "$1/run.json")"
		return
	fi
	assert_eq 12 "$(jq -r 'select(.kind=="connect" and .ok and .metrics.p50_ms > 0 and
	    (.metrics.dial_ms + .metrics.first_rtt_ms - .metrics.p50_ms | fabs) < 1e-6)|.kind' "$rec" | wc -l)" \
	    "connect ok on every pair, its median split into dial and first ping"
	assert_eq '{"failed":0,"ok":24}' "$(jq -c .totals "$1/run.json")"
	assert_eq "true" "$(jq -c '[.[]|select(.kind=="connect")]|min_by(.started_at).started_at >=
	    ([.[]|select(.kind=="libp2p_ping")]|max_by(.ended_at).ended_at)' <(jq -s . "$rec"))" \
	    "connect after the pairs' pings (the exclusive stage)"
	# each way alone: a connect hangs up the pair's connections, and the
	# other way's cold dial beside it failed (throughput runs both ways)
	assert_eq 0 "$(jq -s '[.[]|select(.kind=="connect")] as $c | [$c[] as $x | $c[] |
	    select(.source == $x.target and .target == $x.source and
	    .started_at < $x.ended_at and $x.started_at < .ended_at)]|length' "$rec")" \
	    "no pair's two connects at once"
	assert_status 0 "$NETPROF_BIN" heatmap --input "$rec" --text
	assert_contains "$OUT" "overlay: connect_x_rtt (x ICMP RTT)"
	assert_contains "$(grep '^overlay: connect_x_rtt ' <<<"$OUT")" "; 12 pairs with a value"
}

# --- --keep, then --teardown RUN_ID; --baseline beside the start -----
work=$NETPROF_TEST_TMP/$TEST_NAME.keep
rm -rf "$work" && mkdir -p "$work"
# a failure before the teardown below leaves the kept mesh to the lab's
# end; its directories are on this machine's /tmp, shared with the lab
at_exit "rm -rf /tmp/otela-bench-t2-h1 /tmp/otela-bench-t2-h2 /tmp/otela-bench-t2-h3 /tmp/otela-bench-t2-h4"
(cd "$work" && "$NETPROF_BIN" bench --config "$fastc" --run-id t2 --keep \
    --baseline --kinds libp2p_ping,connect "${small[@]}" >out.txt 2>&1) ||
	fail "bench --keep: $(cat "$work/out.txt")"
assert_file_contains "$work/out.txt" "--teardown t2"
assert_eq "true" "$(jq -r .kept "$work/results/t2/run.json")"
assert_eq 4 "$(ls -d /tmp/otela-bench-t2-* | wc -l)" "--keep keeps the directories"
for h in h1 h2 h3 h4; do
	p=$(jq -r ".machines[]|select(.name==\"$h\")|.pid" "$work/results/t2/run.json")
	lab run "$h" -- kill -0 "$p" || fail "$h: node $p not running after --keep"
done
cd "$work"
assert_status 0 "$NETPROF_BIN" bench --config "$inv" --teardown t2
cd - >/dev/null
assert_contains "$OUT" "h4: torn down"
assert_nothing_left t2 "--teardown"
# the baseline's ICMP needs no node: it ran while the nodes started
assert_eq "true" "$(jq '.phase_times as $t|$t.baseline[0] >= $t.push[1] and
    $t.baseline[0] < $t.start[1]' "$work/results/t2/run.json")" "--baseline beside the nodes' start"
assert_eq '{"failed":0,"ok":12}' "$(jq -c .baseline_totals "$work/results/t2/run.json")"
connect_checks "$work/results/t2"

# --- --otela-bin: hosts without otela get it over their session ------
bindir=$NETPROF_TEST_TMP/$TEST_NAME.otela-bin
mkdir -p "$bindir"
printf '#!/bin/sh\n# %s\n%s\nexec %s "$@"\n' "$TEST_NAME" "$OTELA_SHORT_WAITS" \
    "${NETPROF_TEST_OTELA:-$NETPROF_SRC/tests/otela-node/bin/otela}" \
    >"$bindir/otela-$(uname -m | sed 's/x86_64/amd64/; s/aarch64/arm64/')"
chmod 755 "$bindir"/otela-*
sha=$(sha256sum "$bindir"/otela-* | cut -c1-64)
cache=$(getent passwd "$LAB_USER" | cut -d: -f6)/.cache/netprof
rm -f "$cache/otela-$sha"
at_exit "rm -f '$cache/otela-$sha'"
bare=$NETPROF_TEST_TMP/$TEST_NAME.bare.json
# (the baseline's fast pings for the run with --baseline below)
jq 'del(.remote_setup)' "$fast" >"$bare"
out=$NETPROF_TEST_TMP/$TEST_NAME.deploy
rm -rf "$out"	# its earlier run's output is refused
assert_status 1 "$NETPROF_BIN" bench --config "$bare" --output "$out" \
    --run-id t4 --kinds libp2p_ping --no-punch "${small[@]}"
assert_contains "$OUT" "otela is not installed or not on PATH there"
assert_status 0 "$NETPROF_BIN" -v bench --config "$bare" --output "$out" \
    --run-id t5 --force --kinds libp2p_ping --no-punch --otela-bin "$bindir" "${small[@]}"
# The lab's hosts share one home directory (as hosts with an NFS home
# do): each host either uploads or finds the file another host has just
# renamed into place; at least one uploads, none does both or neither.
for h in h1 h2 h3 h4; do
	assert_eq 1 "$(grep -cE "\] $h: otela(-$sha already there: reused| uploaded to)" <<<"$OUT")" \
	    "$h: uploaded or found it, once"
done
[ "$(grep -c 'otela uploaded to' <<<"$OUT")" -ge 1 ] || fail "no host uploaded otela"
# init's command reads the PeerID too: discover runs nothing of its own
assert_eq 4 "$(grep -cE '\] h[1-4]: init: .* peer-id --config-dir ' <<<"$OUT")" \
    "each host's PeerID read by init's command"
assert_eq 0 "$(grep -cE '\] h[1-4]: discover: ' <<<"$OUT")" "no command of discover's"
[ -x "$cache/otela-$sha" ] || fail "no $cache/otela-$sha after --otela-bin"
assert_eq "" "$(ls -A "$cache" | grep -v "^otela-$sha\$" || true)" "no temporary file left"
assert_contains "$(jq -r .command "$out/measurements.jsonl" | sed -n 1p)" \
    "\"\$HOME\"/.cache/netprof/otela-$sha probe --target"
before=$(stat -c %Y.%i "$cache/otela-$sha")

# --- the cached otela reused, with --serial and --baseline: the same pairs
# (one run: the reuse is the deploy's, the rest the sweep's and the
# baseline's)
out=$NETPROF_TEST_TMP/serial
rm -rf "$out"	# its earlier run's output is refused
assert_status 0 "$NETPROF_BIN" -v bench --config "$bare" --output "$out" \
    --run-id t6 --otela-bin "$bindir" --serial --baseline --no-punch \
    --metrics-file "$out/netprof.prom" "${small[@]}"
assert_eq 4 "$(grep -c 'already there: reused' <<<"$OUT")" "reused when present"
assert_eq "$before" "$(stat -c %Y.%i "$cache/otela-$sha")" "the cached binary untouched"
assert_eq 36 "$(jq -r 'select(.run_id=="t6" and .ok)|[.source,.target,.kind]|@tsv' "$out/measurements.jsonl" | sort -u | wc -l)" \
    "--serial: every pair and kind ok"
assert_eq 12 "$(jq -r 'select(.kind=="ping" and .ok)|[.source,.target]|@tsv' "$out/measurements.jsonl" | sort -u | wc -l)" \
    "--baseline: an ICMP ping record per ordered pair"
assert_eq "198.18.$LAB_SUBNET.3" "$(jq -r 'select(.kind=="ping" and .target=="h2")|.target_address' "$out/measurements.jsonl" | sed -n 1p)"
assert_eq '{"failed":0,"ok":12}' "$(jq -c .baseline_totals "$out/run.json")"
assert_eq "true" "$(jq '.phase_times.baseline[0] >= .phase_times.sweep[1]' "$out/run.json")" \
    "--serial: the baseline after the sweep (upstream's order)"
assert_eq "null" "$(jq -r '.phases.punch_s' "$out/run.json" | sed 's/^0$/null/')" "--no-punch: no punch time"
assert_eq "true" "$(jq -r '.config.serial' "$out/run.json")"
check_reach_early "$out" serial
# one probe at a time: no two records overlap in time
assert_eq "" "$(jq -r 'select(.kind!="ping")|[.started_at,.ended_at]|@tsv' "$out/measurements.jsonl" | sort |
	awk -F'\t' 'NR > 1 && $1 < prev { print "overlap: " $1 " < " prev } { prev = $2 }')" "--serial probes overlap"
# the heatmap reads the output as it is, with the overlay view
assert_status 0 "$NETPROF_BIN" heatmap --input "$out/measurements.jsonl" \
    --output "$NETPROF_TEST_TMP/heatmap.html"
assert_file_contains "$NETPROF_TEST_TMP/heatmap.html" "libp2p_ping"
assert_nothing_left t6 "--otela-bin, --serial --baseline"
# --metrics-file: the run as Prometheus metrics, bench kinds and the baseline
if command -v promtool >/dev/null; then
	assert_status 0 promtool check metrics <"$out/netprof.prom"
fi
for k in libp2p_ping:netprof_libp2p_ping_rtt_p50_seconds:p50_ms ping:netprof_ping_rtt_p50_seconds:p50; do
	IFS=: read -r kind name field <<<"$k"
	want=$(jq -r "select(.kind==\"$kind\" and .source==\"h1\" and .target==\"h2\")|.metrics.$field / 1000" "$out/measurements.jsonl")
	got=$(awk -v m="$name{source=\"h1\",target=\"h2\"}" '$1 == m { print $2 }' "$out/netprof.prom")
	awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-9) }' ||
	    fail "--metrics-file $name h1->h2: '$got', the records say $want"
done

# --- the local transport's run, started first ---------------------------
if [ -n "$local_pid" ]; then
	rc=0
	wait "$local_pid" || rc=$?
	assert_eq 0 "$rc" "bench over the local transport; its output: $(cat "$NETPROF_TEST_TMP/local.out")"
	out=$NETPROF_TEST_TMP/local
	assert_eq 6 "$(jq -r 'select(.ok)|.kind' "$out/measurements.jsonl" | wc -l)" "local: 2 pairs x 3 kinds ok"
	assert_eq "29190 29191" "$(jq -r '.machines[1]|"\(.http_port) \(.libp2p_port)"' "$out/run.json")"
	assert_eq "" "$(ls -d /tmp/otela-bench-t7-* 2>/dev/null || true)" "local: directories removed"
fi
test_pass
