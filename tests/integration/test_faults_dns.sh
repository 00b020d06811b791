#!/usr/bin/env bash
# A machine whose SSH host name does not resolve fails alone, with the
# name and the resolver's reason; the other hosts are checked as usual.
# netprof runs in a private mount namespace whose resolv.conf names a lab
# host with nothing on port 53 (and /etc/hosts without the name), so no
# query ever leaves the lab and the machine's resolver is not touched.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh unshare jq

lab_up tfdns 3
T=$NETPROF_TEST_TMP/faults-dns
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
test_pass
