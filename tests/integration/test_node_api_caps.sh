#!/usr/bin/env bash
# Bounded node answers: a fake node (tests/integration/fake_node.py) on a
# lab host, reached through the SSH tunnel, and on loopback, reached with
# curl (the local transport). A 390 KB table is taken; a table just under
# 64 MiB and a 1 MiB health answer are refused before they are parsed (the
# caps of docs/bench.md: 64 KiB health, 4 MiB table), on both paths; a
# table of 70 MiB sent chunked (no Content-Length, which the hosts' curl
# 7.88 does not hold to --max-filesize) is refused as it arrives, curl
# stopped, netprof's peak memory far below the answer's size. And
# the tunnel path listens on no TCP port of this machine: its bridge is a
# Unix socket in a new 0700 directory (traced with strace), which another
# unprivileged local user cannot connect to while a call is in flight.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd python3 curl strace /usr/bin/time
[ -x "${NODE_API_DRIVER:-}" ] || skip "NODE_API_DRIVER is not set (run through ctest)"
lab_up tnans 1
fake=$NETPROF_SRC/tests/integration/fake_node.py
# port, health bytes, table ids: 390 KB table; 63.9 MiB table, 1 MiB health
lab run h1 -- sh -c "nohup python3 '$fake' 19690 10 2500 >/dev/null 2>&1 &"
lab run h1 -- sh -c "nohup python3 '$fake' 19691 1048576 415000 >/dev/null 2>&1 &"
lab run h1 -- sh -c "nohup python3 '$fake' 19692 10 1 70 >/dev/null 2>&1 &"
python3 "$fake" 29690 10 2500 >/dev/null 2>&1 &
at_exit "kill $! 2>/dev/null"
python3 "$fake" 29691 1048576 415000 >/dev/null 2>&1 &
at_exit "kill $! 2>/dev/null"
python3 "$fake" 29692 10 1 70 >/dev/null 2>&1 &
at_exit "kill $! 2>/dev/null"
for (( i = 0; i < 600; i++ )); do
	lab run h1 -- sh -c 'for p in 19690 19691 19692; do
	    curl -sf -o /dev/null http://127.0.0.1:$p/v1/health || exit 1; done' &&
	    curl -sf -o /dev/null http://127.0.0.1:29690/v1/health &&
	    curl -sf -o /dev/null http://127.0.0.1:29691/v1/health &&
	    curl -sf -o /dev/null http://127.0.0.1:29692/v1/health && break
	sleep 0.1
done
cat >"$NETPROF_TEST_TMP/$TEST_NAME.local.json" <<'JSON'
{"transport": "local", "machines": [{"name": "here", "address": "127.0.0.1"}]}
JSON

drive() {	# drive INVENTORY HOST PORT PATH, its peak memory in KiB (GNU
	# time; ulimit -v would stop ASan) in $PEAK
	assert_status 0 /usr/bin/time -f peak_kib=%M "$NODE_API_DRIVER" \
	    --config "$1" --host "$2" --port "$3" --path "$4" --timeout 30
	PEAK=$(sed -n 's/^peak_kib=//p' <<<"$OUT")
}
for via in "$LAB_INVENTORY h1 19690 19691 19692" "$NETPROF_TEST_TMP/$TEST_NAME.local.json here 29690 29691 29692"; do
	set -- $via
	drive "$1" "$2" "$3" /v1/dnt/table
	base=$PEAK
	assert_contains "$OUT" "call 0: host=$2 error=0 status=200" "$2: a 390 KB table is taken"
	assert_eq 1 "$(grep -c 'call 0: body: {"peers":\[{"peer":"12D3KooW' <<<"$OUT")" "$2: the table's body"
	drive "$1" "$2" "$4" /v1/dnt/table
	assert_contains "$OUT" "call 0: host=$2 error=-18 " "$2: a 64 MiB table refused"
	assert_contains "$OUT" "larger than" "$2: saying why"
	drive "$1" "$2" "$4" /v1/health
	assert_contains "$OUT" "call 0: host=$2 error=-18 " "$2: a 1 MiB health answer refused"
	drive "$1" "$2" "$5" /v1/dnt/table
	assert_contains "$OUT" "call 0: host=$2 error=-18 " "$2: a 70 MiB chunked table refused"
	assert_contains "$OUT" "larger than" "$2: saying why"
	assert_contains "$OUT" "4194304 bytes" "$2: and the cap"
	# the answer is 71,680 KiB; its cap 4,096 (8,192 as the buffer grows)
	[ $((PEAK - base)) -lt 32768 ] ||
	    fail "$2: a 70 MiB chunked answer took $PEAK KiB, the 390 KB table $base"
done

# --- the bridge: no TCP listener, a Unix socket in a 0700 directory ------
trace=$NETPROF_TEST_TMP/trace
assert_status 0 strace -f -qq -e trace=bind,mkdir -o "$trace" \
    "$NODE_API_DRIVER" --config "$LAB_INVENTORY" --host h1 --port 19690 \
    --path /v1/health --calls 3 --timeout 30
assert_contains "$OUT" "call 2: host=h1 error=0 status=200 via_tunnel=1"
assert_eq "" "$(grep -E 'bind\(.*sa_family=AF_INET' "$trace" || true)" \
    "no TCP (or UDP) socket bound on this machine"
assert_eq 3 "$(grep -cE 'bind\(.*sa_family=AF_UNIX, sun_path="[^"]*/netprof-[A-Za-z0-9]{6}/s"' "$trace")" \
    "one Unix socket per call"
assert_eq 3 "$(grep -cE 'mkdir\("[^"]*/netprof-[A-Za-z0-9]{6}", 0700\) = 0' "$trace")" \
    "each in a new 0700 directory"
assert_eq "" "$(ls -d "${TMPDIR:-/tmp}"/netprof-?????? 2>/dev/null | while read -r d; do
	grep -qF "\"$d\"" "$trace" && echo "$d"; done)" "the directories removed"

# --- another local user cannot reach the socket while a call is in flight
# strace holds every connect() for 1.5 s, so the socket is there that long
# before libcurl's connect takes it; another unprivileged user, who can
# enter the directory above it, is refused at connect (EACCES: the 0700
# directory).
require_cmd useradd runuser
other=npbr$$
other=${other:0:16}
useradd --no-create-home --home-dir /nonexistent --shell /bin/sh "$other"
at_exit "userdel '$other' 2>/dev/null || true"
base=$(mktemp -d /tmp/npbr.XXXXXX)
chmod 755 "$base"
at_exit "rm -rf '$base' '$base.out'"
# every connect is slower (the session's, name lookups'): more time for it
jq '.connect_timeout_seconds = 30' "$LAB_INVENTORY" >"$NETPROF_TEST_TMP/slow.json"
env -u XDG_RUNTIME_DIR TMPDIR="$base" strace -f -qq -o /dev/null -e trace=connect \
    -e inject=connect:delay_enter=1500000 "$NODE_API_DRIVER" --config "$NETPROF_TEST_TMP/slow.json" \
    --host h1 --port 19690 --path /v1/health --timeout 60 >"$base.out" 2>&1 &
drv=$!
at_exit "kill $drv 2>/dev/null || true"
sock=
for (( i = 0; i < 300 && ${#sock} == 0; i++ )); do
	sock=$(ls "$base"/netprof-??????/s 2>/dev/null | head -n1 || true)
	[ -n "$sock" ] || sleep 0.05
done
[ -n "$sock" ] || fail "no bridge socket appeared under $base"
runuser -u "$other" -- test -r "$base" -a -x "$base" || fail "$other cannot enter $base"
try=$(runuser -u "$other" -- python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print("refused errno=%d" % e.errno)' "$sock" 2>&1)
assert_eq "refused errno=13" "$try" "another user cannot connect to the bridge's socket"
wait "$drv" || fail "the call failed: $(cat "$base.out")"
assert_contains "$(cat "$base.out")" "call 0: host=h1 error=0 status=200 via_tunnel=1" \
    "the call itself went through"
test_pass
