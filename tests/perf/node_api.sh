#!/usr/bin/env bash
# The node API's speed on a 2-host lab with the stand-in otela node on h1:
# GET /v1/health N times one after another (latency of one call on a warm
# session) and N at once (throughput), over
#   (a) the ssh transport: SSH tunnel + libcurl when the engine has tunnels,
#       else curl on the host through a channel of the same session,
#   (b) the command transport: curl on the host through an ssh process per
#       call (what the upstream tool does),
#   (c) OpenSSH + curl per call, for reference.
# A script that prints figures, not a timed test. Needs root.
# usage: tests/perf/node_api.sh [NODE_API_DRIVER] [N]
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
DRIVER=${1:-$SRC/build/main/tests/node_api_driver}
N=${2:-50}
LAB=$SRC/tests/lab/lab.sh
OTELA=$SRC/tests/otela-node/bin/otela
NAME=napibn
PORT=19590
DIR=$(mktemp -d "${TMPDIR:-/tmp}/netprof-bench.XXXXXX")

[ "$(id -u)" -eq 0 ] || { echo "node_api.sh: needs root (the lab)" >&2; exit 2; }
[ -x "$DRIVER" ] || { echo "node_api.sh: no driver at $DRIVER (build first)" >&2; exit 2; }
"$SRC/tests/otela-node/install.sh" >/dev/null
cleanup() {
	"$LAB" down --name $NAME --dir "$DIR/lab" >/dev/null 2>&1 || true
	rm -rf "$DIR"
}
trap cleanup EXIT
"$LAB" up --name $NAME --hosts 2 --subnet 246 --dir "$DIR/lab" >/dev/null
INV=$DIR/lab/machines.json
CFG=$DIR/lab/ssh_config.openssh
# the node's files ($HOME/.config/opentela, $HOME/.ocfcore) in a home of
# its own, not in the home of whoever runs this
HOME=$DIR/home "$OTELA" init --config-dir "$DIR/n1" >/dev/null 2>&1
echo "{\"port\": \"$PORT\", \"tcpport\": \"19591\", \"bootstrap\": {\"static\": []}}" >"$DIR/n1/cfg.yaml"
"$LAB" run --name $NAME h1 -- env HOME="$DIR/home" sh -c "nohup '$OTELA' start --config '$DIR/n1/cfg.yaml' --config-dir '$DIR/n1' >'$DIR/n1/log' 2>&1 &"
for (( i = 0; i < 300; i++ )); do
	"$LAB" run --name $NAME h1 -- curl -sf "http://127.0.0.1:$PORT/v1/health" >/dev/null 2>&1 && break
	sleep 0.1
done
jq --arg cfg "$CFG" '.remote_command = ["ssh", "-F", $cfg, "{name}",
    "{command}"] | .machines[].transport = "command"' "$INV" >"$DIR/command.json"
unset SSH_AUTH_SOCK

measure() {	# LABEL INVENTORY
	local out via
	out=$("$DRIVER" --config "$2" --host h1 --port $PORT --calls "$N" --serial)
	via=$(grep -m1 -o 'via_tunnel=[01]' <<<"$out")
	printf '%-34s %-12s serial: %s\n' "$1" "$via" "$(grep ' calls in ' <<<"$out")"
	out=$("$DRIVER" --config "$2" --host h1 --port $PORT --calls "$N")
	printf '%-34s %-12s at once: %s\n' "$1" "$via" "$(grep ' calls in ' <<<"$out")"
}
measure "(a) ssh transport" "$INV"
measure "(b) command transport (ssh+curl)" "$DIR/command.json"
t0=$(date +%s.%N)
for (( i = 0; i < N; i++ )); do
	ssh -F "$CFG" h1 curl -s "http://127.0.0.1:$PORT/v1/health" >/dev/null
done
t1=$(date +%s.%N)
printf '%-34s %-12s serial: %d calls in %.3f s\n' "(c) OpenSSH + curl per call" "" "$N" \
    "$(echo "$t1 - $t0" | bc)"
