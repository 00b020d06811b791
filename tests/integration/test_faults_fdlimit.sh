#!/usr/bin/env bash
# The open-file limit. (1) A soft limit below what the hosts need is raised
# to the hard one at start: 80 hosts at once (pipes each) under
# `ulimit -S -n 64` all run. (2) A hard limit below what the hosts need:
# the hosts past what it allows wait their turn instead of failing "too
# many open files" — 80 local hosts under a hard limit of 64, then 32 lab
# hosts over SSH (`exec` and `check`) under a hard limit of 40, which
# cannot hold their 32 sockets and the rest of the process at once: every
# host ok, and a note says hosts were queued. (3) collect, whose pairs need
# both hosts' sessions at once, refuses such an inventory up front, naming
# the limit, the host count and `ulimit -n`.
. "$(dirname "$0")/lib.sh"

T=$NETPROF_TEST_TMP/faults-fdlimit
rm -rf "$T"
mkdir -p "$T"
python3 - >"$T/machines.json" <<'PY'
import json
print(json.dumps({"machines": [{"name": "m%d" % i, "address": "127.0.0.1",
    "transport": "local"} for i in range(80)]}))
PY

# no "too many open files" in $1, whatever its case (libuv says it in lower
# case, libssh "Too many")
assert_no_emfile() {
	assert_not_contains "${1,,}" "too many open files" "${2:-no host failed for lack of descriptors}"
}

# --- (1) soft limit raised ----------------------------------------------
[ "$(ulimit -H -n)" = unlimited ] || [ "$(ulimit -H -n)" -ge 1024 ] ||
    skip "the hard open-file limit is below 1024"
assert_status 0 bash -c "ulimit -S -n 64 && exec \"\$0\" exec --config \"\$1\" 'sleep 1; echo ok'" \
    "$NETPROF_BIN" "$T/machines.json"
assert_eq 80 "$(grep -c ': ok$' <<<"$OUT")" "every host ran"
assert_no_emfile "$OUT"
assert_not_contains "$OUT" "queued" "the raised limit holds every host: none waits"

# --- (2) hard limit too low: hosts wait their turn ----------------------
# with_hard_limit N CMD...: CMD under soft and hard limit N (`ulimit -n N`)
with_hard_limit() {
	# a hang (what a failed spawn can cause) fails here, not at ctest's timeout
	timeout -k 5 120 bash -c 'ulimit -n "$0" && exec "$@"' "$@"
}
assert_status 0 with_hard_limit 64 "$NETPROF_BIN" exec --config "$T/machines.json" 'sleep 0.5; echo ok'
assert_eq 80 "$(grep -c ': ok$' <<<"$OUT")" "every local host ran under a hard limit of 64"
assert_no_emfile "$OUT"
assert_contains "$OUT" "the open-file limit (64) lets" "a note says hosts were queued"
assert_contains "$OUT" "queued"

# --- (3) collect refuses up front ---------------------------------------
assert_status 2 with_hard_limit 64 "$NETPROF_BIN" collect --config "$T/machines.json" \
    --output "$T/never.jsonl"
assert_contains "$OUT" "collect: 80 hosts need about"
assert_contains "$OUT" "the open-file limit is 64"
assert_contains "$OUT" "ulimit -n"
[ ! -s "$T/never.jsonl" ] || fail "collect wrote records although it refused"

# --- (3) so does bench, counting what a node API call holds --------------
# 8 hosts: a session each, and per call in flight a socket pair, the
# bridge's listener and libcurl's connection, at --max-probes 2: 128 + 20.
jq '.machines |= .[:8]' "$T/machines.json" >"$T/bench8.json"
assert_status 2 with_hard_limit 64 "$NETPROF_BIN" bench --config "$T/bench8.json" \
    --output "$T/bench-never" --run-id fdl1
assert_contains "$OUT" "bench: 8 hosts need about 148 open files at once"
assert_status 2 "$NETPROF_BIN" bench --config "$T/bench8.json" --max-probes 65
assert_contains "$OUT" "--max-probes: '65' is not a number from 1 to 64"

# --- (2) over SSH, on the lab -------------------------------------------
require_root
lab_up tfdlim 32
inv=$LAB_INVENTORY
assert_status 0 with_hard_limit 40 "$NETPROF_BIN" exec --config "$inv" 'echo ok'
assert_eq 32 "$(grep -c ': ok$' <<<"$OUT")" "every lab host ran under a hard limit of 40"
assert_no_emfile "$OUT"
assert_contains "$OUT" "the open-file limit (40) lets" "a note says hosts were queued"
assert_status 0 with_hard_limit 40 "$NETPROF_BIN" check --config "$inv"
assert_contains "$OUT" "32 of 32 hosts ready"
assert_no_emfile "$OUT"
assert_contains "$OUT" "queued"
test_pass
