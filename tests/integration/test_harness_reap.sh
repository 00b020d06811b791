#!/usr/bin/env bash
# A test killed as ctest kills one past its timeout (SIGKILL to its process
# tree, no trap run) leaves no process behind: an inner test (sourcing
# lib.sh) runs bench over the local transport in the background, as
# test_bench's local step does; once a node is up, its whole tree is
# killed. The node, started in the background by a shell that has ended,
# is no longer in that tree; lib.sh's reaper must end it, and every other
# process of the inner test's run.
. "$(dirname "$0")/lib.sh"
require_cmd jq node

T=$NETPROF_TEST_TMP/$TEST_NAME
rid=treap
rm -rf "$T" /tmp/otela-bench-$rid-a /tmp/otela-bench-$rid-b
mkdir -p "$T"
# the killed bench cannot remove its hosts' directories
at_exit "rm -rf '$T' /tmp/otela-bench-$rid-a /tmp/otela-bench-$rid-b"
cat >"$T/local.json" <<EOF
{"remote_setup": "$(otela_setup)",
 "machines": [
  {"name": "a", "address": "127.0.0.1", "transport": "local",
   "http_port": $(free_port), "libp2p_port": $(free_port)},
  {"name": "b", "address": "127.0.0.1", "transport": "local",
   "http_port": $(free_port), "libp2p_port": $(free_port)}]}
EOF
cat >"$T/test_harness_reap_inner.sh" <<EOF
. "$NETPROF_SRC/tests/integration/lib.sh"
"$NETPROF_BIN" bench --config "$T/local.json" --output "$T/out" --run-id $rid \
    --kinds libp2p_ping --no-punch >"$T/bench.out" 2>&1 &
wait
EOF
bash "$T/test_harness_reap_inner.sh" &
inner=$!

# tree PID: PID and its descendants, as ctest finds them
tree() {
	local c
	for c in $(ps -o pid= --ppid "$1"); do
		tree "$c"
	done
	echo "$1"
}
node_up() {
	[ -s /tmp/otela-bench-$rid-a/pid ] &&
	    kill -0 "$(cat /tmp/otela-bench-$rid-a/pid)" 2>/dev/null
}
wait_for 120 node_up || fail "no node started; bench said: $(cat "$T/bench.out")"
node=$(cat /tmp/otela-bench-$rid-a/pid)
run=$(tr '\0' '\n' </proc/"$node"/environ | sed -n 's/^NETPROF_TEST_RUN=//p')
assert_contains "$run" "test_harness_reap_inner."
# as ctest kills a test past its timeout: the test's process suspended
# first (it then neither starts a child nor sees one end: killed after
# its bench, it would reap it and end 0 before its own KILL came), then
# its tree, then every process of the tree killed
kill -STOP "$inner"
pids=$(tree "$inner")
assert_not_contains " $(echo $pids) " " $node " "the node has left the inner test's tree"
# shellcheck disable=SC2086
kill -STOP $pids 2>/dev/null || true
# shellcheck disable=SC2086
kill -KILL $pids 2>/dev/null || true
rc=0
wait "$inner" || rc=$?
assert_eq 137 "$rc" "the inner test killed"
left() {
	grep -lzxF "NETPROF_TEST_RUN=$run" /proc/[0-9]*/environ 2>/dev/null || true
}
gone() {
	[ -z "$(left)" ]
}
wait_for 15 gone || fail "processes of the killed test left: $(left | cut -d/ -f3 | xargs -r ps -o pid=,args= -p)"
# (killed, it may linger a moment as a zombie until reaped)
st=$(ps -o stat= -p "$node" 2>/dev/null || true)
[ -z "$st" ] || [[ $st == Z* ]] || fail "node $node left: $st"
TEST_CHECKS=$((TEST_CHECKS + 1))
test_pass
