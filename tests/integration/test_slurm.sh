#!/usr/bin/env bash
# netprof on a real Slurm cluster (lab.sh up --slurm: slurmctld, and a
# slurmd per lab host in its namespace): --slurm's clear errors outside a
# job, for a job not running and without Slurm's commands; inside a real
# allocation (salloc, and sbatch of examples/slurm-collect.sbatch) exec
# (its nodes picked with --hosts 'h[1-3]' -x h2, as the NodeList reads),
# check and collect over the slurm transport, each command a job step on
# its node, and a sweep's fan-outs (exec's command on every node) as one
# step with a task per node (--slurm-steps each: a step each);
# --transport ssh keeping SSH sessions to the nodes' NodeAddr; Ctrl-C and
# a timeout leaving no step (squeue --steps) and no process on any node,
# and so does a srun that does not end (scancel of its step, named for
# this netprof alone: another of the same PID keeps its own); one node's
# task timed out (killed alone while the step goes on) or killed outright
# failing that node only; a node drained mid-job failing its pairs with
# Slurm's reason. bench over the slurm transport: test_slurm_bench.sh.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd slurmctld slurmd munged srun salloc sbatch squeue scontrol jq
lab_up tslurm 3 --slurm
# shellcheck disable=SC1091
. "$LAB_DIR/slurm/slurm.env"
T=$NETPROF_TEST_TMP/slurm
rm -rf "$T" && mkdir -p "$T"
cd "$T"
unset SLURM_JOB_ID SSH_AUTH_SOCK

# The cluster itself: three nodes, idle, each NodeAddr its lab address.
assert_eq "h1 idle 198.18.$LAB_SUBNET.2
h2 idle 198.18.$LAB_SUBNET.3
h3 idle 198.18.$LAB_SUBNET.4" "$(sinfo -h -N -o '%N %t %o')"

# --- the clear errors ---------------------------------------------------
assert_status 2 "$NETPROF_BIN" exec --slurm -- true
assert_contains "$OUT" "--slurm: no job: \$SLURM_JOB_ID is not set"
assert_status 2 "$NETPROF_BIN" collect --slurm=4x
assert_contains "$OUT" "--slurm: '4x' is not a job id"
assert_status 2 "$NETPROF_BIN" exec --slurm=999999 -- true
assert_contains "$OUT" "job 999999: scontrol show job failed: slurm_load_jobs error: Invalid job id specified"
# The job id as the next word, as srun --jobid 42 takes it; a word that is
# no job id is not taken (the first operand, or the command of exec).
assert_status 2 "$NETPROF_BIN" exec --slurm 999999 -- true
assert_contains "$OUT" "job 999999: scontrol show job failed"
assert_status 2 "$NETPROF_BIN" collect --slurm 4x
assert_contains "$OUT" "unexpected argument '4x'"
assert_status 0 "$NETPROF_BIN" collect --help
assert_contains "$OUT" "--slurm [JOBID]"
pending=$(sbatch --parsable --begin=now+1hour --wrap true)
assert_status 2 "$NETPROF_BIN" exec --slurm="$pending" -- true
assert_contains "$OUT" "job $pending is PENDING, not RUNNING (reason: BeginTime)"
scancel "$pending"
assert_status 2 env PATH=/nonexistent "$NETPROF_BIN" exec --slurm=1 -- true
assert_contains "$OUT" "Slurm's scontrol is not on PATH"
assert_status 2 "$NETPROF_BIN" exec --config "$LAB_INVENTORY" --transport slurm -- true
assert_contains "$OUT" "--transport is for --slurm's nodes"

# --- inside an allocation: salloc runs netprof with SLURM_JOB_ID set ----
# The command on every node: one step over the three, each task on its
# node; with --slurm-steps each, a step on each node.
assert_status 0 salloc -N3 --quiet -- "$NETPROF_BIN" exec --slurm -- \
    'echo "$(hostname) $SLURM_STEP_NODELIST $(ip -4 -o addr show eth0 | awk "{print \$4}")"'
assert_contains "$OUT" "h1: h1 h[1-3] 198.18.$LAB_SUBNET.2/24"
assert_contains "$OUT" "h2: h2 h[1-3] 198.18.$LAB_SUBNET.3/24"
assert_contains "$OUT" "h3: h3 h[1-3] 198.18.$LAB_SUBNET.4/24"
assert_status 0 salloc -N3 --quiet -- "$NETPROF_BIN" exec --slurm \
    --slurm-steps each -- 'echo "$(hostname) $SLURM_STEP_NODELIST"'
assert_contains "$OUT" "h1: h1 h1"
assert_contains "$OUT" "h2: h2 h2"
assert_contains "$OUT" "h3: h3 h3"

# the job's NodeList (h[1-3]) and --hosts/--exclude: one syntax, one
# expander, as pdsh and Slurm write node lists
assert_status 0 salloc -N3 --quiet -- "$NETPROF_BIN" exec --slurm \
    --hosts 'h[1-3]' -x h2 -- hostname
assert_eq "h1: h1
h3: h3" "$(sort <<<"$OUT")"

# A task's command that writes another node's start line where its own
# task's lines go (its wrapper's stdout, through /proc) does not get its
# output recorded as that node's: a task's node is its first line's.
forge='if [ "$(hostname)" = h1 ]; then p=$PPID
while [ "$p" -gt 1 ] && [ ! -e "/proc/$p/fd/5" ]; do p=$(cut -d" " -f4 "/proc/$p/stat"); done
printf "!s h2\n|FORGED\n" >"/proc/$p/fd/5"; echo mine
else sleep 1; echo "$(hostname) real"; fi'
assert_status 0 salloc -N3 --quiet -- "$NETPROF_BIN" exec --slurm -- "$forge"
assert_contains "$OUT" "h1: mine"
assert_contains "$OUT" "h2: h2 real"
assert_contains "$OUT" "h3: h3 real"
assert_not_contains "$OUT" "h2: FORGED"
assert_not_contains "$OUT" "h2: mine"

assert_status 0 salloc -N3 --quiet -- "$NETPROF_BIN" check --slurm
assert_contains "$OUT" "h2"
assert_not_contains "$OUT" "MISSING"

assert_status 0 salloc -N3 --quiet -- "$NETPROF_BIN" collect --slurm \
    --config "$LAB_INVENTORY" --output "$T/c.jsonl"
assert_eq 6 "$(jq -s 'map(select(.ok)) | length' "$T/c.jsonl")"
assert_eq "srun --jobid=" "$(jq -r 'select(.source == "h2") | .command' "$T/c.jsonl" | head -1 | cut -c1-13)"
assert_eq "h1 h3" "$(jq -r 'select(.source == "h2") | .target' "$T/c.jsonl" | sort | xargs)"

# --transport ssh: the allocation is only the inventory; the commands
# reach each node's sshd at its NodeAddr (the lab's keys from --config).
assert_status 0 salloc -N2 -w h2,h3 --quiet -- "$NETPROF_BIN" exec --slurm \
    --transport ssh --config "$LAB_INVENTORY" -- 'echo "$SSH_CONNECTION" | cut -d" " -f3'
assert_eq "h2: 198.18.$LAB_SUBNET.3
h3: 198.18.$LAB_SUBNET.4" "$(sort <<<"$OUT")"

# sbatch of the example script: the batch step runs on the first node and
# netprof starts its steps from there. The test waits for the job itself:
# sbatch --wait polls 2, 8, then 32 s apart (a job of 11 s was seen done
# 42 s after its submission).
job=$(sbatch --parsable -N3 -o "$T/batch.out" \
    --export=ALL,NETPROF="$NETPROF_BIN" \
    "$NETPROF_SRC/examples/slurm-collect.sbatch" "$LAB_INVENTORY") ||
    fail "sbatch of examples/slurm-collect.sbatch failed"
job_state() {
	scontrol -o show job "$job" | grep -oE '(JobState| ExitCode)=[^ ]+' | sed 's/^ //' | xargs
}
job_ended() {
	! grep -qE '^JobState=(PENDING|CONFIGURING|RUNNING|COMPLETING) ' <<<"$(job_state)"
}
wait_for 300 job_ended || fail "job $job of examples/slurm-collect.sbatch still runs after 300 s"
assert_eq "JobState=COMPLETED ExitCode=0:0" "$(job_state)" \
    "examples/slurm-collect.sbatch's job: $(cat "$T/batch.out")"
assert_eq 6 "$(jq -s 'map(select(.ok)) | length' "$T/netprof-$job.jsonl")"
assert_file_contains "$T/netprof-$job.html" "<html"

# --- nothing left behind ------------------------------------------------
# Steps of netprof still known to Slurm, and step processes on the nodes.
steps_left() {
	squeue -h --steps -o '%i %j' | grep ' netprof-' || true
}
procs_left() {
	local p
	for p in $(lab pids); do
		case $(cat "/proc/$p/comm" 2>/dev/null) in
		sleep) echo "$p" ;;
		esac
	done
}
wait_gone() {
	local i
	for (( i = 0; i < 150; i++ )); do
		[ -z "$(steps_left)$(procs_left)" ] && return 0
		sleep 0.1
	done
	return 1
}

alloc=$(salloc -N3 --no-shell 2>&1 | sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
[ -n "$alloc" ] || fail "salloc --no-shell gave no job"
at_exit "scancel $alloc"

# --- a node drained in the running job --------------------------------
# Slurm still starts steps there; netprof does not, and its pairs fail
# with Slurm's reason while the others complete.
"$NETPROF_SRC/tests/lab/slurm.sh" drain --name "$LAB_NAME" h2 "netprof test: cable"
assert_status 1 "$NETPROF_BIN" collect --slurm="$alloc" --output "$T/d.jsonl"
assert_eq "h1>h2 true
h1>h3 true
h2>h1 false
h2>h3 false
h3>h1 true
h3>h2 true" "$(jq -r '"\(.source)>\(.target) \(.ok)"' "$T/d.jsonl" | sort)"
assert_contains "$(jq -r 'select(.source == "h2") | .error' "$T/d.jsonl" | head -1)" \
    "h2: Slurm node is MIXED+DRAIN (reason: netprof test: cable"
"$NETPROF_SRC/tests/lab/slurm.sh" resume --name "$LAB_NAME" h2

# The most netprof steps at once while CMD runs (sampled every 0.1 s).
most_steps() {
	local pid most=0 n
	"$@" >"$T/most.out" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		n=$(steps_left | wc -l)
		(( n > most )) && most=$n
		sleep 0.1
	done
	wait $pid || true
	echo "$most"
}

# A sweep's fan-outs are one step, a task per node, its records those of
# a step each; --slurm-steps each gives a step per node again.
assert_eq 1 "$(most_steps "$NETPROF_BIN" collect --slurm="$alloc" \
    --ping-count 3 --output "$T/one.jsonl")" "netprof steps during a sweep"
assert_eq "6 fanout" "$(jq -s -r '"\(map(select(.ok)) | length) \(.[0].mode)"' "$T/one.jsonl")"
assert_eq 3 "$(most_steps "$NETPROF_BIN" collect --slurm="$alloc" \
    --slurm-steps each --ping-count 3 --output "$T/each.jsonl")" \
    "netprof steps during a sweep with --slurm-steps each"
assert_eq 6 "$(jq -s 'map(select(.ok)) | length' "$T/each.jsonl")"
assert_status 2 "$NETPROF_BIN" exec --config "$LAB_INVENTORY" --slurm-steps each -- true
assert_contains "$OUT" "--slurm-steps is for --slurm's nodes"

# exec's command on every node: one step; each node's output, status and
# error its own, whole (srun cuts lines at 1024 bytes: the tasks' lines
# are not cut).
rc=0
"$NETPROF_BIN" exec --slurm="$alloc" -- \
    'h=$(hostname); head -c 3000 /dev/zero | tr "\\0" x; echo; echo "to stderr $h" >&2; printf "no newline"; [ $h != h2 ] || exit 3' \
    >"$T/long.out" 2>"$T/long.err" || rc=$?
assert_eq 3 "$rc" "exec's status: h2's"
for h in h1 h2 h3; do
	assert_eq "3000" "$(sed -n "s/^$h: \(x*\)\$/\1/p" "$T/long.out" | awk '{print length($0)}')" "$h's long line"
	assert_file_contains "$T/long.out" "$h: no newline"
	assert_file_contains "$T/long.err" "$h: to stderr $h"
done

# One node's command cancelled (engine_cancel() of its job alone, through
# the engine's test driver): its task is told to kill it while the step
# goes on, and the others end 2 s later with all of their output.
DRIVER=${ENGINE_DRIVER:-$(dirname "$NETPROF_BIN")/tests/engine_driver}
[ -x "$DRIVER" ] || fail "no engine_driver at $DRIVER"
assert_status 0 "$DRIVER" --slurm "$alloc" --batch --host h2 --cancel-after 1 -- \
    'echo "$(hostname) start"; if [ "$(hostname)" = h2 ]; then exec sleep 300; fi; sleep 3; echo "$(hostname) end"'
assert_contains "$OUT" "job 1: host=h2 error=-15 exit=-1 out=9 err=0"
assert_contains "$OUT" "job 0: host=h1 error=0 exit=0 out=16 err=0"
assert_contains "$OUT" "job 2: host=h3 error=0 exit=0 out=16 err=0"
assert_contains "$OUT" "job 0: stdout: h1 start
h1 end"
assert_contains "$OUT" "done 3 of 3"
wait_gone || fail "after one task's cancel: steps $(steps_left | xargs), processes $(procs_left | xargs)"

# One node's timeout, the others done: its command killed, theirs kept.
assert_status 255 "$NETPROF_BIN" exec --slurm="$alloc" --timeout 2 -- \
    'if [ "$(hostname)" = h2 ]; then exec sleep 300; fi; echo "$(hostname) ok"'
assert_contains "$OUT" "h2: command timed out after 2 s"
assert_contains "$OUT" "h1: h1 ok"
assert_contains "$OUT" "h3: h3 ok"
wait_gone || fail "after one node's timeout: steps $(steps_left | xargs), processes $(procs_left | xargs)"

# One node's task killed outright (its processes, as a node's crash would
# end them): that node's command fails with what srun said; the others
# complete.
"$NETPROF_BIN" exec --slurm="$alloc" -- \
    'if [ "$(hostname)" = h2 ]; then exec sleep 300; fi; sleep 4; echo "$(hostname) ok"' \
    >"$T/crash.out" 2>&1 &
pid=$!
for (( i = 0; i < 200; i++ )); do
	[ "$(procs_left | wc -l)" = 3 ] && break
	sleep 0.1
done
# a process may end between the listing and the kill: not a failure
for p in $(ip netns pids "np-$LAB_NAME-h2"); do
	{ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -q '^SLURM_STEP_ID=' &&
	    { kill -KILL "$p" 2>/dev/null || true; }
done
rc=0
wait $pid || rc=$?
assert_eq 255 "$rc" "exit status with h2's task killed: $(cat "$T/crash.out")"
assert_file_contains "$T/crash.out" "h1: h1 ok"
assert_file_contains "$T/crash.out" "h3: h3 ok"
grep -qE "^h2: the job step netprof-$pid-[0-9a-f]{8}-1 ended before the command on the node did: srun: error: h2: task 1: Killed$" "$T/crash.out" ||
    fail "h2's task killed: $(cat "$T/crash.out")"
wait_gone || fail "after one task killed: steps $(steps_left | xargs), processes $(procs_left | xargs)"

# Ctrl-C: the step (a task per node) is ended whole: srun gets SIGTERM,
# Slurm ends the step.
"$NETPROF_BIN" exec --slurm="$alloc" -- sleep 300 >"$T/int.out" 2>&1 &
pid=$!
for (( i = 0; i < 200; i++ )); do
	[ "$(steps_left | wc -l)" = 1 ] && [ "$(procs_left | wc -l)" = 3 ] && break
	sleep 0.1
done
assert_eq 1 "$(steps_left | wc -l)"
assert_eq 3 "$(procs_left | wc -l)"
kill -INT $pid
rc=0
wait $pid || rc=$?
assert_eq 130 "$rc"
wait_gone || fail "after Ctrl-C: steps $(steps_left | xargs), processes $(procs_left | xargs)"

# A timeout: the same kill path, the job reported as timed out.
assert_status 255 "$NETPROF_BIN" exec --slurm="$alloc" --timeout 2 -- sleep 300
assert_contains "$OUT" "timed out after 2 s"
wait_gone || fail "after --timeout: steps $(steps_left | xargs), processes $(procs_left | xargs)"

# The kill path's last resort: a srun that does not end on SIGTERM
# (stopped here, like a srun that cannot reach slurmctld), over a step
# that ignores SIGTERM. (A srun that runs turns SIGTERM into SIGKILL of
# its step, "forcing job termination": a step's own trap does not keep it.)
# 2 s after the SIGTERM srun is killed, which leaves its step running:
# netprof then cancels the step (scancel), and the run ends only once
# that has. The step is one process (the sleep, SIGTERM ignored from its
# shell): proctrack/linuxproc finds a step's processes by their parents,
# and a shell's child that outlived its shell once escaped Slurm's
# SIGKILL on a loaded machine, which is Slurm's leak, not netprof's
# (proctrack/cgroup, test_slurm_bench, has no such gap).
"$NETPROF_BIN" -v exec --slurm="$alloc" --hosts h1 --timeout 2 -- \
    'trap "" TERM; exec sleep 300' >"$T/stuck.out" 2>&1 &
pid=$!
for (( i = 0; i < 200; i++ )); do
	[ "$(steps_left | wc -l)" = 1 ] && [ "$(procs_left | wc -l)" = 1 ] && break
	sleep 0.1
done
assert_eq 1 "$(steps_left | wc -l)"
srun_pid=$(ps -o pid= --ppid $pid | xargs)
assert_eq srun "$(cat "/proc/$srun_pid/comm" 2>/dev/null)" "netprof's child is srun"
kill -STOP "$srun_pid"
rc=0
wait $pid || rc=$?
assert_eq 255 "$rc" "exit status of the stuck step's exec: $(cat "$T/stuck.out")"
wait_gone || fail "after a srun stuck on SIGTERM: steps $(steps_left | xargs), processes $(procs_left | xargs)"
assert_file_contains "$T/stuck.out" "timed out after 2 s"
grep -qE "cancelling step netprof-$pid-[0-9a-f]{8}-1 of job $alloc \(scancel\)" "$T/stuck.out" ||
    fail "no scancel of the step named by PID, tag and number: $(grep cancelling "$T/stuck.out")"

# Two netprof processes of one PID on one job (PID namespaces here, two
# login nodes elsewhere): the stuck one's scancel cancels its own step,
# not the other's, whose name has another tag.
unshare --pid --fork "$NETPROF_BIN" exec --slurm="$alloc" --hosts h2 --timeout 60 -- \
    'sleep 8' >"$T/other.out" 2>&1 &
other=$!
for (( i = 0; i < 200; i++ )); do
	[ "$(steps_left | wc -l)" = 1 ] && break
	sleep 0.1
done
assert_eq 1 "$(steps_left | wc -l)" "the other netprof's step runs"
unshare --pid --fork "$NETPROF_BIN" -v exec --slurm="$alloc" --hosts h1 --timeout 2 -- \
    'trap "" TERM; exec sleep 300' >"$T/stuck2.out" 2>&1 &
pid=$!
for (( i = 0; i < 200; i++ )); do
	[ "$(steps_left | wc -l)" = 2 ] && break
	sleep 0.1
done
assert_eq 2 "$(steps_left | wc -l)"
assert_eq 2 "$(steps_left | awk '{ sub(/-[0-9]+$/, "", $2); print $2 }' | sort -u | wc -l)" \
    "the two steps' names differ though both netprofs are PID 1"
np=$(ps -o pid= --ppid $pid | xargs)
srun_pid=$(ps -o pid= --ppid "$np" | xargs)
assert_eq srun "$(cat "/proc/$srun_pid/comm" 2>/dev/null)" "the second netprof's child is srun"
kill -STOP "$srun_pid"
rc=0
wait $pid || rc=$?
assert_eq 255 "$rc" "exit status of the stuck step's exec: $(cat "$T/stuck2.out")"
assert_file_contains "$T/stuck2.out" "(scancel)"
rc=0
wait $other || rc=$?
assert_eq 0 "$rc" "the other netprof's step ran to its end: $(cat "$T/other.out")"
wait_gone || fail "after two netprofs of one PID: steps $(steps_left | xargs), processes $(procs_left | xargs)"

test_pass
