#!/usr/bin/env bash
# bench over the slurm transport, on a real Slurm cluster whose slurmd
# track a step's processes in a cgroup (proctrack/cgroup, as most
# production clusters: what a step leaves behind ends with it), inside a
# real allocation (salloc): every phase ok on every node, every probe ok,
# each node in a job step of its own that lives as long as it, and nothing
# left afterwards (no step in squeue --steps, no node process, no run
# directory). Ctrl-C mid-sweep: the teardown still runs, nothing is left.
# check --for bench reports per node: ready, otela missing on one, a
# drained one with Slurm's reason.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd slurmctld slurmd munged srun salloc squeue scontrol jq node
require_otela
proctrack=cgroup
[ -w /sys/fs/cgroup/freezer/cgroup.procs ] || {
	# the test then shows less: a node left by a short step lives on
	echo "no writable cgroup v1 freezer: the lab's Slurm runs proctrack/linuxproc" >&2
	proctrack=linuxproc
}
lab_up tslurmb 3 --slurm-proctrack "$proctrack"
# shellcheck disable=SC1091
. "$LAB_DIR/slurm/slurm.env"
assert_eq "proctrack/$proctrack" "$(scontrol show config | awk '$1 == "ProctrackType" { print $3 }')"
T=$NETPROF_TEST_TMP/slurmbench
rm -rf "$T" && mkdir -p "$T"
cd "$T"
unset SLURM_JOB_ID SSH_AUTH_SOCK
inv=$T/bench.json
jq --arg p "$(otela_setup)" '.remote_setup = $p' "$LAB_INVENTORY" >"$inv"
small=(--latency-count 3 --throughput-count 1 --throughput-bytes 1048576)

steps_left() {
	squeue -h --steps -o '%i %j' | grep ' netprof-' || true
}
# Processes of run $1's nodes anywhere in the lab (their argv names the
# run's directory).
nodes_left() {
	local p
	for p in $(lab pids); do
		# read whole, then matched: a pipe into grep -q can fail
		# under pipefail when grep stops first (SIGPIPE)
		grep -q "/tmp/otela-bench-$1-" <<<"$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" &&
		    echo "$p"
	done
	return 0
}
assert_nothing_left() {
	local i
	for (( i = 0; i < 100; i++ )); do
		[ -z "$(steps_left)$(nodes_left "$1")" ] && break
		sleep 0.1
	done
	assert_eq "" "$(steps_left)" "steps left after $2"
	assert_eq "" "$(nodes_left "$1")" "node processes left after $2"
	assert_eq "" "$(ls -d /tmp/otela-bench-"$1"-* 2>/dev/null || true)" \
	    "run directories left after $2"
}

# --- check --for bench, per node ----------------------------------------
assert_status 0 salloc -N3 --quiet -- "$NETPROF_BIN" check --slurm --for bench \
    --config "$inv" --json
assert_eq "h1 true ok n/a n/a
h2 true ok n/a n/a
h3 true ok n/a n/a" "$(jq -r '.hosts[] | "\(.name) \(.ready) \(.connect) \(.host_key) \(.auth)"' <<<"$OUT")"
# h2 without otela on its PATH (its own remote_setup), h3 drained: each
# node its own row and its own advice.
jq '.machines = [{name: "h2", remote_setup: "true"}]' "$inv" >"$T/h2bare.json"
alloc=$(salloc -N3 --no-shell 2>&1 | sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
[ -n "$alloc" ] || fail "salloc --no-shell gave no job"
at_exit "scancel $alloc"
"$NETPROF_SRC/tests/lab/slurm.sh" drain --name "$LAB_NAME" h3 "netprof test: fan"
assert_status 1 "$NETPROF_BIN" check --slurm "$alloc" --for bench --config "$T/h2bare.json"
"$NETPROF_SRC/tests/lab/slurm.sh" resume --name "$LAB_NAME" h3
assert_eq "h1 ok n/a n/a yes yes yes
h2 ok n/a n/a yes MISSING NO
h3 FAIL n/a n/a - - NO" "$(sed -E 's/job step on [^ ]+ \(job [0-9]+\) //' <<<"$OUT" |
    awk '$1 ~ /^h[0-9]$/ && NF == 11 { print $1, $2, $3, $4, $6, $9, $11 }')" \
    "check: per node CONNECT HOSTKEY AUTH bash otela READY"
assert_contains "$OUT" "1 of 3 hosts ready"
assert_contains "$OUT" "h2: otela is not on PATH"
assert_contains "$OUT" "h3: Slurm node is"
assert_contains "$OUT" "DRAIN (reason: netprof test: fan"
scancel "$alloc"

# --- a whole run inside salloc ----------------------------------------------
assert_status 0 salloc -N3 --quiet -- "$NETPROF_BIN" bench --slurm --config "$inv" \
    --output "$T/b1" --run-id sb1 --baseline "${small[@]}"
assert_not_contains "$OUT" "still runs after the teardown" "each node's step ended with its node"
rec=$T/b1/measurements.jsonl
assert_eq 18 "$(jq -r 'select(.kind != "ping" and .ok and .error == null) | [.source, .target, .kind] | @tsv' "$rec" | sort -u | wc -l)" \
    "6 ordered pairs x 3 kinds, each once and ok"
assert_eq 6 "$(jq -r 'select(.kind == "ping" and .ok) | [.source, .target] | @tsv' "$rec" | sort -u | wc -l)" \
    "--baseline: a ping per ordered pair"
assert_eq 0 "$(jq -r 'select(.ok | not)' "$rec" | wc -l)" "no failed record"
assert_eq "srun --jobid=" "$(jq -r 'select(.kind == "latency") | .command' "$rec" | head -1 | cut -c1-13)"
run=$T/b1/run.json
assert_eq '{"failed":0,"ok":18}' "$(jq -c .totals "$run")"
assert_eq "ok" "$(jq -r '[.machines[].phases[]] | unique | join(",")' "$run")" \
    "every node ok in every phase"
assert_eq "baseline_s configure_s converge_s discover_s init_s path_s punch_s push_s start_s sweep_s teardown_s" \
    "$(jq -r '.phases | keys | join(" ")' "$run")"
assert_eq "true true true" "$(jq -r '[.convergence[].complete] | map(tostring) | join(" ")' "$run")"
# the held steps' nodes too
assert_started_in_turn "$run"
assert_nothing_left sb1 "a run"

# --- Ctrl-C mid-sweep -----------------------------------------------------
# Each node runs in a step of its own for the whole run: its environment
# names the step, which squeue still lists during the sweep (a node left
# by a step that ended would name a step that is gone, and on
# proctrack/cgroup would be gone with it).
alloc=$(salloc -N3 --no-shell 2>&1 | sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
[ -n "$alloc" ] || fail "salloc --no-shell gave no job"
at_exit "scancel $alloc"
out=$T/int
"$NETPROF_BIN" bench --slurm "$alloc" --config "$inv" --output "$out" --run-id sb2 \
    --latency-count 100 --throughput-count 2 --throughput-bytes 4194304 >"$T/int.log" 2>&1 &
pid=$!
for (( i = 0; i < 1200; i++ )); do
	[ -s "$out/measurements.jsonl" ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
[ -s "$out/measurements.jsonl" ] || fail "no record within 120 s: $(cat "$T/int.log")"
for h in h1 h2 h3; do
	p=$(jq -r ".machines[] | select(.name == \"$h\") | .pid" "$out/run.json")
	step=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^SLURM_STEP_ID=//p')
	[ -n "$step" ] || fail "$h: node $p runs in no job step"
	assert_eq "$alloc.$step $h" "$(squeue -h --steps -o '%i %N' | awk -v s="$alloc.$step" '$1 == s')" \
	    "$h: the node's step runs on its node"
done
kill -INT $pid
rc=0
wait $pid || rc=$?
assert_eq 130 "$rc" "exit status after Ctrl-C: $(cat "$T/int.log")"
assert_eq "true" "$(jq -r .interrupted "$out/run.json")"
n=$(wc -l <"$out/measurements.jsonl")
[ "$n" -lt 18 ] || fail "the sweep finished before Ctrl-C ($n records)"
assert_eq "ok ok ok" "$(jq -r '[.machines[].phases.teardown] | join(" ")' "$out/run.json")" \
    "the teardown ran on every node"
assert_not_contains "$(cat "$T/int.log")" "still runs after the teardown"
assert_nothing_left sb2 "Ctrl-C mid-sweep"
test_pass
