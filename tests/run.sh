#!/usr/bin/env bash
# Run every netprof test: install what is missing, build three times (a
# -Werror build, an ASan+UBSan build and a -Werror build with clang), run the
# whole ctest suite on the first and the C tests (unit, integration but those
# named at asan_skip below, fuzz corpora) on the second. Run as root on
# Debian: the integration tests build a lab of network namespaces.
#
#   tests/run.sh [ctest arguments...]     e.g. tests/run.sh -R collect
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${NETPROF_BUILD_DIR:-$src/build}
jobs=$(nproc 2>/dev/null || echo 2)
# Tests run two at a time (tests/CMakeLists.txt names those that run
# alone); more would only make the lab tests wait on each other's CPU.
test_jobs=$(( jobs < 2 ? 1 : 2 ))

# Jaeger (the trace test's), when not built yet, builds in the background
# while netprof builds and the lab tests run; test_trace_jaeger, which ctest
# starts last, waits for it.
export NETPROF_JAEGER_BACKGROUND=1
"$src/tests/install-deps.sh" build lab test || exit 1

configure_and_build() {	# dir, extra cmake args...
	local dir=$1
	shift
	cmake -S "$src" -B "$dir" -DNETPROF_WERROR=ON "$@" >/dev/null &&
	    cmake --build "$dir" -j "$jobs" >/dev/null ||
	    { echo "tests: build in $dir failed:" >&2;
	      cmake --build "$dir" -j 1 2>&1 | tail -40 >&2; return 1; }
}

summary() {	# ctest log -> "passed failed"
	sed -n 's/.*tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\).*/\1 \2/p' "$1" |
	    tail -1
}

configure_and_build "$build/main" -DNETPROF_TESTS=ON || exit 1
configure_and_build "$build/asan" -DNETPROF_TESTS=ON -DNETPROF_SANITIZE=ON \
    -DCMAKE_BUILD_TYPE=Debug || exit 1
# clang's warnings differ from gcc's: everything must build with both, the
# libFuzzer targets included (tests/fuzz/run.sh runs them).
CC=clang configure_and_build "$build/clang" -DNETPROF_TESTS=ON -DNETPROF_FUZZ=ON ||
    exit 1

# Full malloc stacks: suppressions name library functions deep in them.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:fast_unwind_on_malloc=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$src/tests/lsan.supp:print_suppressions=0}

status=0
echo "== tests: -Werror build (all tests)"
(cd "$build/main" && ctest -j "$test_jobs" --output-on-failure "$@") 2>&1 | tee "$build/main.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
# Lab tests left out of the sanitized pass: what they prove is about
# processes and time on the hosts, and their C paths are ones other tests
# run under the sanitizers:
# - test_collect_sigkill, test_faults_blackhole: iperf3 servers ending by
#   themselves after a SIGKILL, 16 connect timeouts that must not add up
#   (test_collect*, test_check and test_faults_fdlimit run their paths);
# - test_wan_*, test_metrics_wan: fidelity on the WAN lab, i.e. the
#   emulator's timing (collect's and bench's paths run in test_collect*,
#   test_bench*, the listener's in test_metrics_prometheus);
# - test_slurm, test_slurm_bench (the pattern test_slurm matches both):
#   Slurm's daemons (the spawn transport runs in test_collect_local and
#   test_exec, bench's paths in test_bench*);
# - test_node_api_caps: answers of up to 64 MiB made by a fake node (the
#   caps' code runs in unit.test_node_json, unit.test_http and
#   test_node_api).
# - test_bench_relay: four bench runs on firewalled sites and relays (four
#   minutes), whose claims are the lab's outcome in time (a relayed round
#   trip against its two legs, the 40 ms direct/relayed split); the paths'
#   and relays' C code runs in unit.test_bench_path, unit.test_node_json,
#   fuzz.node, test_lab_paths and the other test_bench* under the
#   sanitizers.
# - test_completion: the completion scripts in bash and zsh themselves
#   (half a minute of shells); netprof's part, `completion bash|zsh` and
#   every command's --help, runs in test_frictions and test_options.
# - test_relay_advice: two bench runs on firewalled sites whose claim is
#   the lab's timing (the relayed pairs' round trips against --advise's
#   prediction); --advise's C code runs under the sanitizers in
#   unit.test_heatmap_advise and test_heatmap_advise, bench's in
#   test_bench* and test_lab_paths.
# Together they would add many minutes of waiting to CI.
asan_skip='test_collect_sigkill|test_faults_blackhole|test_wan_|test_metrics_wan|test_slurm|test_node_api_caps|test_bench_relay|test_completion|test_relay_advice'
echo "== tests: ASan+UBSan build (unit, integration and fuzz corpus tests; not $asan_skip)"
(cd "$build/asan" && ctest -j "$test_jobs" --output-on-failure -L 'unit|integration|fuzz' \
    -E "$asan_skip" "$@") 2>&1 |
    tee "$build/asan.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

# The ten slowest tests of both passes, slowest first: where the suite's
# time goes, in every run's log.
echo "== tests: the ten slowest"
for log in "$build/main.log" "$build/asan.log"; do
	pass=${log##*/}
	sed -n "s|^ *[0-9]*/[0-9]* Test *#[0-9]*: \([^ ]*\) [ .*]*[A-Za-z*]* *\([0-9.]*\) sec$|\2 ${pass%.log} \1|p" "$log" 2>/dev/null
done | sort -rn | head -10 | awk '{ printf "%8.1f s  %-5s %s\n", $1, $2, $3 }'

passed=0 failed=0
for log in "$build/main.log" "$build/asan.log"; do
	read -r f total <<<"$(summary "$log")"
	[ -n "${total:-}" ] || continue
	failed=$((failed + f))
	passed=$((passed + total - f))
done
[ "$passed" -gt 0 ] || status=1
echo "$passed passed, $failed failed"
exit $status
