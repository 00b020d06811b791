#!/bin/bash
# Benchmark of `netprof plan` at N machines (default 1,000: 999,000 ordered
# pairs): prints the time of the text plan and of --json, with --iperf.
# With OLD_BIN set, the same for that binary (an earlier build) to compare.
# Prints figures; asserts nothing.
# Usage: tests/perf/plan.sh [NETPROF_BIN] [MACHINES]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/perf/build.sh"
bin=$(bench_binary "${1:-${NETPROF_BIN:-}}") || exit 1
n=${2:-1000}
work=$(bench_workdir plan-bench)
python3 - "$n" >"$work/machines.json" <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps({"machines": [{"name": "m%d" % i,
    "address": "198.18.%d.%d" % (i // 250, i % 250 + 1)} for i in range(n)]}))
PY

measure() {	# LABEL BIN ARGS...
	local label=$1 b=$2 t0 t1
	shift 2
	t0=$(now)
	"$b" plan --config "$work/machines.json" --iperf "$@" >"$work/out" ||
	    { echo "$label: failed"; return; }
	t1=$(now)
	echo "$t0 $t1 $(wc -l <"$work/out")" | awk -v l="$label" \
	    '{ printf "%-28s %7.2f s  (%d lines)\n", l, $2 - $1, $3 }'
}
echo "plan, $n machines, $((n * (n - 1))) ordered pairs:"
measure "plan" "$bin"
measure "plan --json" "$bin" --json
if [ -n "${OLD_BIN:-}" ]; then
	measure "plan (OLD_BIN)" "$OLD_BIN"
	measure "plan --json (OLD_BIN)" "$OLD_BIN" --json
fi
