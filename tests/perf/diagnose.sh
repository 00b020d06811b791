#!/usr/bin/env bash
# The diagnosis's accuracy on injected faults, on the lab with distance:
# 8 hosts in 3 sites (h1-h3 in a, 5 ms from the core; h4-h6 in b, 10 ms;
# h7-h8 in c, 20 ms), each site's link capped at 200 Mbit/s and each
# host's at 500 (what a host sends inside its site would otherwise run at
# what the machine's cores allow, which a loaded machine halves from one
# run to the next: docs/lab.md), and a and c joined by a path of their
# own (--pair a-c, as far as the star). Every
# run is a collect (ping: 10 echoes 0.2 s apart; with --iperf, 3 s tests,
# where the fault is iperf3's, and every fifth healthy run), diagnosed by `netprof heatmap --config
# machines.json --compare BASELINE --diagnosis-json`, against a healthy
# run taken first.
#
# Delays are the emulator's (wirefilter) only: this machine's kernel has
# no netem (nor prio), so a host's or a pair's own delay cannot be made
# here; loss is nftables' (numgen random), rates tbf and htb. The model's
# answer to a slow host or pair is in the unit tests (generated
# matrices).
#
# - single faults, each kind at random places (SINGLES each):
#     host_down      nftables in the host: everything dropped, in and out
#                    (nothing reaches it, no SSH; its links stay up, so
#                    the lab's routes of the a-c path stay)
#     icmp_in        nftables in the host: ICMP echo requests dropped
#     iperf3_in      nftables in the host: TCP 5201 rejected (iperf3)
#     host_loss      nftables in the host: 20 % of what it sends dropped
#     host_rate      tbf on the host's links: 10 Mbit/s out (iperf3)
#     site_loss      lab.sh link SITE loss 10 (each way): b's uplink, or
#                    for a and c, whose pairs between them take their
#                    own path, the path between them and b
#     site_delay     lab.sh link SITE delay +25 ms (found against the
#                    baseline only: a farther site looks the same)
#     path_loss      lab.sh link a-c loss 10: the path between two sites
#     path_delay     lab.sh link a-c delay +25 ms (against the baseline)
#     pair_loss      nftables in A: 40 % of what it sends B dropped
#     pair_rate      htb in A: 10 Mbit/s to B, one way (iperf3)
#     one_way        nftables in B: A's echo requests dropped (A -> B
#                    fails, B -> A works)
#     tool_missing   the host's remote_setup empties PATH (no ping)
#   and with --bench (the stand-in otela node, 6 hosts, --baseline):
#     libp2p_block   nftables in the host: TCP 19091 rejected in and out
#     no_http        the host's node refuses HTTP over libp2p
#   scored on the top finding: the right rule at the right place;
# - double faults (DOUBLES): two single faults at disjoint places, scored
#   on both being named among the findings;
# - healthy runs (HEALTHY): scored on no finding at all, and on none at
#   warning or error (a throughput test's collapse, one test one way, is
#   an info finding: measure the pair again).
# Prints every run's result, then the figures per kind; and the time the
# diagnosis takes at 1,000 hosts (a generated collect file, netprof -v's
# "diagnosed in" step). Asserts nothing.
#
# usage: tests/perf/diagnose.sh [--bench] [--scale-only] [NETPROF_BIN]
# env:   SINGLES (3), DOUBLES (10), HEALTHY (20), BENCH_SINGLES (3), IPERF_S (3),
#        SEED (1), DIAG_SUBNET (78), DIAG_KEEP (1: keep the runs' files)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
do_bench=0 scale_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--bench) do_bench=1; shift ;;
	--scale-only) scale_only=1; shift ;;
	*) break ;;
	esac
done
BIN=$(bench_binary "${1:-${NETPROF_BIN:-}}") || exit 1
SINGLES=${SINGLES:-3} DOUBLES=${DOUBLES:-10} HEALTHY=${HEALTHY:-20}
# iperf3 tests of 3 s: through the emulator under load, one of 2 s now
# and then collapses to a tenth of its pair's rate (a loss in its slow
# start, and no time left to recover)
IPERF_S=${IPERF_S:-3}
BENCH_SINGLES=${BENCH_SINGLES:-3}
RANDOM=${SEED:-1}

# --- 1,000 hosts: the diagnosis's time ------------------------------------
scale() {
	local work hosts=1000
	work=$(bench_workdir diagnose-scale)
	# four sites of 250 (RTT 0.05 ms inside, 20-80 between), 10 echoes a
	# pair; h10 down, site d's uplink lossy, h300 <-> h600 slow
	awk -v n=$hosts 'BEGIN {
		srand(7)
		for (s = 1; s <= n; s++) for (t = 1; t <= n; t++) {
			if (s == t) continue
			a = int((s - 1) / 250); b = int((t - 1) / 250)
			rtt = a == b ? 0.05 : 20 * (a + b + 1)
			rtt *= 0.98 + 0.04 * rand()
			lost = 0
			if ((a == 3) != (b == 3)) lost = int(rand() * 4)
			if ((s == 300 && t == 600) || (s == 600 && t == 300)) rtt += 40
			if (s == 10)
				printf "{\"kind\":\"ping\",\"source\":\"h%d\",\"target\":\"h%d\",\"ok\":false,\"error\":\"could not connect: 198.18.0.11:22: timed out after 5 s\",\"error_class\":\"unreachable\"}\n", s, t
			else if (t == 10)
				printf "{\"kind\":\"ping\",\"source\":\"h%d\",\"target\":\"h%d\",\"ok\":false,\"error\":\"100%% packet loss: 10 sent, none answered\",\"error_class\":\"tool_failed\"}\n", s, t
			else
				printf "{\"kind\":\"ping\",\"source\":\"h%d\",\"target\":\"h%d\",\"ok\":true,\"metrics\":{\"p50\":%.3f,\"avg\":%.3f,\"loss_pct\":%g,\"samples_ms\":[%s]}}\n", s, t, rtt, rtt, lost * 10, substr("1,1,1,1,1,1,1,1,1,1", 1, 2 * (10 - lost) - 1)
		}
	}' >"$work/collect.jsonl"
	awk -v n=$hosts 'BEGIN { printf "{\"machines\":["
		for (s = 1; s <= n; s++) printf "%s{\"name\":\"h%d\",\"address\":\"198.18.%d.%d\",\"site\":\"%s\"}", (s > 1 ? "," : ""), s, int(s / 250), s % 250 + 1, substr("abcd", int((s - 1) / 250) + 1, 1)
		print "]}" }' >"$work/machines.json"
	"$BIN" -v heatmap --input "$work/collect.jsonl" --config "$work/machines.json" \
	    --diagnosis-json "$work/diagnosis.json" --output "$work/page.html" \
	    2>"$work/steps.log"
	echo "1,000 hosts ($(wc -l <"$work/collect.jsonl") ping records): $(grep -o 'heatmap: diagnosed in [0-9.]* s' "$work/steps.log" | sed 's/heatmap: //') (target: within 1 s)"
	echo "  findings: $(jq -r '[.findings[] | "\(.rule) \(.place.host // .place.site // "\(.place.source) <-> \(.place.target)")"] | join("; ")' "$work/diagnosis.json")"
	echo "  load: $(uptime | sed 's/.*load average: //')"
}
if [ $scale_only = 1 ]; then
	scale
	exit 0
fi

bench_lab_setup diagnose.sh dxacc jq nft tc wirefilter vde_switch
# the runs' records and diagnoses go with the lab, unless DIAG_KEEP=1
trap 'cleanup; [ "${DIAG_KEEP:-0}" = 1 ] && echo "kept: $WORK" || rm -rf "$WORK"' EXIT
SUBNET=${DIAG_SUBNET:-78}
echo "load before: $(uptime | sed 's/.*load average: //')"
"$LAB" up --name dxacc --subnet "$SUBNET" --dir "$WORK/lab" \
    --site a=3,delay=5,rate=200mbit --site b=3,delay=10,rate=200mbit \
    --site c=2,delay=20,rate=200mbit --pair a-c,delay=25,rate=200mbit \
    --home delay=2 $(printf -- '--rate h%d=500mbit ' 1 2 3 4 5 6 7 8) \
    >/dev/null
inv=$WORK/lab/machines.json
# shellcheck disable=SC1091
. "$WORK/lab/lab.env"
HOSTS=(h1 h2 h3 h4 h5 h6 h7 h8)
declare -A SITE_OF=([h1]=a [h2]=a [h3]=a [h4]=b [h5]=b [h6]=b [h7]=c [h8]=c)
declare -A DELAY_OF=([a]=5 [b]=10 [c]=20)
addr() { echo "198.18.$SUBNET.$(( ${1#h} + 1 ))"; }
lab() { "$LAB" "$1" --name dxacc "${@:2}"; }

collect() {	# collect INVENTORY OUT [ARGS...]
	"$BIN" -q collect --config "$1" --output "$2" --ping-count 10 \
	    --ping-interval 0.2 "${@:3}" >/dev/null 2>&1 || true
}
collect "$inv" "$WORK/base.jsonl"
collect "$inv" "$WORK/base-iperf.jsonl" --iperf --iperf-seconds "$IPERF_S"

# --- faults ----------------------------------------------------------------
# inject KIND PLACE...: the fault; clear: every fault gone. EXPECT is what
# the top finding must say: "rule place" (a pair's hosts in their order
# for one_way, sorted otherwise).
nft_in() {	# nft_in HOST RULE
	lab run "$1" -- nft -f - <<EOF
table inet dx {
	chain in { type filter hook input priority 0; $2; }
}
EOF
}
nft_both() {
	lab run "$1" -- nft -f - <<EOF
table inet dx {
	chain in { type filter hook input priority 0; $2; }
	chain out { type filter hook output priority 0; $2; }
}
EOF
}
links() {	# links HOST: its interfaces (eth0, and a pair's path's)
	lab run "$1" -- ip -o link show 2>/dev/null |
	    awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2 }'
}
pair_rate() {	# pair_rate HOST PEER: 10 Mbit/s to the peer, by its route
	local dev
	dev=$(lab run "$1" -- ip -o route get "$(addr "$2")" | grep -o 'dev [^ ]*' | cut -d' ' -f2)
	lab run "$1" -- sh -c "tc qdisc del dev $dev root 2>/dev/null;
	    tc qdisc add dev $dev root handle 1: htb default 10 r2q 10000 &&
	    tc class add dev $dev parent 1: classid 1:10 htb rate 500mbit &&
	    tc class add dev $dev parent 1: classid 1:20 htb rate 10mbit &&
	    tc filter add dev $dev parent 1: protocol ip prio 1 u32 match ip dst $(addr "$2")/32 flowid 1:20"
}
nft_out() {	# nft_out HOST RULE
	lab run "$1" -- nft -f - <<EOF
table inet dx {
	chain out { type filter hook output priority 0; $2; }
}
EOF
}
sorted() { printf '%s\n' "$@" | sort -V | paste -sd' '; }
# uplink SITE: what a fault of SITE's link is, found right: b's link
# carries all of b's pairs with the other sites; a's and c's only their
# pairs with b (a and c have a path of their own), so a fault there is
# the path between a (or c) and b.
uplink() {
	case $1 in
	b) echo "site_uplink b" ;;
	a) echo "site_pair_path a b" ;;
	c) echo "site_pair_path b c" ;;
	esac
}

INV=$inv IPERF=() BENCHRUN=0
inject() {
	local kind=$1 p=$2 q=${3:-}
	case $kind in
	host_down) nft_both "$p" "policy drop"; EXPECT="host_down $p" ;;
	icmp_in) nft_in "$p" "icmp type echo-request drop"; EXPECT="host_blocked $p" ;;
	iperf3_in) nft_in "$p" "tcp dport 5201 reject with tcp reset"
		IPERF=(--iperf --iperf-seconds "$IPERF_S"); EXPECT="host_blocked $p" ;;
	host_loss) nft_out "$p" "numgen random mod 100 < 20 drop"
		EXPECT="host_link $p" ;;
	host_rate) for d in $(links "$p"); do
			lab run "$p" -- sh -c "tc qdisc del dev $d root 2>/dev/null;
			    tc qdisc add dev $d root tbf rate 10mbit burst 32kbit latency 50ms"
		done
		IPERF=(--iperf --iperf-seconds "$IPERF_S"); EXPECT="host_link $p" ;;
	site_loss) lab link "$p" loss 10 >/dev/null; EXPECT=$(uplink "$p") ;;
	site_delay) lab link "$p" delay $(( DELAY_OF[$p] + 25 )) >/dev/null
		EXPECT=$(uplink "$p") ;;
	path_loss) lab link a-c loss 10 >/dev/null; EXPECT="site_pair_path a c" ;;
	path_delay) lab link a-c delay 50 >/dev/null; EXPECT="site_pair_path a c" ;;
	pair_loss) nft_out "$p" "ip daddr $(addr "$q") numgen random mod 100 < 40 drop"
		EXPECT="pair_degraded $(sorted "$p" "$q")" ;;
	pair_rate) pair_rate "$p" "$q"
		IPERF=(--iperf --iperf-seconds "$IPERF_S")
		EXPECT="pair_degraded $(sorted "$p" "$q")" ;;
	one_way) nft_in "$q" "ip saddr $(addr "$p") icmp type echo-request drop"
		EXPECT="one_way $p $q" ;;
	tool_missing) INV=$WORK/inv-$p.json
		jq --arg h "$p" '(.machines[] | select(.name == $h)).remote_setup =
		    "export PATH=/nonexistent"' "$inv" >"$INV"
		EXPECT="setup $p" ;;
	libp2p_block) nft_both "$p" "tcp dport 19091 reject with tcp reset"
		BENCHRUN=1; EXPECT="host_blocked $p" ;;
	no_http) INV=$WORK/inv-$p.json
		jq --arg h "$p" '(.machines[] | select(.name == $h)).remote_setup +=
		    "; export OTELA_FAKE_NO_HTTP=1"' "$BENCH_INV" >"$INV"
		BENCHRUN=1; EXPECT="relay_reservation $p" ;;
	esac
}
clear_faults() {
	local h s
	for h in "${HOSTS[@]}"; do
		for d in $(links "$h"); do
			lab run "$h" -- tc qdisc del dev "$d" root 2>/dev/null || true
		done
		# the lab's own rate on eth0 (lab.sh's --rate), back
		lab run "$h" -- sh -c 'tc qdisc add dev eth0 root handle 1: htb default 1 &&
		    tc class add dev eth0 parent 1: classid 1:1 htb rate 500mbit ceil 500mbit quantum 60000'
		lab run "$h" -- nft delete table inet dx 2>/dev/null || true
	done
	for s in a b c; do
		lab link "$s" delay "${DELAY_OF[$s]}" loss 0 >/dev/null
	done
	lab link a-c delay 25 loss 0 >/dev/null
	INV=$inv IPERF=() BENCHRUN=0
}

# place KIND: a random place for the kind ("h3", "b", "h2 h7").
place() {
	local a b
	case $1 in
	site_*) echo "abc" | cut -c$(( RANDOM % 3 + 1 )) ;;
	path_*) echo "a c" ;;
	pair_*|one_way)
		a=${HOSTS[RANDOM % 8]}
		b=$a
		while [ "$b" = "$a" ]; do b=${HOSTS[RANDOM % 8]}; done
		echo "$a $b" ;;
	libp2p_block|no_http) echo "h$(( RANDOM % 6 + 1 ))" ;;
	*) echo "${HOSTS[RANDOM % 8]}" ;;
	esac
}
# hosts_of KIND PLACE...: the hosts a fault concerns (a site's hosts).
hosts_of() {
	case $1 in
	site_*) for h in "${HOSTS[@]}"; do
			if [ "${SITE_OF[$h]}" = "$2" ]; then echo "$h"; fi
		done ;;
	path_*) for h in "${HOSTS[@]}"; do
			if [ "${SITE_OF[$h]}" != b ]; then echo "$h"; fi
		done ;;
	*) printf '%s\n' "${@:2}" ;;
	esac
}

# run LABEL: collect (or bench), diagnose; sets FOUND (every finding as
# "rule place", one a line) and TOP (the first).
run() {
	local out=$WORK/$1.jsonl dj=$WORK/$1.diagnosis.json base=$WORK/base.jsonl
	local files=(--input "$out")
	rm -rf "$out" "$WORK/$1.bench"
	if [ "$BENCHRUN" = 1 ]; then
		"$BIN" -q bench --config "$INV" --output "$WORK/$1.bench" \
		    --baseline --no-punch --latency-count 5 --throughput-count 1 \
		    --throughput-bytes 1000000 --converge-wait 10 \
		    --probe-timeout 10 >/dev/null 2>&1 || true
		files=(--input "$WORK/$1.bench/measurements.jsonl" --input "$WORK/$1.bench/run.json")
		base=
	else
		if [ ${#IPERF[@]} -gt 0 ]; then base=$WORK/base-iperf.jsonl; fi
		collect "$INV" "$out" "${IPERF[@]}"
	fi
	"$BIN" -q heatmap "${files[@]}" --config "$inv" ${base:+--compare "$base"} \
	    --diagnosis-json "$dj" --text >/dev/null 2>&1 || true
	FOUND=$(jq -r '.findings[] | "\(.rule) \(.place.host // .place.site //
	    (if .place.scope == "pair" then (if .rule == "one_way" then
	    "\(.place.source) \(.place.target)" else
	    ([.place.source, .place.target] | sort_by(.[1:] | tonumber) |
	    join(" ")) end) elif .place.scope == "site_pair" then
	    (.place.sites | sort | join(" ")) else "mesh" end))"' "$dj" \
	    2>/dev/null || true)
	TOP=$(head -n 1 <<<"$FOUND")
	WARNED=$(jq '[.findings[] | select(.severity != "info")] | length' \
	    "$dj" 2>/dev/null || echo 0)
}

declare -A N_KIND=() OK_KIND=() MISS_KIND=()
singles=0 singles_ok=0

single() {	# single KIND
	local kind=$1 p
	p=$(place "$kind")
	# shellcheck disable=SC2086
	inject "$kind" $p
	run "s$singles"
	clear_faults
	singles=$((singles + 1))
	N_KIND[$kind]=$(( ${N_KIND[$kind]:-0} + 1 ))
	if [ "$TOP" = "$EXPECT" ]; then
		singles_ok=$((singles_ok + 1))
		OK_KIND[$kind]=$(( ${OK_KIND[$kind]:-0} + 1 ))
		echo "single $kind at $p: right ($TOP)"
	else
		MISS_KIND[$kind]+="[$p: ${TOP:-no finding}] "
		echo "single $kind at $p: WRONG, expected \"$EXPECT\", top \"${TOP:-no finding}\"; all: $(paste -sd';' <<<"$FOUND")"
	fi
}

KINDS=(host_down icmp_in iperf3_in host_loss host_rate site_loss site_delay
    path_loss path_delay pair_loss pair_rate one_way tool_missing)
for kind in "${KINDS[@]}"; do
	for _ in $(seq 1 "$SINGLES"); do
		single "$kind"
	done
done

# --- two at once ------------------------------------------------------------
doubles=0 doubles_ok=0
PAIRABLE=(host_down icmp_in host_loss site_loss site_delay pair_loss one_way
    tool_missing)
for _ in $(seq 1 "$DOUBLES"); do
	k1=${PAIRABLE[RANDOM % ${#PAIRABLE[@]}]}
	k2=$k1
	while [ "$k2" = "$k1" ] || { [[ $k1 == site_* ]] && [[ $k2 == site_* ]]; }; do
		k2=${PAIRABLE[RANDOM % ${#PAIRABLE[@]}]}
	done
	p1=$(place "$k1")
	# shellcheck disable=SC2086
	h1=$(hosts_of "$k1" $p1 | paste -sd' ')
	while :; do
		p2=$(place "$k2")
		# shellcheck disable=SC2086
		h2=$(hosts_of "$k2" $p2 | paste -sd' ')
		# disjoint hosts, and not a host fault in a faulty site's
		# hosts' way: sites apart
		clash=0
		for x in $h1; do for y in $h2; do
			if [ "${SITE_OF[$x]}" = "${SITE_OF[$y]}" ]; then clash=1; fi
		done; done
		if [ $clash = 0 ]; then break; fi
	done
	# tool_missing's inventory and the other's both: one inventory
	# shellcheck disable=SC2086
	inject "$k1" $p1
	e1=$EXPECT inv1=$INV
	# shellcheck disable=SC2086
	inject "$k2" $p2
	e2=$EXPECT
	if [ "$inv1" != "$inv" ]; then INV=$inv1; fi
	run "d$doubles"
	clear_faults
	doubles=$((doubles + 1))
	if grep -qxF "$e1" <<<"$FOUND" && grep -qxF "$e2" <<<"$FOUND"; then
		doubles_ok=$((doubles_ok + 1))
		echo "double $k1 at $p1 + $k2 at $p2: both named"
	else
		echo "double $k1 at $p1 + $k2 at $p2: NOT both named (expected \"$e1\" and \"$e2\"); found: $(paste -sd';' <<<"$FOUND")"
	fi
done

# --- healthy -----------------------------------------------------------------
healthy=0 healthy_clean=0 healthy_findings=0 healthy_quiet=0
for i in $(seq 1 "$HEALTHY"); do
	if [ $((i % 5)) = 0 ]; then IPERF=(--iperf --iperf-seconds "$IPERF_S"); fi
	run "h$healthy"
	IPERF=()
	healthy=$((healthy + 1))
	n=$(grep -c . <<<"$FOUND" || true)
	healthy_findings=$((healthy_findings + n))
	if [ "$WARNED" = 0 ]; then healthy_quiet=$((healthy_quiet + 1)); fi
	if [ "$n" = 0 ]; then
		healthy_clean=$((healthy_clean + 1))
		echo "healthy $i: no finding"
	else
		echo "healthy $i: $n finding(s), $WARNED warning(s) or error(s): $(paste -sd';' <<<"$FOUND")"
	fi
done

# --- bench: the libp2p kinds -------------------------------------------------
bench_singles=0 bench_ok=0
if [ $do_bench = 1 ]; then
	BENCH_INV=$WORK/bench-inv.json
	jq --arg p "export PATH=$SRC/tests/otela-node/bin:\$PATH; export OTELA_FAKE_API_DELAY_MS=100 OTELA_FAKE_STOP_MS=300" \
	    '.machines |= (.[0:6] | map(.remote_setup = $p))' "$inv" >"$BENCH_INV"
	for kind in libp2p_block no_http; do
		for _ in $(seq 1 "$BENCH_SINGLES"); do
			p=$(place "$kind")
			INV=$BENCH_INV
			inject "$kind" "$p"
			run "b$bench_singles"
			clear_faults
			bench_singles=$((bench_singles + 1))
			N_KIND[$kind]=$(( ${N_KIND[$kind]:-0} + 1 ))
			if [ "$TOP" = "$EXPECT" ]; then
				bench_ok=$((bench_ok + 1))
				OK_KIND[$kind]=$(( ${OK_KIND[$kind]:-0} + 1 ))
				echo "bench $kind at $p: right ($TOP)"
			else
				MISS_KIND[$kind]+="[$p: ${TOP:-no finding}] "
				echo "bench $kind at $p: WRONG, expected \"$EXPECT\", top \"${TOP:-no finding}\"; all: $(paste -sd';' <<<"$FOUND")"
			fi
		done
	done
	INV=$BENCH_INV BENCHRUN=1
	run "bh"
	echo "bench healthy: $(grep -c . <<<"$FOUND" || true) finding(s), $WARNED warning(s) or error(s)${FOUND:+: $(paste -sd';' <<<"$FOUND")}"
	BENCHRUN=0 INV=$inv
fi

# --- figures -------------------------------------------------------------------
echo
echo "per kind: top finding right / runs"
for kind in "${KINDS[@]}" libp2p_block no_http; do
	[ -n "${N_KIND[$kind]:-}" ] || continue
	printf '  %-13s %d/%d%s\n' "$kind" "${OK_KIND[$kind]:-0}" "${N_KIND[$kind]}" \
	    "${MISS_KIND[$kind]:+  missed: ${MISS_KIND[$kind]}}"
done
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f %%", b ? 100 * a / b : 0 }'; }
echo "single faults (collect): top-1 right $singles_ok of $singles ($(pct "$singles_ok" "$singles"); target >= 95 %)"
if [ $do_bench = 1 ]; then
	echo "single faults (bench):   top-1 right $bench_ok of $bench_singles ($(pct "$bench_ok" "$bench_singles"))"
fi
echo "double faults: both named $doubles_ok of $doubles ($(pct "$doubles_ok" "$doubles"); target >= 80 %)"
echo "healthy runs: $healthy_clean of $healthy without a finding, $healthy_findings finding(s) in all (target: 0); $healthy_quiet of $healthy without a warning or error"
echo "load after: $(uptime | sed 's/.*load average: //')"
echo
scale
