#!/usr/bin/env bash
# bench where the real otela differs from a forgiving node, on a 4-host
# lab whose hosts share one home (as hosts with an NFS home do):
# - otela init on hosts sharing $HOME races on its wallet (accounts.json,
#   written non-atomically): with one HOME, staggered inits fail; with a
#   HOME each, as netprof gives every otela command, they pass, and so
#   does a bench on the shared home;
# - the node's files (~/.config/opentela, ~/.ocfcore) are in the run's
#   directory during a run and nothing of them is in $HOME after teardown;
# - upstream's smoke scenario: two nodes on one host, one home, two ports;
# - a node left on a host's HTTP port is detected and named;
# - --probe-timeout 1.2345 works (the node wants an integer timeout_ms);
# - an OF_PORT in the host's environment does not move the node.
# NETPROF_TEST_OTELA=/path/to/otela runs it against that binary (the race,
# which needs the stand-in's wider write window, is then skipped).
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh jq node curl
require_otela

lab_up tbencho 4
setup=$(otela_setup)
inv=$NETPROF_TEST_TMP/otela.json
jq --arg p "$setup" '.remote_setup = $p' "$LAB_INVENTORY" >"$inv"
small=(--latency-count 3 --throughput-count 1 --throughput-bytes 262144)
home=$(getent passwd "$LAB_USER" | cut -d: -f6)

assert_nothing_left() {
	local left
	sleep 0.3
	left=$(for p in $(lab pids); do ps -o pid=,args= -p "$p" 2>/dev/null; done || true)
	assert_eq "" "$left" "processes left in the lab ($2)"
	assert_eq "" "$(ls -d /tmp/otela-bench-"$1"-* 2>/dev/null || true)" \
	    "bench directories left ($2)"
}

# What otela would leave in the lab user's home.
home_leftovers() {
	ls -d "$home/.config/opentela" "$home/.ocfcore" 2>/dev/null || true
}
rm -rf "$home/.config/opentela" "$home/.ocfcore"

# --- the race: init on 4 hosts with one HOME, then a HOME each ----------
if [ -z "${NETPROF_TEST_OTELA:-}" ]; then
	otela=$NETPROF_SRC/tests/otela-node/bin/otela
	# init_all shared|own: init on every host, with one HOME or one
	# each; prints "host exit-status stdout's-last-line" per host. The
	# stand-in writes accounts.json in two halves 3 s apart here (the
	# real os.WriteFile's window is narrower, not closed). With one HOME,
	# h1 goes first and the others start 0.1 s apart once its half file
	# is there: a start order by delays alone lost to a loaded machine's
	# scheduling once (h2 wrote first and h1 read its half).
	init_one() {	# DIR HOST HOME
		local st=0
		lab run "$2" -- env HOME="$3" OTELA_FAKE_WALLET_WRITE_MS=3000 \
		    "$otela" init --config-dir "$1/$2" >"$1/$2.out" 2>&1 || st=$?
		echo "$2 $st $(tail -n 1 "$1/$2.out")" >"$1/$2.res"
	}
	init_all() {
		local h i k=0 d=$NETPROF_TEST_TMP/race-$1
		rm -rf "$d"
		mkdir -p "$d"
		if [ "$1" = shared ]; then
			init_one "$d" h1 "$d/home" &
			for (( i = 0; i < 200; i++ )); do
				[ -s "$d/home/.config/opentela/accounts.json" ] && break
				sleep 0.05
			done
			[ -s "$d/home/.config/opentela/accounts.json" ] ||
				fail "one HOME: h1's init wrote no accounts.json in 10 s: $(cat "$d/h1.out" 2>/dev/null)"
			for h in h2 h3 h4; do
				(sleep "$(awk "BEGIN { print $k * 0.1 }")"
				 init_one "$d" "$h" "$d/home") &
				k=$((k + 1))
			done
		else
			for h in h1 h2 h3 h4; do
				init_one "$d" "$h" "$d/home-$h" &
			done
		fi
		wait
		cat "$d"/h?.res
	}
	res=$(init_all shared)
	[ "$(grep -c ' 1 Failed to initialize wallet manager: failed to parse accounts file' <<<"$res")" -ge 1 ] ||
		fail "one HOME: no init saw the half-written accounts.json: $res"
	assert_eq "h1 0" "$(grep '^h1 ' <<<"$res" | cut -d' ' -f1-2)" "one HOME: the first init is fine"
	res=$(init_all own)
	assert_eq "0 0 0 0" "$(cut -d' ' -f2 <<<"$res" | xargs)" "a HOME each: every init ok ($res)"
fi

# --- bench on the shared home, kept: the node's files are in the run's
# --- directory, and after teardown nothing is in $HOME ------------------
out=$NETPROF_TEST_TMP/$TEST_NAME.keep
rm -rf "$out"	# its earlier run's output is refused
assert_status 0 "$NETPROF_BIN" bench --config "$inv" --output "$out" \
    --run-id o1 --keep --kinds libp2p_ping --no-punch "${small[@]}"
assert_eq 12 "$(jq -r 'select(.ok)|.kind' "$out/measurements.jsonl" | wc -l)" "every pair ok on the shared home"
for h in h1 h2 h3 h4; do
	d=/tmp/otela-bench-o1-$h
	pid=$(jq -r ".machines[]|select(.name==\"$h\")|.peer_id" "$out/run.json")
	[ -s "$d/.config/opentela/accounts.json" ] || fail "$h: no wallet in $d/.config/opentela"
	[ -e "$d/.ocfcore/ocfcore.$pid.db" ] || fail "$h: no $d/.ocfcore/ocfcore.$pid.db"
done
assert_eq "" "$(home_leftovers)" "nothing of otela's in \$HOME during the run"
assert_status 0 "$NETPROF_BIN" bench --config "$inv" --teardown "$out/run.json"
assert_eq "" "$(home_leftovers)" "nothing of otela's in \$HOME after teardown"
assert_nothing_left o1 "--keep, --teardown"

# --- upstream's smoke scenario: two nodes on one host, one home --------
jq --arg p "$setup" '.remote_setup = $p | .machines = [
    (.machines[0] | .name = "a" | .http_port = 29090 | .libp2p_port = 29091),
    (.machines[0] | .name = "b" | .http_port = 29190 | .libp2p_port = 29191)]' \
    "$LAB_INVENTORY" >"$NETPROF_TEST_TMP/smoke.json"
out=$NETPROF_TEST_TMP/smoke
rm -rf "$out"	# its earlier run's output is refused
assert_status 0 "$NETPROF_BIN" bench --config "$NETPROF_TEST_TMP/smoke.json" \
    --output "$out" --run-id o2 "${small[@]}"
assert_eq 6 "$(jq -r 'select(.ok)|.kind' "$out/measurements.jsonl" | wc -l)" "smoke: 2 pairs x 3 kinds ok"
assert_eq "a->b b->a" "$(jq -r '.punch|keys|join(" ")' "$out/run.json")" "smoke: both punches"
assert_eq "" "$(home_leftovers)" "smoke: nothing in \$HOME"
assert_nothing_left o2 "smoke"

# --- a node left on h2's HTTP port -----------------------------------
left=$NETPROF_TEST_TMP/leftover
rm -rf "$left"
mkdir -p "$left"
assert_status 0 lab run h2 -- env HOME="$left" sh -c "$setup; otela init --config-dir '$left/d'"
other=$(lab run h2 -- env HOME="$left" sh -c "$setup; otela peer-id --config-dir '$left/d'")
printf 'port: "19090"\ntcpport: "19291"\nudpport: "19292"\nbootstrap:\n  static: []\n' >"$left/d/cfg.yaml"
lpid=$(lab run h2 -- env HOME="$left" sh -c "$setup; nohup otela start --config '$left/d/cfg.yaml' --config-dir '$left/d' >'$left/log' 2>&1 </dev/null & echo \$!")
at_exit "kill $lpid 2>/dev/null || true"
for _ in $(seq 100); do
	lab run h2 -- curl -sf http://127.0.0.1:19090/v1/health >/dev/null 2>&1 && break
	sleep 0.1
done
out=$NETPROF_TEST_TMP/taken
rm -rf "$out"	# its earlier run's output is refused
assert_status 1 "$NETPROF_BIN" bench --config "$inv" --output "$out" \
    --run-id o3 --hosts h1,h2 --kinds libp2p_ping --no-punch "${small[@]}"
assert_eq "failed start" "$(jq -r '.machines[]|select(.name=="h2")|"\(.status) \(.failed_phase)"' "$out/run.json")"
assert_contains "$(jq -r '.machines[]|select(.name=="h2")|.error' "$out/run.json")" \
    "h2: port 19090 on h2 is held by another node (peer $other): a previous run? try \`netprof bench --teardown RUN\`"
kill "$lpid"
for _ in $(seq 200); do kill -0 "$lpid" 2>/dev/null || break; sleep 0.1; done
assert_nothing_left o3 "a node on the port"

# --- --probe-timeout 1.2345, and OF_PORT/OF_TCPPORT in the hosts' env ----
jq --arg p "$setup; export OF_PORT=19990 OF_TCPPORT=19991" '.remote_setup = $p' \
    "$LAB_INVENTORY" >"$NETPROF_TEST_TMP/of.json"
out=$NETPROF_TEST_TMP/of
rm -rf "$out"	# its earlier run's output is refused
assert_status 0 "$NETPROF_BIN" bench --config "$NETPROF_TEST_TMP/of.json" \
    --output "$out" --run-id o4 --hosts h1,h2 --kinds libp2p_ping,latency \
    --no-punch --probe-timeout 1.2345 --health-wait 10 "${small[@]}"
assert_eq 4 "$(jq -r 'select(.ok)|.kind' "$out/measurements.jsonl" | wc -l)" \
    "--probe-timeout 1.2345 with OF_PORT set: every probe ok"
assert_eq 4 "$(jq -r 'select(.command|contains("--timeout 1.2345s"))|.kind' "$out/measurements.jsonl" | wc -l)" \
    "the records' commands say --timeout 1.2345s"
assert_nothing_left o4 "OF_PORT"
test_pass
