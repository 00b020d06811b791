#!/usr/bin/env bash
# SSH tunnels (engine_tunnel_open, through tests/integration/tunnel_driver)
# over real sshd to a TCP echo server listening on 127.0.0.1 inside a lab
# host: bytes both ways written before the channel is open, 8 MB each way
# (the SSH window and partial writes on both sides), several tunnels at
# once on one session, a refused port (the error names host and target),
# a caller that reads nothing for 3 s while 64 MiB come (the tunnel holds
# a bounded amount: peak RSS), the caller closing its fd (the server sees
# the connection end), the
# engine closed under open tunnels (NP_ERR_CANCELLED, the fd reads EOF),
# NP_ERR_NOFILES when the open-file limit is used up (not "out of
# memory"), and NP_ERR_UNSUPPORTED on the local transport. The driver checks the
# contract (on_closed once, never inside the open, every handle closed)
# and exits 3 when it is broken.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd python3
DRIVER=${TUNNEL_DRIVER:-$(dirname "$NETPROF_BIN")/tests/tunnel_driver}
[ -x "$DRIVER" ] || fail "no tunnel_driver at $DRIVER"
lab_up tunnel 1
T=$NETPROF_TEST_TMP/tunnel
rm -rf "$T" && mkdir -p "$T"
INV=$LAB_INVENTORY
PORT=18080

# An echo server on h1's loopback: each connection gets back what it sends
# until its EOF, then is closed; one line per connection in the log.
SERVER='
import socket, sys, threading
log = open(sys.argv[2], "a", buffering=1)
def serve(c):
    n = 0
    while True:
        b = c.recv(65536)
        if not b:
            break
        c.sendall(b)
        n += len(b)
    c.close()
    log.write("connection ended after %d bytes\n" % n)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
'
# serve WHAT PORT PROGRAM [ARGS...]: run the python PROGRAM on h1, wait
# until PORT on h1's loopback takes connections (one of 0 bytes).
serve() {
	local what=$1 port=$2 prog=$3 i
	shift 3
	lab run h1 -- python3 -c "$prog" "$@" &
	at_exit "kill $! 2>/dev/null"
	for (( i = 0; i < 100; i++ )); do
		lab run h1 -- bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null &&
		    return 0
		sleep 0.05
	done
	fail "the $what did not start on h1"
}
serve "echo server" $PORT "$SERVER" $PORT "$T/server.log"
# the probe above is one connection of 0 bytes
wait_log() {
	local i
	for (( i = 0; i < 50; i++ )); do
		[ "$(grep -c "$1" "$T/server.log")" -ge "$2" ] && return 0
		sleep 0.1
	done
	fail "server log: fewer than $2 lines '$1': $(cat "$T/server.log")"
}

drive() {
	assert_status 0 timeout -k 5 60 "$DRIVER" --config "$INV" --host h1 "$@"
}

# --- bytes both ways, written before the channel is open ---------------
printf 'hello through the tunnel\n' >"$T/hello"
drive --send "$T/hello" --half-close --out "$T/hello.out" 127.0.0.1 $PORT
assert_contains "$OUT" "tunnel 0: eof after 25 bytes (sent 25)"
assert_contains "$OUT" "tunnel 0: closed host=h1 error=0"
assert_eq "$(cat "$T/hello")" "$(cat "$T/hello.out.0")" "echoed bytes"

# --- 8 MB each way: SSH windows, partial writes on both sides ----------
head -c 8000000 /dev/urandom >"$T/big"
drive --send "$T/big" --half-close --out "$T/big.out" 127.0.0.1 $PORT
assert_contains "$OUT" "tunnel 0: eof after 8000000 bytes (sent 8000000)"
assert_eq "$(sha256sum <"$T/big")" "$(sha256sum <"$T/big.out.0")" \
    "checksum of 8 MB through the tunnel and back"

# --- several tunnels at once on one session ----------------------------
head -c 300000 /dev/urandom >"$T/mid"
drive --tunnels 6 --send "$T/mid" --half-close --out "$T/mid.out" 127.0.0.1 $PORT
assert_eq 6 "$(grep -c 'eof after 300000 bytes (sent 300000)' <<<"$OUT")" \
    "tunnels that echoed all their bytes"
assert_eq 6 "$(grep -c 'closed host=h1 error=0$' <<<"$OUT")" "tunnels closed ok"
for i in 0 1 2 3 4 5; do
	cmp -s "$T/mid" "$T/mid.out.$i" || fail "tunnel $i: echoed bytes differ"
done

# --- a caller that stops reading: what the tunnel holds stays bounded ---
# A source on h1 sends 64 MiB at once; the caller reads nothing for 3 s,
# then everything. Without a bound the tunnel would take the whole stream
# into memory meanwhile; with it, the SSH window stops the sender.
SOURCE='
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)
chunk = bytes(range(256)) * 4096
while True:
    c, _ = s.accept()
    try:
        for _ in range(64):
            c.sendall(chunk)
    except OSError:
        pass
    c.close()
'
SRC_PORT=18082
serve source $SRC_PORT "$SOURCE" $SRC_PORT
drive --read-pause 3 --out "$T/stream.out" 127.0.0.1 $SRC_PORT
assert_contains "$OUT" "tunnel 0: eof after 67108864 bytes"
assert_eq "$(lab run h1 -- python3 -c 'import sys, hashlib
h = hashlib.sha256(bytes(range(256)) * 4096 * 64); print(h.hexdigest())')" \
    "$(sha256sum <"$T/stream.out.0" | cut -d' ' -f1)" "the 64 MiB arrived intact"
rm -f "$T/stream.out.0"
rss=$(sed -n 's/^peak RSS \([0-9]*\) KB$/\1/p' <<<"$OUT")
if [ -n "$rss" ]; then
	[ "$rss" -lt 32768 ] ||
	    fail "the paused caller's tunnel held the stream: peak RSS $rss KB"
else
	assert_contains "$OUT" "(sanitized)"
fi

# --- a refused port: the error names the host and the target -----------
drive --send "$T/hello" 127.0.0.1 1
assert_contains "$OUT" "tunnel 0: closed host=h1 error=-11"
assert_contains "$OUT" "tunnel 0: text: h1: tunnel to 127.0.0.1:1 could not open"
assert_contains "$OUT" "tunnel 0: eof after 0 bytes"

# --- the caller closes its fd: the tunnel ends, the server sees it -----
before=$(grep -c 'connection ended after 25 bytes' "$T/server.log")
drive --send "$T/hello" --close-after 1 127.0.0.1 $PORT
assert_contains "$OUT" "closing the fds"
assert_contains "$OUT" "tunnel 0: closed host=h1 error=0"
wait_log 'connection ended after 25 bytes' $(( before + 1 ))

# --- engine_close under an open tunnel: cancelled, the fd reads EOF ----
drive --engine-close-after 1 127.0.0.1 $PORT
assert_contains "$OUT" "closing the engine"
assert_contains "$OUT" "tunnel 0: closed host=h1 error=-15"
assert_contains "$OUT" "tunnel 0: eof after 0 bytes"

# --- out of descriptors: "too many open files", not "out of memory" -----
# Under `ulimit -n 24` the socket pairs use up the limit: the first that
# cannot be made fails the open with the limit's own error and hint.
OUT=$(timeout -k 5 60 bash -c 'ulimit -n 24 && exec "$@"' sh "$DRIVER" \
    --config "$INV" --host h1 --tunnels 16 127.0.0.1 $PORT 2>&1) || true
assert_contains "$OUT" "open failed: error=-21 too many open files (raise the limit with ulimit -n"
assert_not_contains "$OUT" "out of memory"
assert_not_contains "$OUT" "VIOLATION"

# --- no tunnels on the local transport ----------------------------------
jq '.machines += [{"name": "here", "address": "127.0.0.1",
    "transport": "local"}]' "$INV" >"$T/local.json"
assert_status 0 timeout -k 5 20 "$DRIVER" --config "$T/local.json" --host here \
    127.0.0.1 $PORT
assert_contains "$OUT" "tunnel 0: open failed: error=-20"
test_pass
