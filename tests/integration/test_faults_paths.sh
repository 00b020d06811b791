#!/usr/bin/env bash
# Outputs that would destroy an input are refused before anything runs,
# and leave every file as it was: collect --output naming the inventory
# (also through a symlink), heatmap --output naming one of its --input
# files, and --resume on a file collect did not write (JSON that is not
# records, text, a binary without a newline). No host is contacted.
. "$(dirname "$0")/lib.sh"
require_cmd sha256sum

T=$NETPROF_TEST_TMP/faults-paths
rm -rf "$T"
mkdir -p "$T"
inv=$T/machines.json
cat >"$inv" <<'JSON'
{"machines": [
  {"name": "a", "address": "127.0.0.1", "transport": "local"},
  {"name": "b", "address": "127.0.0.1", "transport": "local"}
]}
JSON
sum() { sha256sum "$1" | cut -d' ' -f1; }
before=$(sum "$inv")

assert_status 2 "$NETPROF_BIN" collect --config "$inv" --output "$inv"
assert_contains "$OUT" "is the inventory"
ln -s machines.json "$T/link.json"
assert_status 2 "$NETPROF_BIN" collect --config "$inv" --output "$T/link.json" --resume
assert_contains "$OUT" "is the inventory"
assert_eq "$before" "$(sum "$inv")" "the inventory is unchanged"

# heatmap: the page would replace the records
printf '%s\n' '{"kind":"ping","source":"a","target":"b","ok":true,"metrics":{"avg":1}}' >"$T/r.jsonl"
rsum=$(sum "$T/r.jsonl")
assert_status 2 "$NETPROF_BIN" heatmap --input "$T/r.jsonl" --output "$T/r.jsonl"
assert_contains "$OUT" "is the input"
assert_eq "$rsum" "$(sum "$T/r.jsonl")" "the records are unchanged"

# --resume on files collect did not write
cp "$inv" "$T/other.json"
printf 'hello\nworld\n' >"$T/notes.txt"
printf '\177ELF no newline' >"$T/bin"
for f in "$T/other.json" "$T/notes.txt" "$T/bin"; do
	s=$(sum "$f")
	assert_status 2 "$NETPROF_BIN" collect --config "$inv" --output "$f" --resume
	assert_contains "$OUT" "is not a JSON record"
	assert_eq "$s" "$(sum "$f")" "$f is unchanged"
done
test_pass
