#!/usr/bin/env bash
# The option tables, without a lab: every option a command's --help lists
# (the help is printed from the table) is in docs/netprof.1 and in the
# command's docs page; every range error names the option; the ranges the
# command line and machines.json share agree (--iperf-seconds and
# iperf_seconds, --libp2p-port and libp2p_port); plan takes the options
# of collect's plan (--hosts, --ping-tool, --ping-count); --help is exit 0
# on stdout for every command; the global -q silences heatmap's summary.
. "$(dirname "$0")/lib.sh"

docs=$(cd "$(dirname "$0")/../../docs" && pwd)
man=$docs/netprof.1

# The long options of a command's --help, one a line.
long_options() {
	"$NETPROF_BIN" "$1" --help | sed -n '/^options:/,/^$/p' |
	    grep -oE '^ +(-[a-zA-Z], )*--[a-z0-9-]+' | sed 's/.*--//'
}

for c in check plan exec collect bench heatmap completion; do
	opts=$(long_options "$c")
	assert_ne "" "$opts" "$c --help lists options"
	page=$docs/$c.md
	for o in $opts; do
		esc=$(sed 's/-/\\\\-/g' <<<"$o")
		assert_eq 1 "$(grep -c -- "\\\\-\\\\-$esc\\b" "$man" | sed 's/^[1-9][0-9]*$/1/')" \
		    "netprof.1 documents $c --$o"
		if [[ -f $page && $o != help ]]; then
			assert_eq 1 "$(grep -c -- "--$o\\b" "$page" | sed 's/^[1-9][0-9]*$/1/')" \
			    "docs/$c.md documents --$o"
		fi
	done
	rc=0
	out=$("$NETPROF_BIN" "$c" --help 2>/dev/null) || rc=$?
	assert_eq 0 "$rc" "$c --help exits 0"
	assert_contains "$out" "  -h, --help " "$c --help on stdout"
done

# Examples: every command's --help ends with the commands a user runs
# most, and netprof.1's EXAMPLES has the same lines (the man page's
# escapes undone); the usage and the examples fit 80 columns; the common
# options come first (collect: --output, --kinds, --iperf before --slurm
# and --otlp); bench's default run id is said, not shown as a fixed one.
man_examples=$(sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$man" |
    sed -n '/^\.nf$/,/^\.fi$/p' | grep -v '^\.[nf][fi]$' | sed -e 's/\\-/-/g' -e 's/\\e/\\/g')
help_examples=
for c in check plan exec collect bench heatmap completion; do
	help=$("$NETPROF_BIN" "$c" --help)
	ex=$(sed -n '/^examples:$/,$p' <<<"$help" | tail -n +2 | sed 's/^  //')
	assert_ne "" "$ex" "$c --help has examples"
	assert_contains "$ex" "netprof $c" "$c's examples run $c"
	help_examples+=$ex$'\n'
	long=$( { sed -n '1,/^$/p' <<<"$help"; printf '%s\n' "$ex"; } | awk 'length($0) > 80')
	assert_eq "" "$long" "$c: usage and examples within 80 columns"
done
assert_eq "$help_examples" "$man_examples"$'\n' "netprof.1's EXAMPLES are the helps'"
help=$("$NETPROF_BIN" collect --help)
line_of() {
	sed -n '/^options:/,/^$/p' <<<"$help" | grep -nE -- "^ +(-[a-zA-Z], )*--$1( |$)" |
	    head -n 1 | cut -d: -f1
}
for late in slurm otlp max-channels; do
	for early in output kinds iperf; do
		[ "$(line_of "$early")" -lt "$(line_of "$late")" ] ||
		    fail "collect --help: --$early after --$late"
	done
done
assert_not_contains "$(head -n 3 <<<"$help")" "--slurm" "collect's usage: common options first"
help=$("$NETPROF_BIN" heatmap --help)
for o in config compare group-by; do
	assert_contains "$(sed -n '1,/^$/p' <<<"$help")" "[--$o " "heatmap's usage has --$o"
done
help=$("$NETPROF_BIN" bench --help)
assert_contains "$help" "name of the run (default: a new one from"

inv=$NETPROF_TEST_TMP/machines.json
printf '{"transport": "local", "machines": [{"name": "a", "address": "198.18.9.2"}, {"name": "b", "address": "198.18.9.3"}, {"name": "c", "address": "198.18.9.4"}]}\n' >"$inv"

# One error format: the option, the argument, what it must be.
assert_status 2 "$NETPROF_BIN" bench --config "$inv" --latency-count 0
assert_eq "netprof bench: --latency-count: '0' is not a number from 1 to 100000" \
    "$(head -n 1 <<<"$OUT")"
assert_status 2 "$NETPROF_BIN" bench --config "$inv" --health-wait x
assert_eq "netprof bench: --health-wait: 'x' is not a number of seconds from 0.1 to 86400" \
    "$(head -n 1 <<<"$OUT")"
assert_status 2 "$NETPROF_BIN" collect --config "$inv" --ping-count 0
assert_eq "netprof collect: --ping-count: '0' is not a number from 1 to 100000" \
    "$(head -n 1 <<<"$OUT")"
assert_status 2 "$NETPROF_BIN" exec --config "$inv" --repeat 0 -- true
assert_eq "netprof exec: --repeat: '0' is not a number from 1 to 10000000" \
    "$(head -n 1 <<<"$OUT")"
assert_status 2 "$NETPROF_BIN" heatmap --aggregate mean
assert_eq "netprof heatmap: --aggregate: 'mean' is not latest or median" \
    "$(head -n 1 <<<"$OUT")"

# --iperf-seconds: the range of iperf_seconds (1-86400), not 1-3600.
assert_status 0 "$NETPROF_BIN" collect --config "$inv" --iperf --dry-run --iperf-seconds 7200
assert_contains "$OUT" "-t 7200 -J"
printf '{"transport": "local", "iperf_seconds": 7200, "machines": [{"name": "a", "address": "198.18.9.2"}, {"name": "b", "address": "198.18.9.3"}]}\n' >"$NETPROF_TEST_TMP/long.json"
assert_status 0 "$NETPROF_BIN" plan --config "$NETPROF_TEST_TMP/long.json" --iperf
assert_status 2 "$NETPROF_BIN" collect --config "$inv" --iperf-seconds 86401
assert_eq "netprof collect: --iperf-seconds: '86401' is not a number from 1 to 86400" \
    "$(head -n 1 <<<"$OUT")"

# --libp2p-port and libp2p_port: 1-65534 both (its UDP port is the next).
assert_status 2 "$NETPROF_BIN" bench --config "$inv" --libp2p-port 65535
assert_contains "$(head -n 1 <<<"$OUT")" "--libp2p-port: '65535' is not a TCP port from 1 to 65534"
printf '{"machines": [{"name": "a", "address": "198.18.9.2", "libp2p_port": 65535}, {"name": "b", "address": "198.18.9.3"}]}\n' >"$NETPROF_TEST_TMP/udp.json"
assert_status 2 "$NETPROF_BIN" bench --config "$NETPROF_TEST_TMP/udp.json"
assert_contains "$OUT" "machines[0].libp2p_port: 65535 is not a port (1-65534)"

# plan takes --hosts, --ping-tool and --ping-count, as collect --dry-run.
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --hosts a,b --ping-tool ping --ping-count 7
assert_contains "$OUT" "ping: 1 round, 2 probes"
assert_contains "$OUT" "(one ping per target)"
assert_contains "$OUT" "LC_ALL=C ping -c 7 -i 1 198.18.9.3"
assert_not_contains "$OUT" "198.18.9.4"
assert_status 0 "$NETPROF_BIN" collect --config "$inv" --hosts a,b --ping-tool ping --ping-count 7 --dry-run
assert_contains "$OUT" "LC_ALL=C ping -c 7 -i 1 198.18.9.3"
assert_status 2 "$NETPROF_BIN" plan --config "$inv" --ping-tool zz
assert_eq "netprof plan: --ping-tool: 'zz' is not one of auto, ping, fping" \
    "$(head -n 1 <<<"$OUT")"

# The global -q: heatmap says nothing when all went well.
fixtures=$(cd "$(dirname "$0")/../fixtures/heatmap" && pwd)
rc=0
"$NETPROF_BIN" -q heatmap --input "$fixtures/collect.jsonl" \
    --output "$NETPROF_TEST_TMP/page.html" 2>"$NETPROF_TEST_TMP/err" || rc=$?
assert_eq 0 "$rc" "-q heatmap exits 0"
assert_eq "" "$(cat "$NETPROF_TEST_TMP/err")" "-q heatmap prints nothing"
assert_status 0 "$NETPROF_BIN" heatmap --input "$fixtures/collect.jsonl" \
    --output "$NETPROF_TEST_TMP/page.html"
assert_contains "$OUT" "wrote $NETPROF_TEST_TMP/page.html"

test_pass
