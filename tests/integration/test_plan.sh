#!/usr/bin/env bash
# plan and collect --dry-run, without root or a lab: the rounds the
# scheduler prints (ping fan-out: ceil((N-1)/fanout) rounds, one by
# default; ceil((N-1)/cap) with --fanout off, N-1 with --rounds; 2(N-1)
# exclusive iperf3 rounds, 2N for odd N, N-1 duplex rounds), the per-pair
# commands as JSON rows with upstream names and full command lines per
# transport (sh -c, ssh with the inventory's options, the remote_command
# template), quoting of odd addresses, singular counts, usage errors.
. "$(dirname "$0")/lib.sh"
require_cmd jq

inv=$NETPROF_TEST_TMP/plan-machines.json
mk_inventory() {
	local n=$1 i sep=""
	{
		printf '{"transport": "local", "ping_count": 4, "iperf_seconds": 3,\n'
		printf ' "iperf_port": 5301, "machines": ['
		for (( i = 1; i <= n; i++ )); do
			printf '%s{"name": "m%d", "address": "198.18.9.%d"}' "$sep" "$i" $(( i + 1 ))
			sep=", "
		done
		printf ']}\n'
	} >"$inv"
}

mk_inventory 10
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --iperf
assert_contains "$OUT" "ping: 1 round, 90 probes"	# one fan-out
assert_contains "$OUT" "fan-out: one command per source host"
assert_contains "$OUT" "iperf3: 18 rounds, 90 probes"	# 2(N-1)
assert_contains "$OUT" "exclusive: no host in two tests"
assert_contains "$OUT" "LC_ALL=C ping -c 4 -i 1 198.18.9.3"
assert_contains "$OUT" "LC_ALL=C iperf3 -s -1 -p 5301 --forceflush --idle-timeout 20"
assert_contains "$OUT" "LC_ALL=C iperf3 -c 198.18.9.3 -p 5301 -t 3 -J"
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --fanout off
assert_contains "$OUT" "ping: 2 rounds, 90 probes"	# ceil(9/8)
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --fanout 4
assert_contains "$OUT" "ping: 3 rounds, 90 probes"	# ceil(9/4)
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --iperf --iperf-mode duplex
assert_contains "$OUT" "iperf3: 9 rounds, 90 probes"	# N-1
# one server per host for the phase, bounded: 9 rounds x (3 + 2) s + 10 + 10
assert_contains "$OUT" "LC_ALL=C timeout --foreground -k 5 65 iperf3 -s -p 5301 -i 0 --forceflush"
assert_contains "$OUT" "duplex: each host is the client of one test"
assert_status 2 "$NETPROF_BIN" plan --config "$inv" --iperf-mode half
assert_contains "$OUT" "--iperf-mode: 'half' is not exclusive or duplex"
assert_status 2 "$NETPROF_BIN" plan --config "$inv" --fanout 0x
assert_contains "$OUT" "--fanout: '0x' is not a number of targets"
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --rounds
assert_contains "$OUT" "ping: 9 rounds, 90 probes"
assert_not_contains "$OUT" "iperf3:"

mk_inventory 5
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --iperf
assert_contains "$OUT" "iperf3: 10 rounds, 20 probes"	# odd N: 2N
# each iperf3 round line names a host at most once
dup=$(grep -A10 '^iperf3:' <<<"$OUT" | grep '  round' | while read -r line; do
	tr ' ' '\n' <<<"${line#*:}" | tr '>' '\n' | sed 's/-$//' | grep . | sort | uniq -d
done)
assert_eq "" "$dup" "a host twice in one iperf3 round"

# JSON rows, upstream names plus the rounds
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --iperf --json
json=$NETPROF_TEST_TMP/plan.json
printf '%s\n' "$OUT" >"$json"
assert_eq 20 "$(jq length "$json")" "rows"
assert_eq "m1 m2 sh -c 'LC_ALL=C ping -c 4 -i 1 198.18.9.3'" \
    "$(jq -r '.[0]|"\(.source) \(.target) \(.ping)"' "$json")"
assert_eq "sh -c 'LC_ALL=C iperf3 -s -1 -p 5301 --forceflush --idle-timeout 20'" "$(jq -r '.[0].iperf_server' "$json")"
assert_eq "sh -c 'LC_ALL=C iperf3 -c 198.18.9.3 -p 5301 -t 3 -J'" "$(jq -r '.[0].iperf_client' "$json")"
# upstream's row shape, with the rounds added
assert_eq "true" "$(jq 'all(.[]; (keys - ["source","target","ping","iperf_server","iperf_client","ping_round","iperf_round","ping_mode","iperf_mode"]) == [] and (.source|type) == "string" and (.ping|type) == "string" and .ping_round >= 1 and .iperf_round >= 1)' "$json")"
assert_eq "fanout exclusive" "$(jq -r '.[0]|"\(.ping_mode) \(.iperf_mode)"' "$json")" "modes in the rows"
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --iperf --json --iperf-mode duplex --fanout off
assert_eq "channels duplex" "$(jq -r '.[0]|"\(.ping_mode) \(.iperf_mode)"' <<<"$OUT")" "modes in the rows"
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --json
assert_eq "null" "$(jq -r '.[0].iperf_client' <<<"$OUT")" "no --iperf: no iperf commands"

# --kinds: the kinds chosen, in the table's order; --iperf is ping,iperf3
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --iperf
iperf_plan=$OUT
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --kinds iperf3,ping
assert_eq "$iperf_plan" "$OUT" "--kinds iperf3,ping is --iperf's plan"
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --kinds iperf3
assert_contains "$OUT" "iperf3: 10 rounds, 20 probes"
assert_not_contains "$OUT" "ping: "
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --kinds iperf3 --json
assert_eq "null true" "$(jq -r '.[0]|"\(.ping) \(.iperf_round >= 1)"' <<<"$OUT")" "--kinds iperf3: no ping"
assert_status 2 "$NETPROF_BIN" plan --config "$inv" --kinds ping,throughput
assert_contains "$OUT" "--kinds: 'ping,throughput' is not a comma-separated list of ping"

# collect --dry-run prints the same plan and runs nothing
assert_status 0 "$NETPROF_BIN" collect --config "$inv" --iperf --dry-run
assert_contains "$OUT" "iperf3: 10 rounds, 20 probes"

# a host name address goes into the command as it is
cat >"$inv" <<'JSON'
{"transport": "local", "machines": [
  {"name": "a", "address": "198.18.9.2"}, {"name": "b", "address": "host-b.example"}]}
JSON
assert_status 0 "$NETPROF_BIN" plan --config "$inv"
assert_contains "$OUT" "ping -c 5 -i 1 host-b.example"

# the ssh transport: the ssh line with the machine's port and user; the
# command transport: the expanded remote_command template, as upstream
cat >"$inv" <<'JSON'
{"machines": [
  {"name": "a", "address": "198.18.9.2", "port": 2222, "user": "bench"},
  {"name": "b", "address": "198.18.9.3", "ssh_host": "lab-b"}]}
JSON
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --json
assert_eq "ssh -p 2222 -l bench a 'LC_ALL=C ping -c 5 -i 1 198.18.9.3'" "$(jq -r '.[0].ping' <<<"$OUT")"
assert_eq "ssh lab-b 'LC_ALL=C ping -c 5 -i 1 198.18.9.2'" "$(jq -r '.[1].ping' <<<"$OUT")"
cat >"$inv" <<'JSON'
{"transport": "command", "remote_command": ["rcc-emu", "{host}", "bash", "-lc", "{command}"],
 "machines": [{"name": "a", "address": "198.18.9.2", "rcc_host": "pa"},
              {"name": "b", "address": "198.18.9.3"}]}
JSON
assert_status 0 "$NETPROF_BIN" plan --config "$inv" --iperf
assert_contains "$OUT" "ping, on a, round 1: rcc-emu pa bash -lc 'LC_ALL=C ping -c 5 -i 1 198.18.9.3'"
assert_contains "$OUT" "ping: 1 round, 2 probes"

# usage errors
assert_status 2 "$NETPROF_BIN" plan
assert_contains "$OUT" "--config FILE or --slurm is required"
assert_status 2 "$NETPROF_BIN" collect --config "$inv" --resume --output -
assert_contains "$OUT" "--resume needs --output FILE"
assert_status 2 "$NETPROF_BIN" collect --config "$inv" --serial --rounds
assert_status 2 "$NETPROF_BIN" collect --config "$inv" --ping-interval 0
assert_status 2 "$NETPROF_BIN" collect --config "$NETPROF_TEST_TMP/none.json"
assert_status 0 "$NETPROF_BIN" collect --help
assert_contains "$OUT" "130 interrupted"
test_pass
