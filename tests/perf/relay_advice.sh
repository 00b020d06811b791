#!/usr/bin/env bash
# heatmap --advise's prediction against the lab: test_relay_advice's two
# bench runs (its lab, the stand-in node, or NETPROF_TEST_OTELA's), both
# one probe at a time, with the claim the suite leaves out as fidelity
# held too: per host, run 2's relayed pairs within 10 % of the advice's
# predicted_ms, made from run 1's legs (the suite holds them to run 2's
# own legs). Run it by hand on a quiet machine; it exits as the test does
# (0 pass, 1 a miss, 77 skipped).
#
# usage: tests/perf/relay_advice.sh   (needs root, node)
# env:   NETPROF_BIN (default: build/main/netprof, built); NETPROF_TEST_OTELA
#        (every node on that otela binary)
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
BIN=$(bench_binary "${NETPROF_BIN:-}") || exit 1
echo "load before: $(uptime | sed 's/.*load average: //')"
# (the test's lab is its own: lab name tadvice, in a directory of the
# build's that the lab's user can reach, as NETPROF_TEST_OTELA's link is
# there; a temporary directory of mktemp's it could not enter)
WORK=$(bench_workdir relay_advice) || exit 1
NETPROF_TEST_FIDELITY=1 NETPROF_BIN=$BIN NETPROF_SRC=$SRC NETPROF_TEST_TMP=$WORK \
    NETPROF_FIXTURES=$SRC/tests/fixtures bash "$SRC/tests/integration/test_relay_advice.sh"
rc=$?
echo "load after: $(uptime | sed 's/.*load average: //')"
exit $rc
