#!/usr/bin/env bash
# The small frictions a new user meets, each as a user would expect it
# (local machines with the golden test's stand-in ping, no host
# contacted): collect --output - | heatmap --input -; -v and -q anywhere
# on the line, the same in every command; a size with its suffix wherever
# a size is taken; plan showing the fan-out script each source runs; one
# exit status for a bad --output in every command; heatmap given an
# inventory or a lone run.json saying what to give instead; "did you
# mean" for a misspelt command or option, and an abbreviation that fits
# several named.
. "$(dirname "$0")/lib.sh"
require_cmd python3

export GOLDEN_BIN=$NETPROF_SRC/tests/integration/golden
T=$NETPROF_TEST_TMP/frictions
rm -rf "$T" && mkdir -p "$T/state"
at_exit "rm -rf '$T'"
export GOLDEN_STATE=$T/state
cd "$T" || exit 1
machine() {
	printf '{"name": "%s", "address": "%s", "remote_setup": "export GOLDEN_HOST=%s PATH=\\"$GOLDEN_BIN:$PATH\\""}' \
	    "$1" "$2" "$1"
}
cat >m.json <<JSON
{"transport": "local", "ping_count": 2, "ping_interval": 0.2,
 "machines": [$(machine a 127.0.0.1), $(machine b 127.0.0.2)]}
JSON
heatmap_fixtures=$NETPROF_FIXTURES/heatmap

# --- collect --output - | heatmap --input - -----------------------------
out=$("$NETPROF_BIN" -q collect --config m.json --output - --ping-tool ping |
    "$NETPROF_BIN" heatmap --input - --text 2>&1) || fail "the pipe failed: $out"
assert_contains "$out" "ping: avg (ms)"
assert_contains "$out" "read records (2 hosts, 1 kind, 2 records, 0 failed)"
assert_status 2 "$NETPROF_BIN" heatmap --input - --compare - --text </dev/null
assert_contains "$OUT" "- (standard input) is given 2 times; it can be read once"

# --- -v and -q anywhere, every command ------------------------------------
# (stderr: -q leaves errors only, -v tells the story: "[time] host: ...")
for c in "check --config m.json" "plan --config m.json" "exec --config m.json" \
    "collect --config m.json --output $T/q.jsonl" \
    "heatmap --input $heatmap_fixtures/collect.jsonl --output $T/q.html" \
    "completion bash" "completion zsh"; do
	extra=
	[ "${c%% *}" = exec ] && extra="-- true"
	rc=0
	# shellcheck disable=SC2086
	"$NETPROF_BIN" $c -q $extra >/dev/null 2>err || rc=$?
	assert_eq 0 "$rc" "${c%% *} ... -q"
	assert_eq "" "$(cat err)" "${c%% *} ... -q: nothing on stderr"
	rc=0
	# shellcheck disable=SC2086
	"$NETPROF_BIN" $c -v $extra >/dev/null 2>err || rc=$?
	assert_eq 0 "$rc" "${c%% *} ... -v"
	case ${c%% *} in
	plan|completion) ;;	# nothing runs: nothing to tell
	*) assert_file_contains err "] " "${c%% *} ... -v: the story of the run" ;;
	esac
done
assert_status 0 "$NETPROF_BIN" heatmap --input "$heatmap_fixtures/collect.jsonl" --output q.html
assert_contains "$OUT" "wrote q.html"
assert_status 0 "$NETPROF_BIN" heatmap --input "$heatmap_fixtures/collect.jsonl" --output q.html -q
assert_eq "" "$OUT" "heatmap -q after the command"
# -v and -q together, in either order: the story, without the summary
for vq in "-v collect -q" "-q collect -v"; do
	# shellcheck disable=SC2086
	"$NETPROF_BIN" $vq --config m.json --output q.jsonl 2>err ||
	    fail "$vq: $(cat err)"
	assert_file_contains err "] " "$vq: the story of the run"
	assert_not_contains "$(cat err)" "probes ok" "$vq: no summary"
done

# --- sizes take suffixes everywhere -------------------------------------
assert_status 2 "$NETPROF_BIN" bench --config m.json --throughput-bytes 10X
assert_contains "$OUT" "--throughput-bytes: '10X' is not a size from 1 to 1G (1073741824), like 10M or 10485760"
assert_status 2 "$NETPROF_BIN" bench --config m.json --throughput-bytes 10M --hosts a
assert_contains "$OUT" "nothing to measure" "10M taken"
assert_status 0 "$NETPROF_BIN" heatmap --input "$heatmap_fixtures/collect.jsonl" --text --max-memory 2G
assert_status 2 "$NETPROF_BIN" heatmap --input "$heatmap_fixtures/collect.jsonl" --text --max-memory 1M
assert_contains "$OUT" "--max-memory: '1M' is not a size from 16M to 1T"
assert_status 0 "$NETPROF_BIN" collect --config m.json --every 1 --rotate 1.5G --dry-run

# --- plan shows what each source runs -----------------------------------
assert_status 0 "$NETPROF_BIN" plan --config m.json
assert_contains "$OUT" "commands (each probe alone, as upstream runs it; --explain adds the fan-out command each source runs):"
assert_status 0 "$NETPROF_BIN" plan --config m.json --explain --ping-tool ping
assert_contains "$OUT" "ping fan-out commands (what each source runs; the lines above are each probe alone, as upstream runs it):"
assert_contains "$OUT" "  on a, 1 target: b"
assert_contains "$OUT" "np_ping 127.0.0.2 | np_tag 0 &"
# that script is what collect runs: it measures as collect does
sed -n '/^  on a, 1 target: b$/,/^  on b/p' <<<"$OUT" | sed '1d;$d' >explain.sh
[ -s explain.sh ] || fail "no script under 'on a'"
out=$(bash -c "$(cat explain.sh)") || fail "the plan's script failed: $out"
assert_contains "$out" "np-start"
assert_contains "$out" "0 np-exit 0"

# --- one exit status for a bad --output, every command ------------------
mkdir -p adir
echo x >afile
for o in adir afile/x; do
	assert_status 2 "$NETPROF_BIN" collect --config m.json --output "$o"
	assert_status 2 "$NETPROF_BIN" heatmap --input "$heatmap_fixtures/collect.jsonl" --output "$o"
	assert_status 2 "$NETPROF_BIN" collect --config m.json --output /dev/null --metrics-file "$o"
	assert_status 2 "$NETPROF_BIN" heatmap --input "$heatmap_fixtures/collect.jsonl" --metrics-file "$o"
	assert_status 2 "$NETPROF_BIN" bench --config m.json --metrics-file "$o"
done
assert_status 2 "$NETPROF_BIN" bench --config m.json --output afile
assert_contains "$OUT" "--output afile: not a directory"
assert_status 2 "$NETPROF_BIN" heatmap --input "$heatmap_fixtures/collect.jsonl" --output adir
assert_eq "netprof: --output adir is not a regular file (a directory); give the path of a file, new or existing" "$OUT"
assert_status 2 "$NETPROF_BIN" collect --config m.json --output adir
assert_eq "netprof: --output adir is not a regular file (a directory); give the path of a file, new or existing" "$OUT"
# records are appended as they come: a device or a reader's FIFO takes
# them (a page or a metrics file, replaced whole, is a regular file; so is
# a --rotate output, renamed)
assert_status 0 "$NETPROF_BIN" -q collect --config m.json --output /dev/null
mkfifo records.fifo
cat records.fifo >fifo.jsonl &
assert_status 0 "$NETPROF_BIN" -q collect --config m.json --output records.fifo
wait $!
assert_eq 2 "$(jq -c . fifo.jsonl | wc -l)" "the FIFO's reader got both records"
assert_status 2 "$NETPROF_BIN" collect --config m.json --output /dev/null \
    --every 1s --count 1 --rotate 1M
assert_eq "netprof: --output /dev/null is not a regular file (a device); give the path of a file, new or existing" "$OUT"
assert_status 2 "$NETPROF_BIN" heatmap --input "$heatmap_fixtures/collect.jsonl" --output records.fifo
assert_eq "netprof: --output records.fifo is not a regular file (a FIFO); give the path of a file, new or existing" "$OUT"

# --- heatmap given what is not records -----------------------------------
assert_status 2 "$NETPROF_BIN" heatmap --input m.json --text
assert_eq "netprof: m.json is an inventory (machines.json), not records: give it with --config m.json (for each machine's site), and the records with --input: collect's (results/network-measurements.jsonl) or bench's (results/RUN_ID/measurements.jsonl)" "$OUT"
assert_status 2 "$NETPROF_BIN" heatmap --input "$heatmap_fixtures/run.json" --text
assert_contains "$OUT" "no records: $heatmap_fixtures/run.json is a bench run.json (the run's phases, for the timeline); the run's records are in $heatmap_fixtures/measurements.jsonl: give --input $heatmap_fixtures/measurements.jsonl --input $heatmap_fixtures/run.json"

# --- did you mean --------------------------------------------------------
assert_status 2 "$NETPROF_BIN" colect --config m.json
assert_eq "netprof: unknown command 'colect'; did you mean 'collect'? (run 'netprof help' for the list)" "$OUT"
assert_status 2 "$NETPROF_BIN" plan --config m.json --ping-cont 3
assert_eq "netprof plan: unknown option '--ping-cont'; did you mean '--ping-count'?" "$(head -n 1 <<<"$OUT")"
assert_status 2 "$NETPROF_BIN" plan --config m.json --i
assert_eq "netprof plan: option '--i' is ambiguous: it could be --iperf, --iperf-mode, --iperf-seconds, --iperf-port, --iperf-streams, --iperf-reverse" "$(head -n 1 <<<"$OUT")"
assert_status 2 "$NETPROF_BIN" --config m.json plan
assert_eq "netprof: --config is a command's option: give it after the command (netprof plan --config ...)" "$OUT"

test_pass
