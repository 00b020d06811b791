#!/usr/bin/env bash
# What a command costs on each transport inside a Slurm allocation: N
# `true` commands per node, one after another on each node, every node of a
# lab's Slurm cluster in parallel, through netprof exec --repeat N
#   (a) --slurm (the slurm transport: a job step, srun, per command),
#   (b) --slurm --transport ssh (one SSH session per node, a channel each).
# Prints commands/s and latency percentiles for each, and the machine's
# load. A script that prints figures, not a timed test. Needs root.
# usage: tests/perf/slurm.sh [NETPROF_BIN] [HOSTS] [COMMANDS_PER_HOST]
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
BIN=$(bench_binary "${1:-}") || exit 1
BIN=$(realpath "$BIN")
HOSTS=${2:-4}
N=${3:-20}
LAB=$SRC/tests/lab/lab.sh
NAME=slurmbn
DIR=$(mktemp -d "${TMPDIR:-/tmp}/netprof-bench.XXXXXX")

[ "$(id -u)" -eq 0 ] || { echo "slurm.sh: needs root (the lab)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "slurm.sh: no netprof binary at $BIN" >&2; exit 2; }
cleanup() {
	"$LAB" down --name $NAME --dir "$DIR/lab" >/dev/null 2>&1 || true
	rm -rf "$DIR"
}
trap cleanup EXIT
"$LAB" up --name $NAME --hosts "$HOSTS" --subnet 238 --dir "$DIR/lab" --slurm >"$DIR/lab-up.log" 2>&1 ||
    { cat "$DIR/lab-up.log" >&2; exit 1; }
# shellcheck disable=SC1091
. "$DIR/lab/slurm/slurm.env"
cd "$DIR"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo "slurm transport ($HOSTS nodes, $N steps each, srun per command):"
salloc -N "$HOSTS" --quiet -- "$BIN" exec --slurm --repeat "$N" -- true 2>&1 | tail -1
echo "ssh transport on the same allocation (one session per node):"
salloc -N "$HOSTS" --quiet -- "$BIN" exec --slurm --transport ssh \
    --config "$DIR/lab/machines.json" --repeat "$N" -- true 2>&1 | tail -1
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
