#!/usr/bin/env bash
# The dispatch engine over real sshd (through tests/integration/
# engine_driver): exit codes and output, stdin, more than 1 MiB of stdout,
# 50 commands at once on one host (above sshd's MaxSessions), timeouts,
# cancel and close killing the remote process group, a session lost in the
# middle of a command, a batch on SSH (a channel per host, one of them
# cancelled alone), and the local and command transports. The driver
# itself checks the engine's contract (on_done once, never inside submit,
# every handle closed) and exits 3 when it is broken.
. "$(dirname "$0")/lib.sh"
require_root
DRIVER=${ENGINE_DRIVER:-$(dirname "$NETPROF_BIN")/tests/engine_driver}
[ -x "$DRIVER" ] || fail "no engine_driver at $DRIVER"
lab_up engine 2
T=$NETPROF_TEST_TMP/engine
rm -rf "$T" && mkdir -p "$T"
INV=$LAB_INVENTORY

drive() {
	assert_status 0 timeout -k 5 60 "$DRIVER" --config "$INV" "$@"
}

# jobs with error=E among the driver's output
count() {
	grep -c "error=$1 " <<<"$OUT" || true
}

# No process of the lab's hosts runs a command line containing $1 (a kill
# is delivered at once but reaped a moment later: look for up to 3 s).
assert_gone() {
	local i pid left
	for (( i = 0; i < 30; i++ )); do
		left=""
		for pid in $(lab pids); do
			if grep -qF -- "$1" "/proc/$pid/cmdline" 2>/dev/null; then
				left="$left $pid"
			fi
		done
		[ -z "$left" ] && break
		sleep 0.1
	done
	assert_eq "" "$left" "processes running '$1' on the lab hosts"
}

# --- a batch: on SSH, a channel per host; one cancelled, the other ends ---
drive --batch --host h2 --cancel-after 1 -- \
    'echo "$(hostname) start"; sleep 2; echo "$(hostname) end"'
assert_contains "$OUT" "job 0: host=h1 error=0 exit=0 out=16 err=0"
assert_contains "$OUT" "job 1: host=h2 error=-15 exit=-1 out=9 err=0"
assert_contains "$OUT" "done 2 of 2"

# --- exit status, stdout, stderr ---------------------------------------
drive --host h1 -- 'echo out; echo err >&2; exit 3'
assert_contains "$OUT" "job 0: host=h1 error=0 exit=3 out=4 err=4"
assert_contains "$OUT" "job 0: stdout: out"
assert_contains "$OUT" "job 0: stderr: err"

# --- stdin: 300 kB through the channel, checksum on the host -----------
head -c 300000 /dev/urandom >"$T/input"
want=$(sha256sum <"$T/input" | cut -d' ' -f1)
drive --host h2 --input "$T/input" -- 'sha256sum | cut -d" " -f1'
assert_contains "$OUT" "job 0: stdout: $want"

# --- output on both streams of many channels at once --------------------
# Any libssh call may read packets for any channel of the session; output,
# EOF and exit status must reach every job whichever call read them (a
# job whose last packets were read while another channel was stepped used
# to wait forever). Repeated: the interleaving differs from run to run.
for round in 1 2 3; do
	drive --host h2 --jobs 12 -- 'seq 1 100000; seq 1 50000 >&2'
	assert_eq 12 "$(grep -c 'error=0 exit=0 out=588895 err=288894$' <<<"$OUT")" \
	    "jobs with all their stdout and stderr, round $round"
done

# --- stdout over 1 MiB --------------------------------------------------
drive --host h1 --out "$T/big" -- 'seq 1 400000'
assert_eq "$(seq 1 400000 | sha256sum)" "$(sha256sum <"$T/big")" \
    "checksum of 2.6 MB of stdout"

# --- 50 commands at once on one host, 8 channels at a time -------------
drive --host h2 --jobs 50 -- 'sleep 0.1; echo $$'
assert_eq 50 "$(count 0)" "commands that succeeded of 50"

# --- timeout: the remote process group is killed -----------------------
drive --host h1 --jobs 2 --timeout 1 -- 'sleep 71 & sleep 72; echo not reached'
assert_eq 2 "$(count -10)" "timed out jobs"
assert_contains "$OUT" "h1: command timed out after 1 s"
assert_gone "sleep 7"

# --- cancel and close ---------------------------------------------------
drive --host h2 --jobs 3 --max-channels 2 --cancel-after 0.5 -- 'sleep 73'
assert_eq 3 "$(count -15)" "cancelled jobs (2 running, 1 queued)"
assert_gone "sleep 73"
drive --host h1 --jobs 2 --close-after 0.5 -- 'sleep 74'
assert_eq 2 "$(count -15)" "jobs cancelled by engine_close"
assert_contains "$OUT" "engine closed"
assert_gone "sleep 74"

# --- session lost in the middle of a command ---------------------------
# With one channel, job 0 runs while jobs 1 and 2 wait; killing this
# connection's sshd processes once job 0's command runs (it makes a
# directory first: the hosts share this file system) fails job 0 with the
# reason, and the queued jobs get one new session.
mark=$(mktemp -d "${TMPDIR:-/tmp}/netprof-lost.XXXXXX")
chmod 1777 "$mark"
at_exit "rm -rf '$mark'"
timeout -k 5 60 "$DRIVER" --config "$INV" --host h1 --jobs 3 --max-channels 1 \
    -- "if mkdir $mark/running 2>/dev/null; then sleep 30; fi; echo survived" \
    >"$T/lost.out" 2>&1 &
drv=$!
for (( i = 0; i < 200; i++ )); do
	[ -d "$mark/running" ] && break
	sleep 0.05
done
[ -d "$mark/running" ] || fail "job 0 never started on h1"
sshd_pids=$(lab run h1 -- ss -Htnp state established '( sport = :22 )' |
    grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u | tr '\n' ' ')
[ -n "$sshd_pids" ] || fail "no sshd connection on h1 to kill"
# shellcheck disable=SC2086
kill -9 $sshd_pids
rc=0
wait $drv || rc=$?
OUT=$(cat "$T/lost.out")
assert_eq 0 "$rc" "driver exit status; output: $OUT"
assert_contains "$OUT" "job 0: host=h1 error=-12"
assert_contains "$OUT" "h1: SSH session lost while the command ran:"
assert_eq 2 "$(count 0)" "queued jobs run on the new session"

# --- local and command transports ---------------------------------------
jq --arg cfg "$LAB_SSH_CONFIG" '.remote_command = ["ssh", "-F", $cfg, "{name}",
    "{command}"] | .machines += [{"name": "here", "address": "127.0.0.1",
    "transport": "local"}, {"name": "h1", "address": .machines[0].address,
    "transport": "command"}] | .machines |= (.[1:])' "$INV" >"$T/spawn.json"
INV=$T/spawn.json
drive --host here --input "$T/input" -- 'sha256sum | cut -d" " -f1; exit 5'
assert_contains "$OUT" "job 0: host=here error=0 exit=5"
assert_contains "$OUT" "job 0: stdout: $want"
# The fraction names this test's sleeps, so another checkout running the
# same test at once cannot be mistaken for a leftover.
drive --host here --jobs 2 --timeout 0.5 -- "sleep 75.$$ & sleep 76.$$"
assert_eq 2 "$(count -10)" "timed out local jobs"
sleep 0.2
assert_eq "" "$(pgrep -f "sleep 7[56]\\.$$" || true)" "local processes left"
drive --host h1 -- 'echo via $(hostname -I 2>/dev/null | cut -c1-6); exit 4'
assert_contains "$OUT" "job 0: host=h1 error=0 exit=4"
assert_contains "$OUT" "job 0: stdout: via 198.18"
test_pass
