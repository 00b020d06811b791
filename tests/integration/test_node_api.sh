#!/usr/bin/env bash
# The node API (node_api.h) over a lab of two hosts, with the stand-in otela
# node on h1 (listening on 0.0.0.0 in h1's namespace, reached at 127.0.0.1
# there) and on h2 only a listener that never answers: answers of any
# status with their bodies (a body with quotes and $ reaches the node
# intact), a host where nothing listens, a timeout, many calls at once,
# cancel and close with calls in flight (no remote curl left behind), a
# host whose sshd is down; over
# the ssh transport (the SSH tunnel and libcurl), the command transport and
# the local transport on loopback (curl on the host). The driver checks the
# callback contract and that every handle is closed.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd jq node curl python3
[ -x "${NODE_API_DRIVER:-}" ] || skip "NODE_API_DRIVER is not set (run through ctest)"
"$NETPROF_SRC/tests/otela-node/install.sh" >/dev/null ||
	skip "the stand-in node's dependencies could not be installed"
lab_up nodeapi 2
T=$NETPROF_TEST_TMP/node_api
rm -rf "$T" && mkdir -p "$T"
OTELA=$NETPROF_SRC/tests/otela-node/bin/otela
# both nodes' API at once and their TERM cleanup short: the stand-in's
# real-length waits (3 s before the API, 10 s after TERM, which the lab's
# teardown waits 2 s of) are not what this test is about
eval "$OTELA_SHORT_WAITS"
PORT=19590
SILENT=19599
# ssh hosts go through an SSH tunnel (via_tunnel=1), the others run curl
VIA_SSH=1
unset SSH_AUTH_SOCK

# --- the node on h1, a silent listener on h2 --------------------------------
# the node's files ($HOME/.config/opentela, $HOME/.ocfcore) in a home of
# its own, not in the home of whoever runs this
HOME=$T/home "$OTELA" init --config-dir "$T/n1" >/dev/null 2>&1
PEER=$("$OTELA" peer-id --config-dir "$T/n1")
echo "{\"port\": \"$PORT\", \"tcpport\": \"19591\", \"bootstrap\": {\"static\": []}}" >"$T/n1/cfg.yaml"
lab run h1 -- env HOME="$T/home" sh -c "nohup '$OTELA' start --config '$T/n1/cfg.yaml' --config-dir '$T/n1' >'$T/n1/log' 2>&1 &"
lab run h2 -- sh -c "nohup python3 -c 'import socket, time
s = socket.socket()
s.bind((\"127.0.0.1\", $SILENT))
s.listen(64)
time.sleep(600)' >/dev/null 2>&1 &"
for (( i = 0; i < 300; i++ )); do
	lab run h1 -- curl -sf "http://127.0.0.1:$PORT/v1/health" >/dev/null 2>&1 && break
	sleep 0.1
done
[ $i -lt 300 ] || fail "the stand-in node on h1 did not start: $(cat "$T/n1/log")"

drive() {	# drive INVENTORY HOST [driver options]: $OUT, exit 0 required
	local inv=$1 host=$2
	shift 2
	assert_status 0 "$NODE_API_DRIVER" --config "$inv" --host "$host" "$@"
}

# count ERROR: replies with that error code in $OUT
count() {
	grep -c "^call [0-9]*: host=[a-z0-9]* error=$1 " <<<"$OUT" || true
}

no_remote_curl() {	# no curl of ours left in the lab within ${1:-5} s
	local i p left
	for (( i = 0; i < ${1:-5} * 10; i++ )); do
		left=
		for p in $(lab pids); do
			grep -qF "127.0.0.1:$SILENT" "/proc/$p/cmdline" 2>/dev/null &&
			    left="$left $p"
		done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	fail "curl processes left in the lab:$left"
}

# node_api_checks INVENTORY VIA [BOUND]: everything, on h1 and h2 of
# INVENTORY. BOUND (s): the timeout of the calls that are cancelled. The
# command transport can kill only its local wrapper (an ssh process, see
# docs/engine.md): the curl it started on the host ends by its own -m, so
# there the calls get a short bound and the check waits for it.
node_api_checks() {
	local inv=$1 via=$2 bound=${3:-30} left_within
	left_within=$(( bound < 30 ? bound + 5 : 5 ))

	drive "$inv" h1 --port $PORT
	assert_contains "$OUT" "call 0: host=h1 error=0 status=200 via_tunnel=$via "
	assert_contains "$OUT" "call 0: body: {\"status\":\"ok\"}"
	# the node's own record (loopback only, as the real node's): the
	# call reached h1's node, not another
	drive "$inv" h1 --port $PORT --path /v1/self
	assert_contains "$OUT" "call 0: host=h1 error=0 status=200 via_tunnel=$via "
	assert_contains "$OUT" "call 0: body: {\"id\":\"$PEER\","

	# the real table's shape: connected peers only (h1's node has none)
	drive "$inv" h1 --port $PORT --path /v1/dnt/table
	assert_contains "$OUT" "status=200"
	assert_contains "$OUT" "call 0: body: {}"

	# the body reaches the node as it is: quotes, $, a newline
	drive "$inv" h1 --port $PORT --method POST --path /v1/probe/run \
	    --body "{\"kind\": \"latency\", \"note\": \"it's \\\"\$HOME\\\"\"
}"
	assert_contains "$OUT" "call 0: host=h1 error=0 status=400 via_tunnel=$via "
	assert_contains "$OUT" "call 0: body: {\"error\":\"target is required\"}"
	drive "$inv" h1 --port $PORT --method POST --path /v1/probe/run \
	    --body '{"target": '
	assert_contains "$OUT" "status=400"
	assert_contains "$OUT" "{\"error\":\"invalid JSON body: "
	drive "$inv" h1 --port $PORT --method POST --path /v1/probe/run \
	    --body "{\"target\": \"$PEER\", \"kind\": \"nope\"}"
	assert_contains "$OUT" "{\"error\":\"unknown kind: nope\"}"

	# nothing listens on h2's port
	drive "$inv" h2 --port $PORT --timeout 5
	assert_contains "$OUT" "call 0: host=h2 error=-6 status=0 via_tunnel=$via "
	assert_contains "$OUT" "call 0: text: h2: GET http://127.0.0.1:$PORT/v1/health: "

	# a listener that never answers
	drive "$inv" h2 --port $SILENT --timeout 1
	assert_contains "$OUT" "call 0: host=h2 error=-10 status=0"
	assert_contains "$OUT" "call 0: text: h2: GET http://127.0.0.1:$SILENT/v1/health: "
	elapsed=$(sed -n 's/^call 0: .* elapsed=\([0-9.]*\)$/\1/p' <<<"$OUT")
	assert_eq 1 "$(jq -n "$elapsed >= 0.9 and $elapsed < 4 | if . then 1 else 0 end")" \
	    "timeout after about 1 s (elapsed $elapsed)"
	no_remote_curl

	# many at once
	drive "$inv" h1 --port $PORT --calls 40
	assert_eq 40 "$(grep -c "error=0 status=200 via_tunnel=$via " <<<"$OUT")" "40 answers"
	echo "$inv h1: $(grep ' calls in ' <<<"$OUT")"

	# cancel, and close with calls in flight
	drive "$inv" h2 --port $SILENT --calls 3 --timeout "$bound" --cancel-after 1
	assert_eq 3 "$(count -15)" "cancelled calls"
	no_remote_curl "$left_within"
	drive "$inv" h2 --port $SILENT --calls 3 --timeout "$bound" --close-after 1
	assert_eq 3 "$(count -15)" "calls cancelled by the close"
	assert_contains "$OUT" "node api closed"
	no_remote_curl "$left_within"

	# the host itself unreachable
	lab sshd-stop h2 >/dev/null
	drive "$inv" h2 --port $PORT --timeout 5
	assert_contains "$OUT" "call 0: host=h2 error=-6 status=0 via_tunnel=$via "
	assert_contains "$OUT" "call 0: text: h2: GET http://127.0.0.1:$PORT/v1/health: "
	assert_contains "$OUT" "Connection refused"
	lab sshd-start h2 >/dev/null
}

# --- ssh transport ------------------------------------------------------------
node_api_checks "$LAB_INVENTORY" "$VIA_SSH"

# --- command transport: curl on the host, over an ssh process ----------------
jq --arg cfg "$LAB_SSH_CONFIG" '.remote_command = ["ssh", "-F", $cfg, "{name}",
    "{command}"] | .machines[].transport = "command"' "$LAB_INVENTORY" >"$T/command.json"
node_api_checks "$T/command.json" 0 3

# --- local transport on loopback ----------------------------------------------
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
HOME=$T/home "$OTELA" init --config-dir "$T/here" >/dev/null 2>&1
echo "{\"port\": \"$port\", \"bootstrap\": {\"static\": []}}" >"$T/here/cfg.yaml"
HOME=$T/home "$OTELA" start --config "$T/here/cfg.yaml" --config-dir "$T/here" >"$T/here/log" 2>&1 &
here_pid=$!
at_exit "kill $here_pid 2>/dev/null"
cat >"$T/local.json" <<'JSON'
{"transport": "local", "machines": [{"name": "here", "address": "127.0.0.1"}]}
JSON
for (( i = 0; i < 300; i++ )); do
	curl -sf "http://127.0.0.1:$port/v1/health" >/dev/null 2>&1 && break
	sleep 0.1
done
drive "$T/local.json" here --port "$port"
assert_contains "$OUT" "call 0: host=here error=0 status=200 via_tunnel=0 "
drive "$T/local.json" here --port "$port" --method POST --path /v1/probe/run --body '{}'
assert_contains "$OUT" "call 0: body: {\"error\":\"target is required\"}"
drive "$T/local.json" here --port "$port" --calls 20
assert_eq 20 "$(grep -c "error=0 status=200 via_tunnel=0 " <<<"$OUT")" "20 answers"
echo "local: $(grep ' calls in ' <<<"$OUT")"
test_pass
