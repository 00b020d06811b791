#!/usr/bin/env bash
# Fuzz netprof's parsers of outside input with libFuzzer: build the targets
# (clang, -fsanitize=fuzzer,address,undefined) in build/fuzz, then run each
# for SECONDS on its corpus (tests/fuzz/corpus/TARGET, new inputs kept in
# build/fuzz/work/TARGET) and its seed fixtures. Nice 19, at most JOBS
# targets at once (default 1). A finding (crash, leak, timeout, UB) stops
# that target; its input is in build/fuzz/findings/TARGET. Prints per target
# the executions, coverage (cov: edges, ft: features) and the finding count.
#
#   tests/fuzz/run.sh SECONDS [--jobs N] [TARGET...]   (default: all targets)
#   tests/fuzz/run.sh --merge TARGET...   keep the new inputs that add
#                                         coverage in tests/fuzz/corpus
set -uo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${NETPROF_FUZZ_BUILD:-$src/build/fuzz}
fix=$src/tests/fixtures
jobs=1
merge=0
seconds=
targets=()
while [ $# -gt 0 ]; do
	case $1 in
	--jobs) jobs=$2; shift 2 ;;
	--merge) merge=1; shift ;;
	-h|--help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
	[0-9]*) seconds=$1; shift ;;
	*) targets+=("$1"); shift ;;
	esac
done
[ -n "$seconds" ] || [ "$merge" = 1 ] ||
    { echo "usage: tests/fuzz/run.sh SECONDS [--jobs N] [TARGET...]" >&2; exit 2; }
if [ ${#targets[@]} -eq 0 ]; then
	for f in "$src"/tests/fuzz/fuzz_*.c; do
		t=$(basename "$f" .c)
		targets+=("${t#fuzz_}")
	done
fi

# The seed directories of a target, as in tests/fuzz/ctest.cmake.
seeds() {
	awk -F'"' -v t="$1" '$2 ~ "^" t "[|]" { sub("^[^|]*[|]", "", $2); print $2 }' \
	    "$src/tests/fuzz/ctest.cmake" |
	    sed "s|\${FUZZ_FIX}|$fix|g; s|\${FUZZ_DIR}|$src/tests/fuzz|g; s|\${PROJECT_SOURCE_DIR}|$src|g" | tr ',' ' '
}

CC=clang cmake -S "$src" -B "$build" -DNETPROF_TESTS=ON -DNETPROF_FUZZ=ON \
    -DNETPROF_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null ||
    { echo "fuzz: configure failed (clang and libclang-rt-dev: tests/install-deps.sh test)" >&2; exit 1; }
for t in "${targets[@]}"; do
	nice -n 19 cmake --build "$build" -j 2 --target "fuzz_$t" >/dev/null ||
	    { cmake --build "$build" --target "fuzz_$t" 2>&1 | tail -30 >&2; exit 1; }
done
bin=$build/tests/fuzz

if [ "$merge" = 1 ]; then
	for t in "${targets[@]}"; do
		[ -d "$build/work/$t" ] || continue
		before=$(ls "$src/tests/fuzz/corpus/$t" | wc -l)
		"$bin/fuzz_$t" -merge=1 "$src/tests/fuzz/corpus/$t" "$build/work/$t" \
		    >"$build/merge-$t.log" 2>&1
		echo "$t: corpus $before -> $(ls "$src/tests/fuzz/corpus/$t" | wc -l) inputs"
	done
	exit 0
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:fast_unwind_on_malloc=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$src/tests/lsan.supp:print_suppressions=0}

fuzz_one() {	# target
	local t=$1 log=$build/logs/$1.log
	mkdir -p "$build/work/$t" "$build/findings/$t" "$build/logs"
	# shellcheck disable=SC2046
	nice -n 19 "$bin/fuzz_$t" -max_total_time="$seconds" -timeout=10 \
	    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
	    -artifact_prefix="$build/findings/$t/" \
	    "$build/work/$t" "$src/tests/fuzz/corpus/$t" $(seeds "$t") \
	    >"$log" 2>&1
	echo $? >"$build/logs/$t.rc"
}

rm -f "$build"/logs/*.rc
running=0
for t in "${targets[@]}"; do
	fuzz_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

status=0
printf '%-10s %10s %8s %8s %8s %s\n' target execs exec/s cov ft findings
for t in "${targets[@]}"; do
	log=$build/logs/$t.log
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	found=$(find "$build/findings/$t" -type f | wc -l)
	[ "$(cat "$build/logs/$t.rc" 2>/dev/null)" = 0 ] && [ "$found" = 0 ] || status=1
	printf '%-10s %10s %8s %8s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" \
	    "${cov:-?}" "${ft:-?}" "$found"
done
exit $status
