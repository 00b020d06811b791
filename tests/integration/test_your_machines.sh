#!/usr/bin/env bash
# The README's "Your machines", step by step, in a lab where h1 is the jump
# host and the only way in: h2 and h3 refuse SSH from anywhere else (a
# filter in their namespaces). With the README's ~/.ssh/config (the
# account's own, replaced in a private mount namespace) and inventory
# (ssh_host an alias, address where peers dial): a direct login is
# refused; through ProxyJump check says where each host goes (TARGET ...
# via jump) and is ready, collect --iperf measures every pair, heatmap
# draws them, bench runs the mesh. Then the MFA recipe: an OpenSSH
# ControlMaster the test opens once, the command transport riding it with
# BatchMode (check: n/a for HOSTKEY and AUTH, with the reason), still
# working once new SSH connections to the host are refused altogether,
# and failing (not prompting) once the master is closed.
. "$(dirname "$0")/lib.sh"
require_root
require_otela
require_cmd ssh nft jq node
require_pw_home
lab_up yourm 3
T=$NETPROF_TEST_TMP/your_machines
rm -rf "$T" && mkdir -p "$T/ssh" "$T/run"
at_exit "cd / && rm -rf '$T'"
unset SSH_AUTH_SOCK SSH_AGENT_PID
A1=$(lab_addr h1)
A2=$(lab_addr h2)
A3=$(lab_addr h3)

# h2 and h3 take SSH from the jump host only (reset: refused at once);
# connections are tracked from the start, so that a rule added later for
# new ones leaves the established ones be
for h in h2 h3; do
	lab run $h -- nft -f - <<EOF || fail "nft on $h"
table inet yourm {
	chain input {
		type filter hook input priority 0;
		ct state established,related accept
		tcp dport 22 ip saddr != $A1 reject with tcp reset
	}
}
EOF
done

# The README's ~/.ssh: the jump host, and the machines behind it by alias
cp "$LAB_DIR/id_ed25519" "$T/ssh/id_ed25519"
cp "$LAB_DIR/known_hosts" "$T/ssh/known_hosts"
cat >"$T/ssh/config" <<EOF
Host jump
  HostName $A1
Host clariden
  HostName $A2
  ProxyJump jump
Host euler
  HostName $A3
  ProxyJump jump
Host *
  User $LAB_USER
  IdentityFile $PW_HOME/.ssh/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $PW_HOME/.ssh/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
EOF
chmod 700 "$T/ssh"
chmod 600 "$T/ssh/"*

# np ARGS...: netprof with the README's ~/.ssh as the account's own
np() {
	in_pw_home "$T/ssh" env HOME="$PW_HOME" "$NETPROF_BIN" "$@"
}
cd "$T/run" || exit 1

# --- 1. the inventory: ssh_host where SSH goes, address where peers dial --
cat >machines.json <<EOF
{"user": "$LAB_USER",
 "remote_setup": "$(otela_setup)",
 "machines": [
   {"name": "clariden", "ssh_host": "clariden", "address": "$A2"},
   {"name": "euler", "ssh_host": "euler", "address": "$A3"}]}
EOF
# without the jump host, the login is refused: the filter holds
jq --arg a2 "$A2" --arg a3 "$A3" '.machines[0].ssh_host = $a2 |
    .machines[1].ssh_host = $a3 | .connect_timeout_seconds = 3' \
    machines.json >direct.json
assert_status 1 np check --config direct.json
assert_contains "$OUT" "clariden: could not connect: $A2:22: Connection refused"

# --- 2. through ProxyJump ------------------------------------------------
assert_status 0 np check --config machines.json --for iperf
assert_contains "$OUT" "clariden  $LAB_USER@$A2:22 via jump"
assert_contains "$OUT" "euler     $LAB_USER@$A3:22 via jump"
assert_contains "$OUT" "2 of 2 hosts ready"
assert_status 0 np collect --config machines.json --iperf --iperf-seconds 1 \
    --ping-count 2 --ping-interval 0.2
assert_eq "iperf3 ok 2, ping ok 2" \
    "$(jq -sr 'group_by(.kind) | map("\(.[0].kind) ok \(map(select(.ok)) | length)") | join(", ")' \
    results/network-measurements.jsonl)"
assert_status 0 np heatmap
assert_contains "$OUT" "wrote results/network-heatmap.html (2 hosts, 2 kinds, 4 records, 0 failed)"
assert_status 0 np check --config machines.json --for bench
assert_status 0 np bench --config machines.json --run-id yourm-$$ --baseline \
    --latency-count 2 --throughput-count 1 --throughput-bytes 64K
assert_eq 0 "$(jq -s 'map(select(.ok | not)) | length' results/yourm-$$/measurements.jsonl)" \
    "bench records failed"
assert_eq "latency libp2p_ping ping throughput" \
    "$(jq -r .kind results/yourm-$$/measurements.jsonl | sort -u | xargs)"
assert_status 0 np heatmap --input results/yourm-$$/measurements.jsonl \
    --input results/yourm-$$/run.json --output results/bench.html

# --- 3. MFA: a ControlMaster opened once, commands riding it ------------
sock=$T/cm-euler
in_pw_home "$T/ssh" ssh -o ControlMaster=yes -o ControlPath="$sock" \
    -o ControlPersist=no -fN euler || fail "the master did not open"
at_exit "ssh -o ControlPath='$sock' -O exit euler >/dev/null 2>&1"
# from now on h3 refuses every new SSH connection, the jump host's too
lab run h3 -- nft add rule inet yourm input ct state new tcp dport 22 reject with tcp reset
assert_status 255 in_pw_home "$T/ssh" ssh -o ControlPath=none euler true
jq --arg s "$sock" '.remote_command = ["ssh", "-o", "BatchMode=yes",
    "-o", "ControlMaster=no", "-o", ("ControlPath=" + $s), "{host}", "{command}"] |
    .machines[0].transport = "ssh" | .machines[1].transport = "command"' \
    machines.json >mfa.json
assert_status 0 np check --config mfa.json
assert_contains "$OUT" "n/a (HOSTKEY, AUTH of euler): remote_command's program logs in (its own host keys and authentication, not netprof's)"
assert_contains "$OUT" "2 of 2 hosts ready"
assert_status 0 np check --config mfa.json --json
assert_eq "ssh -o BatchMode=yes -o ControlMaster=no -o ControlPath=$sock euler ..." \
    "$(jq -r '.hosts[1].target' <<<"$OUT")" "euler's target"
assert_eq "ok n/a n/a" "$(jq -r '.hosts[1] | "\(.connect) \(.host_key) \(.auth)"' <<<"$OUT")"
assert_status 0 np collect --config mfa.json --ping-count 2 --ping-interval 0.2 \
    --output mfa.jsonl
assert_eq 2 "$(jq -s 'map(select(.ok)) | length' mfa.jsonl)" "pings through the master"
# the master closed: a command fails at once, it does not prompt
ssh -o ControlPath="$sock" -O exit euler >/dev/null 2>&1 || fail "the master was gone early"
assert_status 1 np check --config mfa.json --hosts euler --json
assert_eq "FAIL n/a n/a" "$(jq -r '.hosts[0] | "\(.connect) \(.host_key) \(.auth)"' <<<"$OUT")"
assert_contains "$(jq -r '.hosts[0].error' <<<"$OUT")" "the check did not run: the remote shell exited with status 255"

# nothing left in the lab
for (( i = 0; i < 100; i++ )); do
	[ -z "$(lab pids)" ] && break
	sleep 0.05
done
assert_eq "" "$(lab pids)" "processes left in the lab"
test_pass
