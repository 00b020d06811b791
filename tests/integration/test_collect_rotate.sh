#!/usr/bin/env bash
# collect --every --rotate without a lab (the local transport on loopback):
# every sweep past the size moves the output to FILE.1 and starts FILE
# again, each record in one of the two; when the rename fails (FILE.1 a
# directory, as another user's file in a sticky /tmp would make it) every
# record is still kept, appended to FILE, and each failure is said.
. "$(dirname "$0")/lib.sh"
require_cmd jq ping
ping -c 1 -W 1 127.0.0.2 >/dev/null 2>&1 || skip "cannot ping 127.0.0.2 here"

T=$NETPROF_TEST_TMP/collect-rotate
rm -rf "$T"
mkdir -p "$T"
cd "$T" || exit 1
cat >local.json <<'JSON'
{"transport": "local", "ping_count": 1,
 "machines": [{"name": "a", "address": "127.0.0.1"},
              {"name": "b", "address": "127.0.0.2"}]}
JSON
sweeps() { jq -r '.sweep' "$@" | sort -n | uniq -c | awk '{ printf "%s:%s ", $2, $1 }'; }

# A rename that fails: the four sweeps' records all in the output.
mkdir -p out.jsonl.1/x
assert_status 0 "$NETPROF_BIN" collect --config local.json --output out.jsonl \
    --every 0 --count 4 --rotate 1
assert_eq "1:2 2:2 3:2 4:2 " "$(sweeps out.jsonl)" "every sweep's records kept"
assert_eq 3 "$(grep -c 'cannot rename it to out.jsonl.1' <<<"$OUT")" "a rename error after sweeps 1 to 3"
assert_contains "$OUT" "the records go on being appended to it"
[ -d out.jsonl.1/x ] || fail "the directory in the way was touched"

# Rotations that work: sweep 4 in the output, sweep 3 in .1.
rm -rf out.jsonl out.jsonl.1
assert_status 0 "$NETPROF_BIN" collect --config local.json --output out.jsonl \
    --every 0 --count 4 --rotate 1
assert_eq 3 "$(grep -c 'out.jsonl rotated to out.jsonl.1' <<<"$OUT")"
assert_eq "4:2 " "$(sweeps out.jsonl)"
assert_eq "3:2 " "$(sweeps out.jsonl.1)"

test_pass
