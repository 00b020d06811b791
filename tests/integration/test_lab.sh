#!/usr/bin/env bash
# The lab itself, checked with OpenSSH's own client: the hosts answer as
# the lab user at their addresses, reach each other, run ping and iperf3,
# a --rate is enforced, sshd-stop/sshd-start/rekey do what the fault tests
# need, `up` again repairs and keeps keys, and `down` leaves nothing behind.
. "$(dirname "$0")/lib.sh"

# Not root: a clear message and exit 2 (checked before require_root so that
# it runs as root too, by dropping to nobody).
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	assert_status 2 setpriv --reuid=65534 --regid=65534 --clear-groups \
	    "$LAB_SH" up --name tlab
	assert_contains "$OUT" "must be run as root"
fi
require_root
require_cmd ssh ping iperf3 jq tc

assert_status 2 "$LAB_SH" up --name waytoolongname
assert_contains "$OUT" "1-8 lower-case letters or digits"
assert_status 2 "$LAB_SH" up --name tlab --rate h3=fast
assert_contains "$OUT" "rate must look like"
assert_status 0 "$LAB_SH" --help
assert_contains "$OUT" "sshd-stop"

# /tmp/netprof-lab-NAME made by another user, empty or holding
# .netprof-lab, or a link planted as it: refused, and left as it was (the
# link's target untouched, nothing removed by down).
P=/tmp/netprof-lab-tplant
precious=$(mktemp)
at_exit "rm -rf '$P' '$precious'"
echo precious >"$precious"
rm -rf "$P"
mkdir -m 0777 "$P" && chown nobody "$P"
assert_status 1 "$LAB_SH" up --name tplant --hosts 1
assert_contains "$OUT" "$P is not root's directory"
assert_status 0 setpriv --reuid=65534 --regid=65534 --clear-groups \
    sh -c "echo tplant >'$P/.netprof-lab'"
assert_status 1 "$LAB_SH" up --name tplant --hosts 1
assert_status 0 "$LAB_SH" down --name tplant
assert_contains "$OUT" "$P is not root's directory"
assert_eq tplant "$(cat "$P/.netprof-lab")" "another user's lab directory kept"
rm -rf "$P"
mkdir -m 0755 "$P"
ln -s "$precious" "$P/.netprof-lab"
assert_status 1 "$LAB_SH" up --name tplant --hosts 1
assert_contains "$OUT" "its .netprof-lab a link"
assert_eq precious "$(cat "$precious")" "the link's target untouched"
rm -rf "$P"
ln -s "$(dirname "$precious")" "$P"
assert_status 1 "$LAB_SH" up --name tplant --hosts 1
assert_contains "$OUT" "$P is a link"
assert_status 0 "$LAB_SH" down --name tplant
assert_eq precious "$(cat "$precious")" "the link's target untouched"
rm -f "$P"

lab_up tlab 3 --rate h3=20mbit
K=$LAB_SUBNET
h1=$(lab_addr h1) h2=$(lab_addr h2) h3=$(lab_addr h3)

# lab.env and machines.json
assert_eq "h1 h2 h3" "$LAB_HOSTS" "LAB_HOSTS"
assert_eq "$h1 $h2 $h3" "$LAB_ADDRS" "LAB_ADDRS"
inv=$LAB_DIR/machines.json
assert_eq 3 "$(json_get "$inv" '.machines | length')" "machines in machines.json"
assert_eq "h2 $h2 $h2" "$(json_get "$inv" '.machines[1] | "\(.name) \(.address) \(.ssh_host)"')"
assert_eq "$LAB_USER" "$(json_get "$inv" .user)" "inventory user"
assert_eq "$LAB_DIR/id_ed25519" "$(json_get "$inv" .identity_file)"
assert_eq "$LAB_DIR/known_hosts" "$(json_get "$inv" .known_hosts_file)"
assert_eq "$LAB_DIR/ssh_config" "$(json_get "$inv" .ssh_config_file)"
assert_eq 0 "$(stat -c %s "$LAB_DIR/ssh_config")" "ssh_config is empty"
assert_eq 600 "$(stat -c %a "$LAB_DIR/id_ed25519")" "client key mode"
assert_file_contains "$LAB_DIR/known_hosts" "$h3 ssh-ed25519 AAAA"

# OpenSSH reaches each host as the lab user, at the host's address.
out=$(lab_ssh h1 'hostname -I; id -un')
assert_eq "$h1" "$(sed -n 1p <<<"$out" | tr -d ' ')" "h1's address"
assert_eq "$LAB_USER" "$(sed -n 2p <<<"$out")" "remote user"
assert_eq "$h3" "$(lab_ssh h3 'hostname -I' | tr -d ' ')" "h3's address"

# Host to host, as root in the namespace and as the lab user.
assert_status 0 lab run h1 -- ping -c 1 -W 2 "$h2"
assert_contains "$OUT" "1 received"
assert_status 0 lab_ssh h2 "ping -c 1 -W 2 $h1"
assert_contains "$OUT" "1 received" "the lab user can ping"

# iperf3 as the lab user from the rate-limited h3: its egress is capped.
assert_contains "$(lab run h3 -- tc qdisc show dev eth0)" "qdisc htb 1: root"
assert_contains "$(lab run h3 -- tc class show dev eth0)" "rate 20Mbit"
assert_contains "$(lab run h1 -- tc qdisc show dev eth0)" "noqueue" "h1 unshaped"
lab run h1 -- iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
server=$!
at_exit "kill $server 2>/dev/null"
for (( i = 0; i < 200; i++ )); do
	lab run h1 -- ss -Hltn 'sport = :5201' | grep -q 5201 && break
	sleep 0.02
done
bps=$(lab_ssh h3 "iperf3 -c $h1 -p 5201 -t 2 -J" | jq .end.sum_received.bits_per_second)
wait $server
assert_eq true "$(jq -n "$bps > 1000000 and $bps < 25000000")" \
    "h3's egress rate ($bps bit/s) is within its 20mbit limit"

# At rest no process but sshd runs in the lab; a stray one is listed.
assert_eq "" "$(lab pids)" "pids at rest"
"$LAB_SH" run --name "$LAB_NAME" h2 -- sleep 300 &
stray=$!
disown $stray
for (( i = 0; i < 100; i++ )); do
	[ -n "$(lab pids)" ] && break
	sleep 0.02
done
assert_eq "$stray" "$(lab pids)" "pids lists a stray process"

# sshd-stop: connection refused; sshd-start: back.
lab sshd-stop h2
assert_status 255 lab_ssh h2 true
assert_contains "$OUT" "Connection refused"
assert_contains "$(lab status)" "h2 $h2  sshd stopped"
lab sshd-start h2
assert_status 0 lab_ssh h2 true

# rekey: a new host key, which known_hosts does not accept.
old_key=$(cut -d' ' -f2 "$LAB_DIR/hosts/h2/ssh_host_ed25519_key.pub")
lab rekey h2
assert_ne "$old_key" "$(cut -d' ' -f2 "$LAB_DIR/hosts/h2/ssh_host_ed25519_key.pub")" "rekey"
assert_status 255 lab_ssh h2 true
assert_contains "$OUT" "Host key verification failed"

# up again: repairs a killed sshd, trusts the current keys, keeps the rest.
h1_key=$(cat "$LAB_DIR/hosts/h1/ssh_host_ed25519_key.pub")
client_key=$(cat "$LAB_DIR/id_ed25519.pub")
kill -9 "$(cat "$LAB_DIR/hosts/h3/sshd.pid")"
assert_status 0 "$LAB_SH" up --name tlab --hosts 3 --subnet "$K" --dir "$LAB_DIR"
assert_status 0 lab_ssh h3 true
assert_status 0 lab_ssh h2 true
assert_eq "$h1_key" "$(cat "$LAB_DIR/hosts/h1/ssh_host_ed25519_key.pub")" "h1 key kept"
assert_eq "$client_key" "$(cat "$LAB_DIR/id_ed25519.pub")" "client key kept"
assert_contains "$(lab run h3 -- tc qdisc show dev eth0)" "noqueue" "rate dropped"

# A second up with another subnet is refused while the lab is up.
assert_status 1 "$LAB_SH" up --name tlab --hosts 3 --subnet $(( (K + 1) % 256 )) --dir "$LAB_DIR"
assert_contains "$OUT" "already up"

# down: no namespace, link, process, file or registry entry left.
sshd_pids=$(cat "$LAB_DIR"/hosts/h*/sshd.pid)
assert_status 0 lab down --dir "$LAB_DIR"
assert_eq "" "$(ip netns list | grep -E '^np-tlab-' || true)" "namespaces left"
assert_eq "" "$(ip -o link show | grep -E 'np-tlab-|npbr-tlab' || true)" "links left"
assert_eq "" "$(ip -o -4 addr show | grep -F " 198.18.$K." || true)" "addresses left"
for p in $stray $sshd_pids; do
	state=$(ps -o stat= -p "$p" 2>/dev/null || true)
	case $state in ""|Z*) ;; *) fail "process $p still running after down ($state)" ;; esac
done
assert_eq 0 "$([ -e "$LAB_DIR" ] && echo 1 || echo 0)" "lab dir removed"
assert_eq 0 "$([ -e /run/netprof-lab/tlab.env ] && echo 1 || echo 0)" "registry entry removed"
# The last down removes the lab user: judged when no other lab is up or
# coming up (its registry entry, or its NAME.starting while it waits for
# its sshds), under the labs' machine-wide lock, which an up holds while it
# makes the user and marks itself, so another test's lab cannot come up
# between the look and the judgement.
lock=/run/lock
[ -d "$lock" ] || lock=/run
left=$(flock "$lock" bash -c 'compgen -G "/run/netprof-lab/*.env" >/dev/null ||
    compgen -G "/run/netprof-lab/*.starting" >/dev/null || getent passwd nplab || true')
assert_eq "" "$left" "lab user removed by the last down"
assert_status 0 lab down
assert_contains "$OUT" "was not up"

test_pass
