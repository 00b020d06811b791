#!/usr/bin/env bash
# The ssh transport and the OpenSSH client configuration named by the
# inventory's ssh_config_file, over a lab of four hosts: a Host alias with
# HostName, User, IdentityFile and Port (the host key is looked up under the
# HostName); Port 2222 of a second sshd, and the inventory's port and user
# winning over the config; ssh-agent, and the failure without it;
# ProxyJump, which libssh runs as OpenSSH's "ssh -W" reading the account's
# own ~/.ssh (a clear error when that cannot reach the jump host, success
# when it can) and the ProxyCommand that works with the lab's files only;
# a hostile ~/.ssh (in $HOME and in the account's home directory) that is
# never read when the inventory names known_hosts_file and ssh_config_file.
# The account's home directory is replaced in a private mount namespace;
# the real ~/.ssh is neither read nor changed.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd jq ssh ssh-agent ssh-add ssh-keygen unshare
lab_up sshcfg 4
T=$NETPROF_TEST_TMP/ssh_config
rm -rf "$T" && mkdir -p "$T/home"
unset SSH_AUTH_SOCK SSH_AGENT_PID
# netprof expands ~ with $HOME: no file of the user running the test
export HOME=$T/home
A1=$(lab_addr h1)
A2=$(lab_addr h2)
A3=$(lab_addr h3)
A4=$(lab_addr h4)
KEY=$LAB_DIR/id_ed25519
KH=$LAB_DIR/known_hosts

# mkinv FILE SSH_CONFIG MACHINE [TOP]: an inventory of one machine (a JSON
# object) with the lab's known_hosts, the given ssh config and the JSON
# object TOP merged into its top level.
mkinv() {
	jq -n --arg kh "$KH" --arg cf "$2" --argjson m "$3" \
	    --argjson top "${4:-{\}}" '{known_hosts_file: $kh,
	    ssh_config_file: $cf, connect_timeout_seconds: 5,
	    machines: [$m]} + $top' >"$1"
}

# Who and where: "NAME: USER CLIENT_ADDR SERVER_ADDR SERVER_PORT".
# shellcheck disable=SC2016
WHO='set -- $SSH_CONNECTION; echo $(id -un) $1 $3 $4'

nx() {
	"$NETPROF_BIN" exec "$@"
}

require_pw_home
mkdir -p "$T/pw-empty"

# --- 1. a Host alias: HostName, User, IdentityFile, Port --------------------
cat >"$T/alias.conf" <<EOF
Host alias1
  HostName $A1
  User $LAB_USER
  IdentityFile $KEY
  Port 22
EOF
mkinv "$T/alias.json" "$T/alias.conf" '{"name": "h1", "address": "'"$A1"'",
    "ssh_host": "alias1"}'
assert_status 0 nx --config "$T/alias.json" -- id -un
assert_eq "h1: $LAB_USER" "$OUT"
assert_status 0 nx --config "$T/alias.json" -- "$WHO"
assert_contains "$OUT" " $A1 22"
# the host key is looked up, and recorded, under the HostName
: >"$T/kh-empty"
mkinv "$T/alias-kh.json" "$T/alias.conf" '{"name": "h1", "address": "'"$A1"'",
    "ssh_host": "alias1"}' '{"known_hosts_file": "'"$T/kh-empty"'"}'
assert_status 255 nx --config "$T/alias-kh.json" -- true
assert_contains "$OUT" "h1 ($A1): host key is not in $T/kh-empty"
assert_contains "$OUT" "(ssh-keyscan $A1 >> $T/kh-empty)"
assert_status 0 nx --config "$T/alias-kh.json" --accept-new-host-keys -- true
assert_file_contains "$T/kh-empty" "$A1 ssh-ed25519 "
assert_status 0 nx --config "$T/alias-kh.json" -- id -un
assert_eq "h1: $LAB_USER" "$OUT"

# --- 2. Port from the config, the inventory's port wins ----------------------
sed -e 's/^Port 22$/Port 2222/' -e "s|^PidFile .*|PidFile $T/sshd2222.pid|" \
    "$LAB_DIR/hosts/h2/sshd_config" >"$T/sshd2222_config"
grep -q '^Port 2222$' "$T/sshd2222_config" ||
    fail "no 'Port 22' line in $LAB_DIR/hosts/h2/sshd_config"
at_exit "[ -f '$T/sshd2222.pid' ] && kill \$(cat '$T/sshd2222.pid')"
lab run h2 -- /usr/sbin/sshd -f "$T/sshd2222_config" -E "$T/sshd2222.log"
for (( i = 0; i < 50; i++ )); do
	[ -s "$T/sshd2222.pid" ] && break
	sleep 0.1
done
[ -s "$T/sshd2222.pid" ] || fail "the sshd on port 2222 did not start: $(cat "$T/sshd2222.log")"
# known_hosts names a host on another port as [host]:port
{ cat "$KH"; printf '[%s]:2222 %s\n' "$A2" "$(cut -d' ' -f1,2 \
    "$LAB_DIR/hosts/h2/ssh_host_ed25519_key.pub")"; } >"$T/kh2222"
cat >"$T/port.conf" <<EOF
Host port2
  HostName $A2
  Port 2222
  User $LAB_USER
  IdentityFile $KEY
EOF
M2='{"name": "h2", "address": "'"$A2"'", "ssh_host": "port2"}'
mkinv "$T/port.json" "$T/port.conf" "$M2" '{"known_hosts_file": "'"$T/kh2222"'"}'
assert_status 0 nx --config "$T/port.json" -- "$WHO"
assert_contains "$OUT" "h2: $LAB_USER "
assert_contains "$OUT" " $A2 2222"
mkinv "$T/port22.json" "$T/port.conf" "$(jq -c '.port = 22' <<<"$M2")" \
    '{"known_hosts_file": "'"$T/kh2222"'"}'
assert_status 0 nx --config "$T/port22.json" -- "$WHO"
assert_contains "$OUT" " $A2 22"
mkinv "$T/porttop.json" "$T/port.conf" "$M2" \
    '{"known_hosts_file": "'"$T/kh2222"'", "port": 22}'
assert_status 0 nx --config "$T/porttop.json" -- "$WHO"
assert_contains "$OUT" " $A2 22"
# the advice for an unknown key on another port
mkinv "$T/port-kh.json" "$T/port.conf" "$M2"
assert_status 255 nx --config "$T/port-kh.json" -- true
assert_contains "$OUT" "(ssh-keyscan -p 2222 $A2 >> $KH)"

# --- 3. the inventory's user wins over the config's --------------------------
cat >"$T/user.conf" <<EOF
Host wronguser
  HostName $A3
  User nosuchuser
  IdentityFile $KEY
EOF
M3='{"name": "h3", "address": "'"$A3"'", "ssh_host": "wronguser"}'
mkinv "$T/user-cfg.json" "$T/user.conf" "$M3"
assert_status 255 nx --config "$T/user-cfg.json" -- id -un
assert_contains "$OUT" "h3: authentication failed for user nosuchuser"
mkinv "$T/user.json" "$T/user.conf" "$(jq -c --arg u "$LAB_USER" \
    '.user = $u' <<<"$M3")"
assert_status 0 nx --config "$T/user.json" -- id -un
assert_eq "h3: $LAB_USER" "$OUT"
mkinv "$T/user-top.json" "$T/user.conf" "$M3" '{"user": "'"$LAB_USER"'"}'
assert_status 0 nx --config "$T/user-top.json" -- id -un
assert_eq "h3: $LAB_USER" "$OUT"

# --- 4. ssh-agent --------------------------------------------------------------
# no identity_file, no IdentityFile, no default keys anywhere
cat >"$T/agent.conf" <<EOF
Host agent4
  HostName $A4
  User $LAB_USER
EOF
mkinv "$T/agent.json" "$T/agent.conf" '{"name": "h4", "address": "'"$A4"'",
    "ssh_host": "agent4"}'
eval "$(ssh-agent -s)" >/dev/null
at_exit "kill $SSH_AGENT_PID"
AGENT=$SSH_AUTH_SOCK
unset SSH_AUTH_SOCK SSH_AGENT_PID
SSH_AUTH_SOCK=$AGENT ssh-add -q "$KEY" 2>/dev/null || fail "ssh-add $KEY failed"
assert_status 0 in_pw_home "$T/pw-empty" env SSH_AUTH_SOCK="$AGENT" \
    "$NETPROF_BIN" exec --config "$T/agent.json" -- id -un
assert_eq "h4: $LAB_USER" "$OUT"
assert_status 255 in_pw_home "$T/pw-empty" \
    "$NETPROF_BIN" exec --config "$T/agent.json" -- id -un
assert_contains "$OUT" "h4: authentication failed for user $LAB_USER: no key accepted (tried the keys of the ssh config or ~/.ssh; no ssh-agent: SSH_AUTH_SOCK is not set)"
# an agent without the key: the same failure, naming the agent
SSH_AUTH_SOCK=$AGENT ssh-add -q -D 2>/dev/null
assert_status 255 in_pw_home "$T/pw-empty" env SSH_AUTH_SOCK="$AGENT" \
    "$NETPROF_BIN" exec --config "$T/agent.json" -- id -un
assert_contains "$OUT" "h4: authentication failed for user $LAB_USER: no key accepted (tried agent and the keys"

# --- 5. ProxyJump and ProxyCommand ----------------------------------------------
cat >"$T/jump.conf" <<EOF
Host jumped
  HostName $A3
  User $LAB_USER
  IdentityFile $KEY
  ProxyJump $LAB_USER@$A1
EOF
M5='{"name": "h3", "address": "'"$A3"'", "ssh_host": "jumped"}'
mkinv "$T/jump.json" "$T/jump.conf" "$M5"
# libssh runs "ssh -l USER -W [HOST]:PORT JUMP"; with an empty ~/.ssh
# OpenSSH does not know the jump host's key and gives up
assert_status 255 in_pw_home "$T/pw-empty" \
    "$NETPROF_BIN" exec --config "$T/jump.json" -- "$WHO"
assert_contains "$OUT" "h3: could not connect: $A3:22: "
assert_contains "$OUT" "the connection goes through the command \"ssh -l $LAB_USER -W '[$A3]:22' $A1\""
assert_contains "$OUT" "run it by hand to see them"
assert_contains "$OUT" "ProxyCommand \"ssh -F FILE -W [%h]:%p JUMPHOST\""
# with a ~/.ssh that lets OpenSSH reach the jump host, ProxyJump works
mkdir -p "$T/pw-jump"
cat >"$T/pw-jump/config" <<EOF
Host $A1
  IdentityFile $KEY
  IdentitiesOnly yes
  UserKnownHostsFile $KH
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  UpdateHostKeys no
  BatchMode yes
EOF
assert_status 0 in_pw_home "$T/pw-jump" \
    "$NETPROF_BIN" exec --config "$T/jump.json" -- "$WHO"
assert_eq "h3: $LAB_USER $A1 $A3 22" "$OUT" "h3 reached from h1"
# a ProxyCommand naming its own config needs no ~/.ssh
cat >"$T/proxy.conf" <<EOF
Host jumped
  HostName $A3
  User $LAB_USER
  IdentityFile $KEY
  ProxyCommand ssh -F $LAB_SSH_CONFIG -W [%h]:%p h1
EOF
mkinv "$T/proxy.json" "$T/proxy.conf" "$M5"
assert_status 0 in_pw_home "$T/pw-empty" \
    "$NETPROF_BIN" exec --config "$T/proxy.json" -- "$WHO"
assert_eq "h3: $LAB_USER $A1 $A3 22" "$OUT" "h3 reached from h1"
n=0
for p in $(pgrep -x ssh || true); do
	grep -qF -- "-W" "/proc/$p/cmdline" 2>/dev/null &&
	    grep -qF "$A3" "/proc/$p/cmdline" 2>/dev/null && n=$((n + 1))
done
assert_eq 0 "$n" "proxy commands left running"

# --- 6. a hostile ~/.ssh is not read when the inventory names the files ------
mkdir -p "$T/bad/.ssh"
cat >"$T/bad/.ssh/config" <<EOF
Host *
  Port 1
  User nosuchuser
EOF
ssh-keygen -q -t ed25519 -N '' -f "$T/bad-hostkey"
printf '%s %s\n' "$A1" "$(cut -d' ' -f1,2 "$T/bad-hostkey.pub")" \
    >"$T/bad/.ssh/known_hosts"
M6='{"name": "h1", "address": "'"$A1"'", "ssh_host": "'"$A1"'"}'
: >"$T/empty.conf"
mkinv "$T/named.json" "$T/empty.conf" "$M6" \
    '{"user": "'"$LAB_USER"'", "identity_file": "'"$KEY"'"}'
assert_status 0 in_pw_home "$T/bad/.ssh" env HOME="$T/bad" \
    "$NETPROF_BIN" exec --config "$T/named.json" -- "$WHO"
assert_contains "$OUT" "h1: $LAB_USER "
assert_contains "$OUT" " $A1 22"
# the same ~/.ssh, when the inventory leaves the files out, breaks things
# (so the case above can fail)
jq 'del(.ssh_config_file)' "$T/named.json" >"$T/no-config.json"
assert_status 255 env HOME="$T/bad" \
    "$NETPROF_BIN" exec --config "$T/no-config.json" -- true
assert_contains "$OUT" "h1: could not connect: $A1:1: "
jq 'del(.known_hosts_file)' "$T/named.json" >"$T/no-kh.json"
assert_status 255 env HOME="$T/bad" \
    "$NETPROF_BIN" exec --config "$T/no-kh.json" -- true
assert_contains "$OUT" "HOST KEY HAS CHANGED"
assert_contains "$OUT" "$T/bad/.ssh/known_hosts"
test_pass
