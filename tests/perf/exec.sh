#!/usr/bin/env bash
# The SSH path's speed: 100 `true` commands per host, one after another on
# each host, all hosts of an 8-host lab in parallel, through
#   (a) netprof exec --repeat 100 (one session per host, a channel each),
#   (b) OpenSSH with a new connection per command,
#   (c) OpenSSH with ControlMaster/ControlPersist (one master per host).
# Prints commands/s for each, the ratios a/b and a/c, and netprof's peak
# RSS. A script that prints figures, not a timed test. Needs root.
# usage: tests/perf/exec.sh [NETPROF_BIN] [HOSTS] [COMMANDS_PER_HOST]
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
BIN=$(bench_binary "${1:-}") || exit 1
HOSTS=${2:-8}
N=${3:-100}
LAB=$SRC/tests/lab/lab.sh
NAME=execbn
DIR=$(mktemp -d "${TMPDIR:-/tmp}/netprof-bench.XXXXXX")
CP=$DIR/cm

[ "$(id -u)" -eq 0 ] || { echo "exec.sh: needs root (the lab)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "exec.sh: no netprof binary at $BIN" >&2; exit 2; }
cleanup() {
	local h
	for h in $(seq 1 "$HOSTS"); do
		ssh -F "$DIR/lab/ssh_config.openssh" -o ControlPath="$CP/%h" \
		    -O exit "h$h" 2>/dev/null || true
	done
	"$LAB" down --name $NAME --dir "$DIR/lab" >/dev/null 2>&1 || true
	rm -rf "$DIR"
}
trap cleanup EXIT
"$LAB" up --name $NAME --hosts "$HOSTS" --subnet 247 --dir "$DIR/lab" >/dev/null
mkdir -p "$CP"
CFG=$DIR/lab/ssh_config.openssh
INV=$DIR/lab/machines.json
TOTAL=$((HOSTS * N))

rate() { echo "scale=1; $TOTAL / ($2 - $1)" | bc; }

# (a) netprof; peak RSS from GNU time, else VmHWM is not reachable: skip
t0=$(now)
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%M' -o "$DIR/rss" "$BIN" exec --config "$INV" \
	    --repeat "$N" -- true >"$DIR/a.out"
	rss_kb=$(tail -1 "$DIR/rss")
else
	"$BIN" exec --config "$INV" --repeat "$N" -- true >"$DIR/a.out"
	rss_kb="?"
fi
t1=$(now)
a=$(rate "$t0" "$t1")
echo "netprof:      $(cat "$DIR/a.out")"

# (b) a new OpenSSH connection per command
loop_ssh() {
	local h=$1 i
	shift
	for (( i = 0; i < N; i++ )); do
		ssh -F "$CFG" "$@" "$h" true
	done
}
t0=$(now)
for h in $(seq 1 "$HOSTS"); do loop_ssh "h$h" & done
wait
t1=$(now)
b=$(rate "$t0" "$t1")

# (c) OpenSSH ControlMaster: the masters are started before the clock
CM=(-o ControlMaster=auto -o "ControlPath=$CP/%h" -o ControlPersist=60)
for h in $(seq 1 "$HOSTS"); do ssh -F "$CFG" "${CM[@]}" "h$h" true; done
t0=$(now)
for h in $(seq 1 "$HOSTS"); do loop_ssh "h$h" "${CM[@]}" & done
wait
t1=$(now)
c=$(rate "$t0" "$t1")

printf '%-34s %8s commands/s\n' "(a) netprof exec --repeat $N" "$a"
printf '%-34s %8s commands/s\n' "(b) ssh, new connection each" "$b"
printf '%-34s %8s commands/s\n' "(c) ssh, ControlMaster" "$c"
printf 'ratio a/b %s (target >= 20), a/c %s (target >= 2)\n' \
    "$(echo "scale=1; $a / $b" | bc)" "$(echo "scale=2; $a / $c" | bc)"
printf 'netprof peak RSS: %s kB (target <= 15360)\n' "$rss_kb"
