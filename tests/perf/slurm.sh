#!/usr/bin/env bash
# What netprof's commands cost on the lab's real Slurm cluster. Needs root.
#
# tests/perf/slurm.sh [NETPROF_BIN] [HOSTS] [COMMANDS_PER_HOST]
#   A command's cost on each transport inside an allocation: N `true`
#   commands per node, one after another on each node, every node in
#   parallel, through netprof exec --repeat N
#     (a) --slurm (the slurm transport: a job step, srun, per command),
#     (b) --slurm --transport ssh (one SSH session per node, a channel each).
#   Prints commands/s and latency percentiles for each.
#
# tests/perf/slurm.sh --sweep [NETPROF_BIN] [SIZES...]   (default 8 32 64)
#   A ping sweep (collect, fan-out, ping_count 5 at 1 s: one probe 4 s)
#   over every node of an allocation of SIZE nodes, as one job step with a
#   task per node (--slurm-steps batch, the default) and as a step per
#   node (--slurm-steps each), ROUNDS times each in turn (env ROUNDS,
#   default 3): the wall, the most srun processes netprof ran at once on
#   this machine (sampled every 0.05 s), slurmctld's CPU-seconds, netprof's
#   own and the machine's, the pairs that failed.
#
# Prints figures and the machine's load, not a timed test.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
SWEEP=0
if [ "${1:-}" = --sweep ]; then
	SWEEP=1
	shift
fi
BIN=$(bench_binary "${1:-}") || exit 1
BIN=$(realpath "$BIN")
[ $# -gt 0 ] && shift
LAB=$SRC/tests/lab/lab.sh
NAME=slurmbn
DIR=$(mktemp -d "${TMPDIR:-/tmp}/netprof-bench.XXXXXX")

[ "$(id -u)" -eq 0 ] || { echo "slurm.sh: needs root (the lab)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "slurm.sh: no netprof binary at $BIN" >&2; exit 2; }
cleanup() {
	[ -z "${ALLOC:-}" ] || scancel "$ALLOC" 2>/dev/null || true
	"$LAB" down --name $NAME --dir "$DIR/lab" >/dev/null 2>&1 || true
}
trap 'cleanup; rm -rf "$DIR"' EXIT

lab_slurm_up() {
	cleanup
	"$LAB" up --name $NAME --hosts "$1" --subnet 238 --dir "$DIR/lab" --slurm \
	    >"$DIR/lab-up.log" 2>&1 || { cat "$DIR/lab-up.log" >&2; exit 1; }
	# shellcheck disable=SC1091
	. "$DIR/lab/slurm/slurm.env"
}

if [ $SWEEP = 0 ]; then
	HOSTS=${1:-4}
	N=${2:-20}
	lab_slurm_up "$HOSTS"
	cd "$DIR"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
	echo "slurm transport ($HOSTS nodes, $N steps each, srun per command):"
	salloc -N "$HOSTS" --quiet -- "$BIN" exec --slurm --repeat "$N" -- true 2>&1 | tail -1
	echo "ssh transport on the same allocation (one session per node):"
	salloc -N "$HOSTS" --quiet -- "$BIN" exec --slurm --transport ssh \
	    --config "$DIR/lab/machines.json" --repeat "$N" -- true 2>&1 | tail -1
	echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi

SIZES=${*:-8 32 64}
ROUNDS=${ROUNDS:-3}
PROBE_S=4
for c in jq bc /usr/bin/time; do
	command -v "$c" >/dev/null || { echo "slurm.sh: needs $c" >&2; exit 2; }
done

# CPU-seconds a process has used (utime + stime), or 0 when it is gone.
cpu_of() {
	awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f\n", ($14 + $15) / hz}' \
	    "/proc/$1/stat" 2>/dev/null || echo 0
}

# sweep MODE LABEL: one collect over the allocation; sets WALL, SRUNS (the
# most srun children of netprof at once), CTLD (slurmctld's CPU-s), OWN
# (netprof's CPU-s), CPU_S and BUSY (the machine's), FAILED.
sweep() {
	local mode=$1 out=$DIR/$2.jsonl t0 c0 k0 pid n most=0
	rm -f "$out"
	k0=$(cpu_of "$CTLD_PID")
	c0=$(cpu_jiffies)
	t0=$(now)
	/usr/bin/time -f '%U %S' -o "$DIR/$2.cpu" "$BIN" -q collect \
	    --slurm="$ALLOC" --config "$DIR/lab/machines.json" \
	    --slurm-steps "$mode" --ping-count 5 --output "$out" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		np=$(pgrep -P $pid -x netprof | head -1 || true)
		n=0
		[ -z "$np" ] || n=$(pgrep -c -P "$np" -x srun || true)
		(( n > most )) && most=$n
		sleep 0.05
	done
	wait $pid || true
	WALL=$(echo "$(now) - $t0" | bc -l)
	read -r BUSY CPU_S < <(cpu_between "$c0" "$(cpu_jiffies)")
	CTLD=$(echo "$(cpu_of "$CTLD_PID") - $k0" | bc -l)
	OWN=$(awk 'END {printf "%.2f", $1 + $2}' "$DIR/$2.cpu")
	SRUNS=$most
	FAILED=$(jq -s '[.[] | select(.ok | not)] | length' "$out")
}

printf 'netprof ping sweep on Slurm: one step (a task per node) against a step per node; ping_count 5 (one probe %d s), %d rounds each\n' \
    $PROBE_S "$ROUNDS"
for n in $SIZES; do
	t0=$(now)
	lab_slurm_up "$n"
	CTLD_PID=$(cat "$DIR/lab/slurm/ctld/slurmctld.pid")
	ALLOC=$(salloc -N "$n" --no-shell 2>&1 |
	    sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
	[ -n "$ALLOC" ] || { echo "slurm.sh: salloc -N $n gave no job" >&2; exit 1; }
	printf '\nN=%d nodes, %d pairs (lab and Slurm up in %.0f s); load before: %s\n' \
	    "$n" $(( n * (n - 1) )) "$(echo "$(now) - $t0" | bc -l)" \
	    "$(cut -d' ' -f1-3 /proc/loadavg)"
	for (( r = 1; r <= ROUNDS; r++ )); do
		modes="batch each"
		(( r % 2 == 0 )) && modes="each batch"
		for mode in $modes; do
			sweep "$mode" "$mode-$n-$r"
			printf '  %-5s round %d: wall %6.2f s (%.2f x one probe)  srun at once %3d  slurmctld %5.2f CPU-s  netprof %5.2f CPU-s  machine %6.1f CPU-s, cores %3s%% busy  failed pairs %d\n' \
			    "$mode" "$r" "$WALL" "$(echo "$WALL / $PROBE_S" | bc -l)" \
			    "$SRUNS" "$CTLD" "$OWN" "$CPU_S" "$BUSY" "$FAILED"
		done
	done
	printf '  load after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
	scancel "$ALLOC"
	ALLOC=
done
