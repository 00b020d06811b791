#!/usr/bin/env bash
# shellcheck disable=SC2016 # jq programs, not shell expansions
# netprof check against a 4-host lab: a fresh lab is ready (table and
# JSON), where each host's commands go (TARGET: user@address:port), --for
# iperf and --for bench, a command transport whose program (rcc) is
# missing (CONNECT fails naming it, HOSTKEY and AUTH n/a with the reason), tools missing after remote_setup, an
# otela that cannot be executed, a failing remote_setup, a stopped sshd, an
# unknown host key (refused, then accepted and recorded), a changed host
# key (refused even with --accept-new-host-keys), a wrong client key, a
# hanging sshd (connect timeout) and SIGINT while a host hangs; no process
# is left behind in the lab.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh ssh-keygen jq

# Keys come from the inventory only, never from an agent of the caller.
unset SSH_AUTH_SOCK

lab_up chk 4
INV=$LAB_DIR/machines.json
T=$NETPROF_TEST_TMP/check
rm -rf "$T"
mkdir -p "$T"
chmod 755 "$T"
ARCH=$(uname -m)

np() {
	"$NETPROF_BIN" "$@"
}

# row TEXT HOST: HOST's table row with single spaces, its TARGET (the
# columns under the header's TARGET) left out; target TEXT HOST: that.
row() {
	local head line start end
	head=$(head -n 1 <<<"$1")
	start=${head%%TARGET*}
	end=${head%%CONNECT*}
	line=$(grep -E "^$2 " <<<"$1")
	printf '%s %s\n' "${line:0:${#start}}" "${line:${#end}}" |
	    tr -s ' ' | sed 's/ $//'
}
target() {
	local head line start end
	head=$(head -n 1 <<<"$1")
	start=${head%%TARGET*}
	end=${head%%CONNECT*}
	line=$(grep -E "^$2 " <<<"$1")
	printf '%s\n' "${line:${#start}:$(( ${#end} - ${#start} ))}" |
	    sed 's/ *$//'
}

# inventory NAME JQ_FILTER [jq args...]: a copy of the lab's inventory,
# changed by the filter; prints its path.
inventory() {
	local name=$1 filter=$2
	shift 2
	jq "$@" "$filter" "$INV" >"$T/$name.json"
	echo "$T/$name.json"
}

ready_row() {
	echo "$1 ok ok ok $ARCH yes yes yes $2 yes yes"
}

# --- a fresh lab --------------------------------------------------------

assert_status 0 np check --config "$INV"
out=$OUT
assert_eq "HOST TARGET CONNECT HOSTKEY AUTH ARCH bash ping iperf3 otela curl READY" \
    "$(head -n 1 <<<"$out" | tr -s ' ' | sed 's/ $//')" "table header"
for h in h1 h2 h3 h4; do
	assert_eq "$LAB_USER@$(lab_addr $h):22" "$(target "$out" $h)" "$h's target"
done
otela=no
if lab_ssh h1 'command -v otela' >/dev/null 2>&1; then
	otela=yes
fi
for h in h1 h2 h3 h4; do
	assert_eq "$(ready_row "$h" "$otela")" "$(row "$out" "$h")" "$h's row"
done
assert_contains "$out" $'\n4 of 4 hosts ready'
assert_not_contains "$out" "What to do"

np check --config "$INV" --json >"$T/fresh.json"
assert_eq true "$(json_get "$T/fresh.json" .ready)" ".ready"
assert_eq 4 "$(json_get "$T/fresh.json" '.hosts | length')" "hosts in JSON"
assert_eq "h1 h2 h3 h4" "$(json_get "$T/fresh.json" '[.hosts[].name] | join(" ")')"
assert_eq "$LAB_ADDRS" "$(json_get "$T/fresh.json" '[.hosts[].address] | join(" ")')"
assert_eq "$ARCH $ARCH $ARCH $ARCH" \
    "$(json_get "$T/fresh.json" '[.hosts[].arch] | join(" ")')" "arch"
assert_eq 0 "$(json_get "$T/fresh.json" '[.hosts[] | select(.tools.ping == null)] | length')" \
    "every host has ping"
assert_eq 0 "$(json_get "$T/fresh.json" '[.hosts[] | select(.ready != true or .connect != "ok" or .host_key != "ok" or .auth != "ok" or .error != null)] | length')" \
    "every host ready, every step ok"
assert_eq "$LAB_USER@$(lab_addr h3):22" "$(json_get "$T/fresh.json" '.hosts[2].target')"

# --- the command transport, its program missing ---------------------------
# upstream's file: every command through rcc, which is not installed here
inv=$(inventory rcc '.remote_command = ["rcc", "run", "--profile", "{host}", "--", "bash", "-lc", "{command}"] | .machines[3].transport = "local"')
assert_status 1 np check --config "$inv"
assert_eq "h1 FAIL n/a n/a - - - - - - NO" "$(row "$OUT" h1)"
assert_eq "rcc run --profile $(lab_addr h1) -- bash -lc ..." "$(target "$OUT" h1)"
assert_eq "h4 ok n/a n/a $ARCH yes yes yes no yes yes" "$(row "$OUT" h4)" \
    "a local machine: nothing to log in to"
assert_contains "$OUT" "n/a (HOSTKEY, AUTH of h1, h2, h3): remote_command's program logs in (its own host keys and authentication, not netprof's)"
assert_contains "$OUT" "n/a (HOSTKEY, AUTH of h4): a local command logs in nowhere"
assert_contains "$OUT" "  h1: could not run rcc: not found on this machine's PATH (remote_command's program): install it, or give its full path in the template"
# the name standing in for ssh_host is said to be where SSH goes
inv=$(inventory noresolve '.machines[0].ssh_host = null | .machines[0].name = "nosuchname"')
assert_status 1 np check --config "$inv" --hosts nosuchname
assert_eq "$LAB_USER@nosuchname:22" "$(target "$OUT" nosuchname)"
assert_contains "$OUT" "  nosuchname: netprof logs in to the machine's ssh_host, which is its name \"nosuchname\" when not given; \"address\" ($(lab_addr h1)) is where the other machines dial it."

# --hosts: only those, in the file's order.
assert_status 0 np check --config "$INV" --hosts h3,h1
assert_eq "h1 h3" "$(sed -n '2,3p' <<<"$OUT" | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')"
assert_contains "$OUT" "2 of 2 hosts ready"

assert_status 0 np check --config "$INV" --for iperf
assert_contains "$OUT" "4 of 4 hosts ready"

if [ $otela = yes ]; then
	assert_status 0 np check --config "$INV" --for bench
else
	assert_status 1 np check --config "$INV" --for bench
	assert_contains "$OUT" "0 of 4 hosts ready"
	assert_eq "h2 ok ok ok $ARCH yes yes yes MISSING yes NO" "$(row "$OUT" h2)"
	assert_contains "$OUT" "  h3: otela is not on PATH: put the binary for $ARCH on the host and add its directory to PATH with remote_setup in the inventory, e.g. \"export PATH=\$HOME/otela-bench-bin/\$(uname -m):\$PATH\""
fi

# --- tools missing, otela that cannot run, remote_setup failing ------

inv=$(inventory nopath '.remote_setup = "PATH=/nonexistent"')
assert_status 1 np check --config "$inv" --for all --hosts h1,h2
assert_eq "h1 ok ok ok $ARCH MISSING MISSING MISSING MISSING MISSING NO" "$(row "$OUT" h1)"
assert_contains "$OUT" "0 of 2 hosts ready"
assert_contains "$OUT" "  h2: ping is not on PATH: install it (Debian: apt-get install iputils-ping; HPC: module load ping) or extend PATH with remote_setup"
assert_contains "$OUT" "  h1: iperf3 is not on PATH: install it (Debian: apt-get install iperf3; HPC: module load iperf3) or extend PATH with remote_setup"
# Only for one host: the others stay ready (collect needs ping only).
inv=$(inventory nopath1 '.machines[2].remote_setup = "PATH=/nonexistent"')
assert_status 1 np check --config "$inv" --json
printf '%s\n' "$OUT" >"$T/nopath1.out"
assert_eq "true true false true" "$(json_get "$T/nopath1.out" '[.hosts[].ready] | map(tostring) | join(" ")')"
assert_eq "null" "$(json_get "$T/nopath1.out" '.hosts[2].tools.ping')"
assert_eq false "$(json_get "$T/nopath1.out" .ready)"

# A working stand-in otela for every host, one that is not an executable
# of this machine (an aarch64 ELF header: the kernel says ENOEXEC, the
# shell 126) for h2.
mkdir -p "$T/good" "$T/bad"
printf '#!/bin/sh\necho otela stand-in\n' >"$T/good/otela"
{
	printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000'
	printf '\002\000\267\000\001\000\000\000'
	head -c 40 /dev/zero
} >"$T/bad/otela"
chmod 755 "$T/good" "$T/bad" "$T/good/otela" "$T/bad/otela"
inv=$(inventory arch '.remote_setup = $g | .machines[1].remote_setup = $b' \
    --arg g "export PATH=$T/good:\$PATH" --arg b "export PATH=$T/bad:\$PATH")
assert_status 1 np check --config "$inv" --for bench
assert_eq "$(ready_row h1 yes)" "$(row "$OUT" h1)" "h1 with the stand-in otela"
assert_eq "h2 ok ok ok $ARCH yes yes yes NOEXEC yes NO" "$(row "$OUT" h2)"
assert_contains "$OUT" "3 of 4 hosts ready"
assert_contains "$OUT" "  h2: $T/bad/otela cannot be executed (wrong architecture? the host is $ARCH): install the $ARCH build and use the \$(uname -m) PATH trick in remote_setup"
# collect does not need otela: everybody is ready for it.
assert_status 0 np check --config "$inv"

inv=$(inventory setupfail '.machines[3].remote_setup = "echo no such module >&2; exit 3"')
assert_status 1 np check --config "$inv"
assert_eq "h4 ok ok ok - - - - - - NO" "$(row "$OUT" h4)"
assert_contains "$OUT" "  h4: the check did not run: the remote shell exited with status 3 (no such module); check the machine's remote_setup"

# --- a stopped sshd -----------------------------------------------------

lab sshd-stop h2
at_exit "\"\$LAB_SH\" sshd-start --name '$LAB_NAME' h2 >/dev/null 2>&1"
assert_status 1 np check --config "$INV"
assert_eq "h2 FAIL - - - - - - - - NO" "$(row "$OUT" h2)"
for h in h1 h3 h4; do
	assert_eq "$(ready_row "$h" "$otela")" "$(row "$OUT" "$h")" "$h's row"
done
assert_contains "$OUT" "3 of 4 hosts ready"
assert_contains "$OUT" $'What to do:\n'"  h2: could not connect: $(lab_addr h2):22: Connection refused"
lab sshd-start h2
assert_status 0 np check --config "$INV"

# --- unknown host keys --------------------------------------------------

: >"$T/known_hosts_empty"
inv=$(inventory unknown '.known_hosts_file = $k' --arg k "$T/known_hosts_empty")
assert_status 1 np check --config "$inv"
assert_contains "$OUT" "0 of 4 hosts ready"
for h in h1 h2 h3 h4; do
	a=$(lab_addr $h)
	assert_eq "$h ok UNKNOWN - - - - - - - NO" "$(row "$OUT" $h)"
	assert_contains "$OUT" "  $h ($a): host key is not in $T/known_hosts_empty (ssh-ed25519 key SHA256:"
	assert_contains "$OUT" "); verify it and add it (ssh-keyscan $a >> $T/known_hosts_empty) or run with --accept-new-host-keys"
done
assert_eq 0 "$(stat -c %s "$T/known_hosts_empty")" "nothing recorded without the flag"

assert_status 0 np check --config "$inv" --accept-new-host-keys
assert_contains "$OUT" "4 of 4 hosts ready"
assert_contains "$OUT" "netprof: h3 ($(lab_addr h3)): new host key recorded in $T/known_hosts_empty: ssh-ed25519 key SHA256:"
assert_eq 4 "$(grep -c . "$T/known_hosts_empty")" "keys recorded"
for h in h1 h2 h3 h4; do
	# the recorded key is the host's own (hashed or not, ssh-keygen finds it)
	key=$(cut -d' ' -f2 "$LAB_DIR/hosts/$h/ssh_host_ed25519_key.pub")
	assert_contains "$(ssh-keygen -F "$(lab_addr $h)" -f "$T/known_hosts_empty")" "$key" \
	    "$h's key in the new known_hosts"
done
assert_status 0 np check --config "$inv"
assert_not_contains "$OUT" "new host key"
assert_eq 4 "$(grep -c . "$T/known_hosts_empty")" "no key recorded twice"

# --- a wrong client key -------------------------------------------------

ssh-keygen -q -t ed25519 -N '' -C wrong -f "$T/wrong_key"
inv=$(inventory wrongkey '.identity_file = $k' --arg k "$T/wrong_key")
assert_status 1 np check --config "$inv" --hosts h1,h3
assert_eq "h1 ok ok FAIL - - - - - - NO" "$(row "$OUT" h1)"
assert_eq "h3 ok ok FAIL - - - - - - NO" "$(row "$OUT" h3)"
assert_contains "$OUT" "  h3: authentication failed for user $LAB_USER: no key accepted (tried identity_file $T/wrong_key); check identity_file or the remote authorized_keys"

# --- a hanging sshd -----------------------------------------------------

# A stopped (SIGSTOP) sshd: the kernel completes the TCP handshake, the
# server never speaks.
sshd_pid=$(cat "$LAB_DIR/hosts/h2/sshd.pid")
kill -STOP "$sshd_pid"
at_exit "kill -CONT $sshd_pid 2>/dev/null"
inv=$(inventory hang '.connect_timeout_seconds = 2')
rc=0
np check --config "$inv" --json >"$T/hang.out" || rc=$?
assert_eq 1 "$rc" "exit status with a hanging host"
assert_eq "h1 h3 h4" "$(json_get "$T/hang.out" '[.hosts[] | select(.ready) | .name] | join(" ")')"
assert_contains "timeout FAIL" "$(json_get "$T/hang.out" '.hosts[1].connect')" \
    "h2's connect state"
assert_eq "h2: could not connect: $(lab_addr h2):22: timed out after 2 s (connect_timeout_seconds)" \
    "$(json_get "$T/hang.out" '.hosts[1].error')"

# SIGINT while h2 hangs: exit 130 at once, well before the 20 s connect
# timeout, without waiting for it.
inv=$(inventory hang20 '.connect_timeout_seconds = 20')
"$NETPROF_BIN" check --config "$inv" >"$T/int.out" 2>"$T/int.err" &
check_pid=$!
at_exit "kill $check_pid 2>/dev/null"
# Its TCP connection to h2 is up, so its SIGINT handler is installed (a
# background job of a script starts with SIGINT ignored).
for (( i = 0; i < 250; i++ )); do
	ss -Htnp state established "( dport = :22 and dst $(lab_addr h2) )" |
	    grep -q "pid=$check_pid," && break
	sleep 0.02
done
[ $i -lt 250 ] || fail "check never connected to the hanging h2"
kill -INT $check_pid
for (( i = 0; i < 100; i++ )); do
	kill -0 $check_pid 2>/dev/null || break
	sleep 0.1
done
if kill -0 $check_pid 2>/dev/null; then
	fail "check still runs 10 s after SIGINT (waits for the hanging host's connect timeout?)"
fi
rc=0
wait $check_pid || rc=$?
assert_eq 130 "$rc" "exit status after SIGINT"
assert_file_contains "$T/int.err" "netprof: interrupted (signal 2); closing sessions"
assert_eq "h2 ? ? ? - - - - - - NO" "$(row "$(cat "$T/int.out")" h2)" "h2 after SIGINT"
kill -CONT "$sshd_pid"

# --- a changed host key -------------------------------------------------

lab rekey h3
assert_status 1 np check --config "$INV" --accept-new-host-keys
assert_eq "h3 ok CHANGED - - - - - - - NO" "$(row "$OUT" h3)"
assert_contains "$OUT" "3 of 4 hosts ready"
assert_contains "$OUT" "  h3 ($(lab_addr h3)): WARNING: REMOTE HOST KEY HAS CHANGED: it sent ssh-ed25519 key SHA256:"
assert_contains "$OUT" "which is not the key recorded in $LAB_DIR/known_hosts; someone may be intercepting the connection, or the host was reinstalled; if this is expected, remove the old key with ssh-keygen -R $(lab_addr h3) -f $LAB_DIR/known_hosts and connect again"
new_key=$(cut -d' ' -f2 "$LAB_DIR/hosts/h3/ssh_host_ed25519_key.pub")
assert_eq 0 "$(grep -cF "$new_key" "$LAB_DIR/known_hosts" || true)" \
    "the changed key is not recorded"

# --- nothing left behind ------------------------------------------------

for (( i = 0; i < 100; i++ )); do
	[ -z "$(lab pids)" ] && break
	sleep 0.05
done
assert_eq "" "$(lab pids)" "processes left in the lab"

test_pass
