#!/usr/bin/env bash
# The lab's obstacles, each for what it blocks and what it lets through,
# on one lab of four sites and a public relay:
#   a: h1 h2 behind a stateful firewall    b: h3 behind a cone NAT
#   c: h4 behind a symmetric NAT           d: h5 open
#   relay: an otela node outside every site (--relay)
# - netprof reaches every host over SSH through the inventory, and each
#   host's `address` is its own (a NAT site's private one);
# - a connection into a firewalled site from outside is dropped, inside
#   the site and out of it one gets through, with the host's address;
# - nothing dials into a NAT site; out of it a connection arrives from the
#   gateway's address: a cone NAT keeps the source port for every
#   destination, a symmetric one picks a new port per destination;
# - every host reaches the relay, whose multiaddr names its PeerID; its
#   API answers;
# - `lab.sh link` still cuts and restores an obstacle site's link;
# - up again with --relay relay,limited replaces the relay by a limited
#   one and keeps the obstacles (the stand-in only);
# - down stops the relay by its PID and removes the gateways and this
#   machine's routes to the NAT sites.
# NETPROF_TEST_OTELA=/path/to/otela runs the relay on that binary.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd nft python3 jq setpriv
require_otela
relay_otela=()
[ -n "${NETPROF_TEST_OTELA:-}" ] && relay_otela=(--relay-otela "$NETPROF_TEST_OTELA")
sites=(--site a=2,firewall --site b=1,nat=cone --site c=1,nat=symmetric --site d=1)
lab_up tpaths 5 "${sites[@]}" --relay relay "${relay_otela[@]}"
T=$NETPROF_TEST_TMP/paths
rm -rf "$T" && mkdir -p "$T"
addr() { jq -r --arg h "$1" '.machines[]|select(.name==$h)|.address' "$LAB_INVENTORY"; }
gw() { jq -r --arg s "$1" '.sites[]|select(.name==$s)|.gateway' "$LAB_TOPOLOGY"; }
relay_ip=198.18.$LAB_SUBNET.254
# Does process $1 run? (a zombie, dead but not yet reaped by whoever
# inherited it, does not)
runs() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# --- netprof reaches every host; each address is the host's own ---------
assert_status 0 "$NETPROF_BIN" exec --config "$LAB_INVENTORY" --timeout 20 -- hostname -I
for h in h1 h2 h3 h4 h5; do
	assert_contains "$OUT" "$h: $(addr "$h")" "$h answers over SSH with its inventory address"
done
assert_eq "198.19.$LAB_SUBNET.4 198.19.$LAB_SUBNET.5" "$(addr h3) $(addr h4)" \
    "the NAT sites' hosts have private addresses"

# --- listeners: each answers a connection with the address and port it
# --- came from ------------------------------------------------------------
SERVER='
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen(16)
while True:
    c, a = s.accept()
    c.sendall(("%s:%d\n" % a).encode())
    c.close()'
# connect TARGET PORT LOCALPORT [connect]: "ok ADDR:PORT" as the listener
# saw the connection (with "connect": "ok" once connected, for a listener
# that says nothing first), or "fail WHY"
CLIENT='
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
if int(sys.argv[3]):
    s.bind(("0.0.0.0", int(sys.argv[3])))
s.settimeout(2)
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
    print("ok", "" if sys.argv[4:] == ["connect"] else s.recv(100).decode().strip())
except OSError as e:
    print("fail", e)'
for l in h1:7000 h3:7000 h4:7000 h5:7000 h5:7001; do
	lab run "${l%:*}" -- timeout 120 python3 -c "$SERVER" "${l#*:}" >/dev/null 2>&1 &
	at_exit "kill $! 2>/dev/null"
done
listening() { grep -q '^ok' <<<"$(lab run "$1" -- python3 -c "$CLIENT" 127.0.0.1 "$2" 0)"; }
for l in h1:7000 h3:7000 h4:7000 h5:7000 h5:7001; do
	wait_for 10 listening "${l%:*}" "${l#*:}" || fail "the listener on $l did not come up"
done

# Every probe at once (a dropped one waits for its 2 s timeout), each to a
# file: FROM-TO-PORT[-LOCALPORT].
probes=()
probe() {	# FROM TARGET PORT [LOCALPORT [connect]]
	lab run "$1" -- python3 -c "$CLIENT" "$2" "$3" "${4:-0}" ${5:-} >"$T/$1-$2-$3-${4:-0}" 2>&1 &
	probes+=($!)
}
got() { cat "$T/$1-$2-$3-${4:-0}"; }
probe h5 "$(addr h1)" 7000		# into the firewall
probe relay "$(addr h1)" 7000
probe h3 "$(addr h1)" 7000
probe h2 "$(addr h1)" 7000		# inside site a
probe h1 "$(addr h5)" 7000		# out of the firewall
probe h5 "$(addr h3)" 7000		# into a NAT
probe h1 "$(addr h4)" 7000
probe relay "$(addr h3)" 7000
probe h4 "$(addr h3)" 7000		# a NAT to the other's private address
probe h5 "$(gw b)" 7000		# the gateway forwards nothing in
probe h3 "$(addr h5)" 7000 40000	# out of the cone NAT, one port, two destinations
probe h3 "$(addr h5)" 7001 40000
probe h4 "$(addr h5)" 7000 40001	# out of the symmetric NAT
probe h4 "$(addr h5)" 7001 40001
for h in h1 h3 h4 h5; do
	probe "$h" "$relay_ip" 19091 0 connect	# everyone reaches the relay
done
wait "${probes[@]}"

assert_contains "$(got h5 "$(addr h1)" 7000)" "fail" "h5 -> h1: into the firewalled site from an open one"
assert_contains "$(got relay "$(addr h1)" 7000)" "fail" "relay -> h1: into the firewalled site from the relay"
assert_contains "$(got h3 "$(addr h1)" 7000)" "fail" "h3 -> h1: into the firewalled site from a NAT"
assert_contains "$(got h2 "$(addr h1)" 7000)" "ok $(addr h2):" "h2 -> h1: inside the firewalled site"
assert_contains "$(got h1 "$(addr h5)" 7000)" "ok $(addr h1):" "h1 -> h5: out of the firewalled site, with h1's address"
assert_contains "$(got h5 "$(addr h3)" 7000)" "fail" "h5 -> h3: into the cone NAT's private address"
assert_contains "$(got h1 "$(addr h4)" 7000)" "fail" "h1 -> h4: into the symmetric NAT's private address"
assert_contains "$(got relay "$(addr h3)" 7000)" "fail" "relay -> h3: into a NAT from the relay"
assert_contains "$(got h4 "$(addr h3)" 7000)" "fail" "h4 -> h3: one NAT site to the other's private address"
assert_contains "$(got h5 "$(gw b)" 7000)" "fail" "h5 -> gateway b: nothing forwarded in"
assert_eq "ok $(gw b):40000 ok $(gw b):40000" \
    "$(got h3 "$(addr h5)" 7000 40000) $(got h3 "$(addr h5)" 7001 40000)" \
    "h3 behind the cone NAT: the gateway's address, the same port to both destinations"
sym1=$(got h4 "$(addr h5)" 7000 40001)
sym2=$(got h4 "$(addr h5)" 7001 40001)
assert_contains "$sym1" "ok $(gw c):" "h4 behind the symmetric NAT: the gateway's address"
assert_contains "$sym2" "ok $(gw c):" "h4 behind the symmetric NAT: the gateway's address"
assert_ne "$sym1" "$sym2" "h4 behind the symmetric NAT: a port per destination"
for h in h1 h3 h4 h5; do
	assert_contains "$(got "$h" "$relay_ip" 19091)" "ok" "$h reaches the relay's libp2p port"
done

# --- the relay ------------------------------------------------------------
assert_eq "/ip4/$relay_ip/tcp/19091/p2p/$LAB_RELAY_PEER" "$LAB_RELAY_ADDR" "the relay's multiaddr in lab.env"
assert_eq "$LAB_RELAY_ADDR" "$(jq -r .relay.multiaddr "$LAB_TOPOLOGY")" "the relay in topology.json"
case $LAB_RELAY_PEER in Qm*|12D3*) ;; *) fail "the relay's PeerID: '$LAB_RELAY_PEER'" ;; esac
assert_contains "$(lab run relay -- python3 -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:19090/v1/health", timeout=5).read().decode())')" \
    '"status":"ok"' "the relay's API answers"
relay_pid=$(cat "$LAB_DIR/relay/pid")
assert_contains "$(tr '\0' ' ' <"/proc/$relay_pid/cmdline")" "start --config $LAB_DIR/relay/node/cfg.yaml" \
    "the relay runs by the PID up wrote"
assert_eq "$LAB_USER" "$(ps -o user= -p "$relay_pid")" "the relay runs as the lab user"

# --- link on an obstacle site ---------------------------------------------
lab link a loss 100 >/dev/null
assert_contains "$(lab run h1 -- python3 -c "$CLIENT" "$(addr h5)" 7000 0)" "fail" "site a cut off"
lab link a loss 0 >/dev/null
assert_contains "$(lab run h1 -- python3 -c "$CLIENT" "$(addr h5)" 7000 0)" "ok $(addr h1):" "site a back"

# --- up again: a limited relay in place of the relay; the obstacles stay --
if [ -z "${NETPROF_TEST_OTELA:-}" ]; then
	assert_status 0 "$LAB_SH" up --name "$LAB_NAME" --hosts 5 --subnet "$LAB_SUBNET" \
	    --dir "$LAB_DIR" "${sites[@]}" --relay relay,limited
	assert_contains "$OUT" "relay relay ($relay_ip, pid "
	assert_contains "$OUT" ", limited): /ip4/$relay_ip/tcp/19091/p2p/"
	# shellcheck disable=SC1091
	. "$LAB_DIR/lab.env"
	assert_ne "$relay_pid" "$(cat "$LAB_DIR/relay/pid")" "a new relay"
	runs "$relay_pid" && fail "the unlimited relay ($relay_pid) still runs"
	assert_eq true "$(jq -r .relay.limited "$LAB_TOPOLOGY")"
	assert_file_contains "$LAB_DIR/relay/log" "relay service: limited"
	assert_contains "$(lab run h5 -- python3 -c "$CLIENT" "$(addr h1)" 7000 0)" "fail" \
	    "the firewall still there after up"
	relay_pid=$(cat "$LAB_DIR/relay/pid")
fi

# --- down -----------------------------------------------------------------
lab down >/dev/null
runs "$relay_pid" && fail "the relay ($relay_pid) still runs after down"
assert_eq "" "$(ip netns list | grep -E "^np-$LAB_NAME-(g[0-9]+|relay)( |\$)" || true)" "gateway and relay namespaces gone"
assert_eq "" "$(ip route show | grep "^198\.19\.$LAB_SUBNET\." || true)" "this machine's routes to the NAT sites gone"
test_pass
