#!/usr/bin/env bash
# collect's output when its reader or its disk fails, on a 5-host lab:
# --output - to a reader that stops reading does not stop the loop (the
# probes all finish while the reader sleeps; the records arrive whole when
# it reads again; Ctrl-C still ends the run); with --every the next sweep
# waits for such a reader, so the queue holds one sweep's records at most;
# `| head -1` ends cleanly;
# /dev/full and a full tmpfs give a clear error, exit 1 and whole lines
# only; a read-only output directory, or a missing one that cannot be
# made, is refused before any host is contacted.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh ping jq python3

lab_up tfout 5
inv=$LAB_INVENTORY
tmp=$NETPROF_TEST_TMP/faults-output
rm -rf "$tmp"
mkdir -p "$tmp"
pings=(--ping-count 2 --ping-interval 0.2)

# A reader on a one-page pipe ($tmp/fifo) that reads nothing until
# $tmp/go exists; it opens the FIFO without waiting for a writer and says
# so in $tmp/ready, so the pipe is small before netprof writes a byte.
reader() {
	rm -f "$tmp/ready"
	python3 -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
fcntl.fcntl(fd, 1031, 4096)         # F_SETPIPE_SZ: one page
os.set_blocking(fd, True)
open(sys.argv[2], "w").close()
while not os.path.exists(sys.argv[3]):
    time.sleep(0.05)
with os.fdopen(fd, "rb") as f:
    sys.stdout.buffer.write(f.read())
' "$tmp/fifo" "$tmp/ready" "$tmp/go" >"$1" &
	rpid=$!
	for _ in $(seq 100); do
		[ -e "$tmp/ready" ] && return 0
		sleep 0.05
	done
	fail "the reader did not start"
}

# --- a reader that stops reading: the loop goes on ---------------------
mkfifo "$tmp/fifo"
reader "$tmp/slow.jsonl"
"$NETPROF_BIN" collect --config "$inv" --output - "${pings[@]}" \
    >"$tmp/fifo" 2>"$tmp/slow.err" &
pid=$!
for _ in $(seq 300); do
	grep -q "probes ok" "$tmp/slow.err" && break
	sleep 0.1
done
assert_file_contains "$tmp/slow.err" "20 probes ok" \
    "every probe finished while the reader slept"
kill -0 $pid 2>/dev/null || fail "netprof ended before its records were read"
touch "$tmp/go"
rc=0
wait $pid || rc=$?
wait $rpid
assert_eq 0 "$rc" "exit status with a slow reader"
assert_eq 20 "$(jq -c . "$tmp/slow.jsonl" | wc -l)" "records, all whole"
assert_eq "" "$(tail -c 1 "$tmp/slow.jsonl" | tr -d '\n')" "last line complete"

# --- Ctrl-C while the reader does not read -----------------------------
rm -f "$tmp/go"
reader "$tmp/int.jsonl"
"$NETPROF_BIN" collect --config "$inv" --output - --ping-count 30 \
    --ping-interval 0.2 >"$tmp/fifo" 2>"$tmp/int.err" &
pid=$!
# the first round's records (8 of ~1 KB) fill the one-page pipe: the
# interrupt once it holds more than 4096 - 900 bytes (no record fits)
full() {
	python3 -c '
import fcntl, os, struct, sys, termios
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
n = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0]
sys.exit(0 if n > 4096 - 900 else 1)' "$tmp/fifo"
}
wait_for 60 full || { touch "$tmp/go"; wait $pid; fail "the records never filled the pipe"; }
kill -INT $pid
t0=$(date +%s)
rc=0
for _ in $(seq 150); do
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
kill -0 $pid 2>/dev/null && { touch "$tmp/go"; wait $pid; fail "SIGINT did not stop a run whose reader does not read"; }
wait $pid || rc=$?
assert_eq 130 "$rc" "exit status after SIGINT with a stuck reader"
[ $(( $(date +%s) - t0 )) -le 10 ] || fail "SIGINT took more than 10 s"
touch "$tmp/go"
wait $rpid
assert_eq "" "$(jq -c . "$tmp/int.jsonl" >/dev/null 2>&1 || echo invalid)" \
    "what the reader got is whole lines"
sleep 0.5
left=$(for p in $(lab pids); do ps -o comm= -p "$p" 2>/dev/null; done | grep -x ping || true)
assert_eq "" "$left" "ping left in the lab after SIGINT"

# --- collect --every while the reader does not read: the sweeps wait ----
# The first sweep's 20 records overflow the one-page pipe; the second does
# not start until the reader has taken them, so the queue holds one sweep.
rm -f "$tmp/go"
reader "$tmp/every.jsonl"
"$NETPROF_BIN" -v collect --config "$inv" --output - --every 0 --count 3 \
    --ping-count 1 >"$tmp/fifo" 2>"$tmp/every.err" &
pid=$!
waits() { grep -q "sweep 2 waits for the reader of the output" "$tmp/every.err"; }
wait_for 30 waits || { touch "$tmp/go"; wait $pid; fail "no sweep waited for the reader: $(grep -c 'sweep [0-9]* starts' "$tmp/every.err") sweeps started"; }
started=$(grep -c 'sweep [0-9]* starts' "$tmp/every.err" || true)
sleep 2
assert_eq "$started" "$(grep -c 'sweep [0-9]* starts' "$tmp/every.err" || true)" \
    "no sweep started while the reader took nothing"
touch "$tmp/go"
rc=0
wait $pid || rc=$?
wait $rpid
assert_eq 0 "$rc" "exit status when sweeps waited for the reader"
assert_eq "1:20 2:20 3:20" "$(jq -r .sweep "$tmp/every.jsonl" | sort -n | uniq -c |
    awk '{ print $2 ":" $1 }' | paste -sd ' ')" "every sweep's records, whole"

# --- | head -1 ---------------------------------------------------------
# --rounds: one probe per host at a time, so records are still being
# written after head has gone
{
	rc=0
	"$NETPROF_BIN" collect --config "$inv" --output - --rounds \
	    "${pings[@]}" 2>"$tmp/head.err" || rc=$?
	echo $rc >"$tmp/head.rc"
} | head -1 >"$tmp/head.out"
rc=$(cat "$tmp/head.rc")
assert_eq 1 "$rc" "exit status when the reader went away"
assert_eq 1 "$(jq -c . "$tmp/head.out" | wc -l)" "head got one whole record"
assert_file_contains "$tmp/head.err" "cannot write records to standard output: Broken pipe"
assert_not_contains "$(cat "$tmp/head.err")" "Sanitizer"

# --- /dev/full ---------------------------------------------------------
assert_status 1 "$NETPROF_BIN" collect --config "$inv" --output /dev/full \
    "${pings[@]}"
assert_contains "$OUT" "cannot write records to /dev/full: No space left on device"

# --- a full tmpfs: whole lines only -------------------------------------
mkdir -p "$tmp/small"
mount -t tmpfs -o size=16k tfout "$tmp/small"
at_exit "umount '$tmp/small' 2>/dev/null || true"
# one page left free: the records fill it mid-line
head -c 12288 /dev/zero >"$tmp/small/filler"
assert_status 1 "$NETPROF_BIN" collect --config "$inv" \
    --output "$tmp/small/out.jsonl" "${pings[@]}"
assert_contains "$OUT" "No space left on device"
n=$(wc -l <"$tmp/small/out.jsonl")
[ "$n" -ge 1 ] && [ "$n" -lt 20 ] || fail "expected some records before the disk filled, got $n"
assert_eq "" "$(tail -c 1 "$tmp/small/out.jsonl" | tr -d '\n')" "no torn last line"
assert_eq "$n" "$(jq -c . "$tmp/small/out.jsonl" | wc -l)" "every line a record"
umount "$tmp/small"

# --- read-only directory, or a missing one that cannot be made: refused
# before anything runs (a missing directory that can be made is made, as
# upstream does)
mkdir -p "$tmp/ro"
mount -t tmpfs -o ro,size=64k tfoutro "$tmp/ro"
at_exit "umount '$tmp/ro' 2>/dev/null || true"
assert_status 2 "$NETPROF_BIN" -v collect --config "$inv" \
    --output "$tmp/ro/out.jsonl" "${pings[@]}"
assert_contains "$OUT" "Read-only file system"
assert_not_contains "$OUT" "connect"
assert_status 2 "$NETPROF_BIN" -v collect --config "$inv" \
    --output "$tmp/ro/no/such/dir/out.jsonl" "${pings[@]}"
assert_contains "$OUT" "cannot create the directory"
assert_not_contains "$OUT" "connect"
umount "$tmp/ro"
test_pass
