#!/usr/bin/env bash
# Faults while sessions are set up, on a 3-host lab. A machine whose SSH
# host name does not resolve fails alone, with the name and the resolver's
# reason; the other hosts are checked as usual. netprof runs in a private
# mount namespace whose resolv.conf names a lab host with nothing on port
# 53 (and /etc/hosts without the name), so no query ever leaves the lab
# and the machine's resolver is not touched. An ssh-agent that accepts and
# never answers is left out after a bounded wait, with a warning, and the
# identity_file logs in (libssh's agent calls block the loop).
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh unshare jq

lab_up tfsess 3
T=$NETPROF_TEST_TMP/faults-session
rm -rf "$T"
mkdir -p "$T"
ns=$(lab_addr h1)
printf 'nameserver %s\noptions timeout:1 attempts:1\n' "$ns" >"$T/resolv.conf"
printf 'hosts: files dns\n' >"$T/nsswitch.conf"
printf '127.0.0.1 localhost\n' >"$T/hosts"
jq '.machines += [{"name": "ghost", "address": "198.18.255.254",
    "ssh_host": "ghost.netprof-lab.invalid"}]' "$LAB_INVENTORY" >"$T/machines.json"

in_ns() {
	unshare -m bash -c 'mount --bind "$1/resolv.conf" /etc/resolv.conf &&
	    mount --bind "$1/nsswitch.conf" /etc/nsswitch.conf &&
	    mount --bind "$1/hosts" /etc/hosts && shift && exec "$@"' \
	    in_ns "$T" "$@"
}

t0=$(date +%s)
assert_status 1 in_ns "$NETPROF_BIN" check --config "$T/machines.json"
t1=$(date +%s)
assert_contains "$OUT" "ghost.netprof-lab.invalid"
assert_eq 3 "$(grep -cE '^h[1-3] .* yes$' <<<"$OUT")" "the other hosts are ready"
[ $((t1 - t0)) -le 15 ] || fail "check took $((t1 - t0)) s"

# --- an ssh-agent that never answers -------------------------------------
python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(16)
open(sys.argv[2], "w").close()
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
' "$T/agent.sock" "$T/agent.ready" &
apid=$!
at_exit "kill $apid 2>/dev/null || true"
for _ in $(seq 50); do [ -e "$T/agent.ready" ] && break; sleep 0.1; done
t0=$(date +%s)
assert_status 0 env SSH_AUTH_SOCK="$T/agent.sock" timeout 60 \
    "$NETPROF_BIN" check --config "$LAB_INVENTORY"
t1=$(date +%s)
assert_contains "$OUT" "did not answer within 2 s; not using it"
assert_contains "$OUT" "3 of 3 hosts ready"
[ $((t1 - t0)) -le 10 ] || fail "check with a silent agent took $((t1 - t0)) s"
test_pass
