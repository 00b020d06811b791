#!/usr/bin/env bash
# Faults while sessions are set up, on a 3-host lab. A machine whose SSH
# host name does not resolve fails alone, with the name and the resolver's
# reason; the other hosts are checked as usual. netprof runs in a private
# mount namespace whose resolv.conf names a lab host with nothing on port
# 53 (and /etc/hosts without the name), so no query ever leaves the lab
# and the machine's resolver is not touched. An ssh-agent that accepts and
# never answers is left out after a bounded wait, with a warning, and the
# identity_file logs in (libssh's agent calls block the loop).
#
# A resolver that never answers (its packets dropped in h1's namespace)
# holds only the machine whose name goes to it: names are resolved off
# the loop, so the hosts given by address or by /etc/hosts name are
# checked at once, the silent one fails at its connect timeout (3 s)
# saying that name resolution timed out, and the run ends long before the
# 15 s the resolver takes (timeout:5 attempts:3), which a lookup on the
# loop would cost; Ctrl-C during the lookup ends the run at once.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh unshare jq nft ss getent

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

# in_ns_at DIR CMD...: as in_ns, with DIR's resolv.conf, nsswitch.conf, hosts
in_ns_at() {
	unshare -m bash -c 'mount --bind "$1/resolv.conf" /etc/resolv.conf &&
	    mount --bind "$1/nsswitch.conf" /etc/nsswitch.conf &&
	    mount --bind "$1/hosts" /etc/hosts && shift && exec "$@"' \
	    in_ns "$@"
}

t0=$(date +%s)
assert_status 1 in_ns "$NETPROF_BIN" check --config "$T/machines.json"
t1=$(date +%s)
assert_contains "$OUT" "ghost.netprof-lab.invalid"
# the resolver's own reason (nothing on port 53: EAI_AGAIN)
assert_contains "$OUT" "ghost: could not connect: ghost.netprof-lab.invalid:22: cannot resolve host name ghost.netprof-lab.invalid: Temporary failure in name resolution"
assert_eq 3 "$(grep -cE '^h[1-3] .* yes$' <<<"$OUT")" "the other hosts are ready"
[ $((t1 - t0)) -le 15 ] || fail "check took $((t1 - t0)) s"

# --- a resolver that never answers ----------------------------------------
lab run h1 -- nft -f - <<'EOF'
table inet npdns {
	chain in { type filter hook input priority 0; udp dport 53 drop; tcp dport 53 drop; }
}
EOF
at_exit "lab run h1 -- nft delete table inet npdns 2>/dev/null || true"
S=$T/silent
mkdir -p "$S"
printf 'nameserver %s\noptions timeout:5 attempts:3\n' "$ns" >"$S/resolv.conf"
printf 'hosts: files dns\n' >"$S/nsswitch.conf"
printf '127.0.0.1 localhost\n%s h1.lab.test\n%s h3.lab.test\n' \
    "$(lab_addr h1)" "$(lab_addr h3)" >"$S/hosts"
# the names' host keys under the names: known_hosts matches the name the
# user wrote, not the address it resolved to
cp "$LAB_DIR/known_hosts" "$S/known_hosts"
for h in h1 h3; do
	grep "^$(lab_addr $h) " "$LAB_DIR/known_hosts" |
	    sed "s/^[^ ]*/$h.lab.test/" >>"$S/known_hosts"
done
silent=silent.netprof-lab.test
jq --arg kh "$S/known_hosts" --arg a1 "$(lab_addr h1)" --arg n "$silent" '
    .known_hosts_file = $kh | .connect_timeout_seconds = 3 |
    .machines |= map(if .name == "h1" or .name == "h3" then
        .ssh_host = .name + ".lab.test" else . end) |
    .machines += [{"name": "silent", "address": $a1, "ssh_host": $n}]' \
    "$LAB_INVENTORY" >"$S/machines.json"
# the resolver really is silent (a refusal would end a lookup at once)
rc=0
in_ns_at "$S" timeout 2 getent hosts "$silent" || rc=$?
assert_eq 124 "$rc" "a lookup through the dropping resolver still waits after 2 s"

t0=$(date +%s%N)
rc=0
in_ns_at "$S" "$NETPROF_BIN" check --config "$S/machines.json" --json \
    >"$S/check.json" 2>"$S/check.err" || rc=$?
t1=$(date +%s%N)
assert_eq 1 "$rc" "exit status of check with a silent resolver"
ms=$(( (t1 - t0) / 1000000 ))
[ $ms -lt 9000 ] || fail "check with a silent resolver took $ms ms (a lookup on the loop: 15000 or more)"
assert_eq "h1 h2 h3" "$(json_get "$S/check.json" '[.hosts[] | select(.ready) | .name] | join(" ")')" \
    "the hosts given by address or /etc/hosts name are ready"
assert_eq "FAIL" "$(json_get "$S/check.json" '.hosts[] | select(.name == "silent") | .connect')"
assert_eq "silent: could not connect: $silent:22: name resolution of $silent timed out after 3 s (connect_timeout_seconds): the resolver did not answer; check the name servers in /etc/resolv.conf, or give the host's address" \
    "$(json_get "$S/check.json" '.hosts[] | select(.name == "silent") | .error')"
el=$(json_get "$S/check.json" '.hosts[] | select(.name == "h2") | .elapsed_s')
awk -v e="$el" 'BEGIN { exit !(e < 2.5) }' || fail "h2 took $el s: it waited for the resolver"

# exec: the others run the command; the silent one fails alone
t0=$(date +%s%N)
assert_status 255 in_ns_at "$S" "$NETPROF_BIN" exec --config "$S/machines.json" -- echo ran
t1=$(date +%s%N)
for h in h1 h2 h3; do
	assert_contains "$OUT" "$h: ran"
done
assert_contains "$OUT" "silent: could not connect: $silent:22: name resolution of $silent timed out after 3 s"
ms=$(( (t1 - t0) / 1000000 ))
[ $ms -lt 9000 ] || fail "exec with a silent resolver took $ms ms"

# collect: the silent machine's probe is recorded failed, class unreachable
assert_status 1 in_ns_at "$S" "$NETPROF_BIN" -q collect --config "$S/machines.json" \
    --hosts h2,silent --ping-count 1 --ping-interval 0.2 --output "$S/rec.jsonl"
assert_eq "unreachable" "$(jq -r 'select(.source == "silent") | .error_class' "$S/rec.jsonl")" \
    "the silent machine's ping is recorded with class unreachable"
assert_contains "$(jq -r 'select(.source == "silent") | .error' "$S/rec.jsonl")" \
    "name resolution of $silent timed out"
assert_eq "true" "$(jq -r 'select(.source == "h2") | .ok' "$S/rec.jsonl")"

# Ctrl-C while the name is being looked up: exit 130 at once (started
# without in_ns_at: $! must be netprof's own pid, not a subshell's)
jq '.connect_timeout_seconds = 30 | .machines |= map(select(.name == "silent"))' \
    "$S/machines.json" >"$S/one.json"
unshare -m bash -c 'mount --bind "$1/resolv.conf" /etc/resolv.conf &&
    mount --bind "$1/nsswitch.conf" /etc/nsswitch.conf &&
    mount --bind "$1/hosts" /etc/hosts && shift && exec "$@"' \
    in_ns "$S" "$NETPROF_BIN" check --config "$S/one.json" >"$S/int.out" 2>&1 &
pid=$!
at_exit "kill $pid 2>/dev/null || true"
# its query is out, so its SIGINT handler is installed (a background job
# of a script starts with SIGINT ignored)
for (( i = 0; i < 250; i++ )); do
	ss -Hunap "dst $ns" | grep -q "pid=$pid," && break
	sleep 0.02
done
[ $i -lt 250 ] || fail "check never asked the resolver"
t0=$(date +%s%N)
kill -INT $pid
rc=0
wait $pid || rc=$?
t1=$(date +%s%N)
assert_eq 130 "$rc" "exit status after SIGINT during the lookup"
ms=$(( (t1 - t0) / 1000000 ))
[ $ms -lt 2000 ] || fail "SIGINT during the lookup took $ms ms to end the run"

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
