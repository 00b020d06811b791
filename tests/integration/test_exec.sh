#!/usr/bin/env bash
# netprof exec over a lab of three hosts: host-prefixed output and the
# worst exit status; the known_hosts policy (unknown key refused, accepted
# and recorded with --accept-new-host-keys, a changed key refused even
# then); a wrong client key; a host whose sshd is stopped failing alone;
# --repeat's figures; SIGINT killing every remote command; usage and
# inventory errors.
. "$(dirname "$0")/lib.sh"
require_root
lab_up exec 3
T=$NETPROF_TEST_TMP/exec
rm -rf "$T" && mkdir -p "$T"
INV=$LAB_INVENTORY
unset SSH_AUTH_SOCK

nx() {
	"$NETPROF_BIN" exec "$@"
}

# --- output and exit status ---------------------------------------------
assert_status 3 nx --config "$INV" -- 'echo one; printf partial; [ $(hostname -I | cut -d. -f4 | tr -d " ") = 3 ] && exit 3; exit 1'
assert_contains "$OUT" "h1: one"
assert_contains "$OUT" "h2: partial"
assert_contains "$OUT" "h3: one"
assert_status 0 nx --config "$INV" --hosts h2 -- echo '$((6*7))'
assert_eq "h2: 42" "$OUT"
echo "from stdin" >"$T/in"
assert_status 0 nx --config "$INV" --hosts h1 -i "$T/in" -- cat
assert_eq "h1: from stdin" "$OUT"

# --- known_hosts ----------------------------------------------------------
: >"$T/known_hosts"
jq --arg kh "$T/known_hosts" '.known_hosts_file = $kh' "$INV" >"$T/kh.json"
assert_status 255 nx --config "$T/kh.json" --hosts h1 -- true
assert_contains "$OUT" "h1 ($(lab_addr h1)): host key is not in $T/known_hosts"
assert_contains "$OUT" "--accept-new-host-keys"
assert_status 0 nx --config "$T/kh.json" --hosts h1 --accept-new-host-keys -- true
assert_file_contains "$T/known_hosts" "$(lab_addr h1) ssh-ed25519"
assert_status 0 nx --config "$T/kh.json" --hosts h1 -- true

lab rekey h2 >/dev/null
assert_status 255 nx --config "$INV" --hosts h2 --accept-new-host-keys -- true
assert_contains "$OUT" "HOST KEY HAS CHANGED"
assert_contains "$OUT" "ssh-keygen -R $(lab_addr h2)"
before=$(cat "$LAB_DIR/known_hosts")
assert_eq "$before" "$(cat "$LAB_DIR/known_hosts")" "known_hosts untouched"

# --- a wrong client key ---------------------------------------------------
ssh-keygen -q -t ed25519 -N '' -f "$T/wrong_key"
jq --arg k "$T/wrong_key" '.identity_file = $k' "$INV" >"$T/wrong.json"
assert_status 255 nx --config "$T/wrong.json" --hosts h1 -- true
assert_contains "$OUT" "h1: authentication failed for user nplab: no key accepted (tried identity_file $T/wrong_key"

# --- one host down, the others fine ---------------------------------------
lab sshd-stop h3 >/dev/null
assert_status 255 nx --config "$INV" --hosts h1,h3 -- echo up
assert_contains "$OUT" "h1: up"
assert_contains "$OUT" "h3: could not connect: $(lab_addr h3):22: "
assert_contains "$OUT" "Connection refused"
lab sshd-start h3 >/dev/null

# --- --repeat -------------------------------------------------------------
assert_status 0 nx --config "$INV" --hosts h1,h3 --repeat 5 -- echo hidden
assert_not_contains "$OUT" "hidden"
assert_contains "$OUT" "10 commands on 2 hosts in "
assert_contains "$OUT" "commands/s; latency ms: p50 "

# --- --timeout and SIGINT kill the remote commands -------------------------
# (h2 has its new key from here on: h1 and h3 only)
assert_status 255 nx --config "$INV" --hosts h1,h3 --timeout 1 -- 'sleep 81'
assert_contains "$OUT" "h3: command timed out after 1 s"
"$NETPROF_BIN" exec --config "$INV" --hosts h1,h3 -- 'sleep 82' >"$T/int.out" 2>&1 &
pid=$!
for (( i = 0; i < 50; i++ )); do
	n=0
	for p in $(lab pids); do
		grep -qF "sleep 82" "/proc/$p/cmdline" 2>/dev/null && n=$((n + 1))
	done
	[ $n -ge 2 ] && break
	sleep 0.1
done
assert_eq 2 "$n" "remote 'sleep 82' running before SIGINT"
kill -INT $pid
rc=0
wait $pid || rc=$?
assert_eq 130 "$rc" "exit status after SIGINT; output: $(cat "$T/int.out")"
for (( i = 0; i < 30; i++ )); do
	n=0
	for p in $(lab pids); do
		grep -qF "sleep 82" "/proc/$p/cmdline" 2>/dev/null && n=$((n + 1))
	done
	[ $n = 0 ] && break
	sleep 0.1
done
assert_eq 0 "$n" "remote 'sleep 82' left after SIGINT"

# --- usage and inventory errors -------------------------------------------
assert_status 2 nx --config "$INV"
assert_contains "$OUT" "no command given"
assert_status 2 nx --config "$INV" --hosts nosuch -- true
assert_contains "$OUT" "nosuch"
echo '{"machines": [' >"$T/bad.json"
assert_status 2 nx --config "$T/bad.json" -- true
assert_status 0 nx --help
assert_contains "$OUT" "--accept-new-host-keys"
test_pass
