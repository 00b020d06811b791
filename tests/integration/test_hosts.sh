#!/usr/bin/env bash
# Picking hosts as pdsh and ClusterShell users do, for every command that
# reads an inventory, with no host contacted (local machines): ranges
# (n[01-03], zeros kept), lists, -w as --hosts and repeated, -x/--exclude,
# @SITE from the inventory's sites; a name, a site or a range that matches
# nothing is an error naming the nearest one; a selection of one machine is
# "nothing to measure" for plan, collect and bench.
. "$(dirname "$0")/lib.sh"
require_cmd jq

T=$NETPROF_TEST_TMP/hosts
rm -rf "$T" && mkdir -p "$T"
at_exit "rm -rf '$T'"
inv=$T/machines.json
{
	printf '{"transport": "local", "ping_count": 1, "machines": ['
	for i in 01 02 03 04 10; do
		site=zurich
		[ "$i" -ge 04 ] && site=lugano
		printf '%s{"name": "n%s", "address": "127.0.0.%d", "site": "%s"}' \
		    "$([ "$i" = 01 ] || echo ,)" "$i" "$((10#$i))" "$site"
	done
	printf ']}\n'
} >"$inv"

# pairs ARGS...: plan's first round's pairs, sorted
pairs() {
	"$NETPROF_BIN" plan --config "$inv" --fanout off "$@" |
	    sed -n 's/^  round [0-9]*: //p' | tr ' ' '\n' | LC_ALL=C sort | xargs
}
# hosts OUTPUT: the hosts that ran a command (exec's "NAME: " lines)
ran_on() {
	cut -d: -f1 <<<"$1" | LC_ALL=C sort | xargs
}

assert_eq "n01->n02 n01->n03 n02->n01 n02->n03 n03->n01 n03->n02" \
    "$(pairs --hosts 'n[01-03]')" "a range, zeros kept"
assert_eq "n01->n03 n03->n01" "$(pairs -w 'n[01-03]' -x n02)" "-w and -x"
assert_eq "n01->n10 n10->n01" "$(pairs -w n01 -w n10)" "-w repeated"
assert_eq "n04->n10 n10->n04" "$(pairs --hosts @lugano)" "@SITE"
assert_eq "n02->n03 n03->n02" "$(pairs --exclude '@lugano,n01' -w 'n[01-04]')" \
    "exclusion of a site and a range"

# every command that reads an inventory: exec, check, collect's plan
assert_status 0 "$NETPROF_BIN" exec --config "$inv" -w 'n[02-04]' -x n03 -- echo hi
assert_eq "n02 n04" "$(ran_on "$OUT")" "exec on n[02-04] less n03"
assert_status 0 "$NETPROF_BIN" check --config "$inv" -w @zurich --json
assert_eq 3 "$(jq ".hosts | length" <<<"$OUT")" "check on @zurich (n01-n03)"
assert_status 0 "$NETPROF_BIN" collect --config "$inv" --dry-run -w n01,n10
assert_contains "$OUT" "round 1: n01->n10 n10->n01"

# what matches nothing, said with the nearest one
# (a range: the range and every name it has that is not a machine, once;
# the command is refused, not run on the rest: docs/inventory.md says why)
assert_status 2 "$NETPROF_BIN" plan --config "$inv" --hosts 'n[01-05]'
assert_eq "netprof: --hosts: \"n[01-05]\" names 1 machine that is not in $inv: n05; give the ones there (or add the rest to $inv); its machines: n01, n02, n03, n04, n10" "$OUT"
assert_status 2 "$NETPROF_BIN" exec --config "$inv" -x 'n[09-11]' -- true
assert_eq "netprof: --exclude: \"n[09-11]\" names 2 machines that are not in $inv: n09, n11; give the ones there (or add the rest to $inv); its machines: n01, n02, n03, n04, n10" "$OUT"
assert_status 2 "$NETPROF_BIN" check --config "$inv" --hosts n02,n5
assert_eq "netprof: --hosts: no machine named \"n5\" in $inv (of \"n02,n5\"); its machines: n01, n02, n03, n04, n10" "$OUT"
assert_status 2 "$NETPROF_BIN" check --config "$inv" --hosts @zurick
assert_eq "netprof: --hosts: no machine of $inv is in site \"zurick\"; did you mean \"@zurich\"?; its sites: @zurich, @lugano" "$OUT"
assert_status 2 "$NETPROF_BIN" exec --config "$inv" -x n1 -- true
assert_contains "$OUT" "--exclude: no machine named \"n1\""
assert_status 2 "$NETPROF_BIN" plan --config "$inv" --hosts 'n[3-1]'
assert_contains "$OUT" "\"n[3-1]\": the range 3-1 goes backwards"
assert_status 2 "$NETPROF_BIN" plan --config "$inv" -w @lugano -x @lugano
assert_contains "$OUT" "--hosts and --exclude leave no machine of $inv to run on"

# one machine: nothing to measure, not a plan of 0 probes and exit 0
for c in plan collect bench; do
	assert_status 2 "$NETPROF_BIN" "$c" --config "$inv" --hosts n01
	assert_eq "netprof: $c: nothing to measure: --hosts leaves one machine of $inv (n01), and a pair needs two; name two or more (--hosts n01,OTHER)" "$OUT"
done
printf '{"transport": "local", "machines": [{"name": "a", "address": "127.0.0.1"}]}\n' >"$T/one.json"
assert_status 2 "$NETPROF_BIN" plan --config "$T/one.json"
assert_contains "$OUT" "nothing to measure: $T/one.json has one machine (a)"
# exec and check run on one machine
assert_status 0 "$NETPROF_BIN" exec --config "$inv" --hosts n01 -- true

test_pass
