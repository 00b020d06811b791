#!/usr/bin/env bash
# Try netprof without a cluster: build it, bring up a lab of network
# namespaces (each host with its own address in 198.18.0.0/16 and its own
# sshd) in two sites tens of ms apart, with this machine at a distance
# too, then run netprof on it: check, exec, collect --iperf, heatmap,
# bench. --flat: the hosts on one bridge, microseconds apart.
# Run as root on Debian; installs what is missing.
#
#   examples/lab-demo.sh [--hosts N] [--flat] [--keep] [--output DIR]
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
hosts=4
keep=0
flat=0
out=$PWD/netprof-demo
while [ $# -gt 0 ]; do
	case $1 in
	--hosts) hosts=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--flat) flat=1; shift ;;
	--output) out=$2; shift 2 ;;
	-h|--help) sed -n '2,10s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "lab-demo: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
if [ "$(id -u)" -ne 0 ]; then
	echo "lab-demo: needs root (it creates network namespaces); run it with sudo" >&2
	exit 2
fi

# The lab group (which includes the build group) is all the demo needs:
# netprof is configured without its tests, whose packages it does not install.
"$src/tests/install-deps.sh" lab
cmake -S "$src" -B "$src/build/demo" -DNETPROF_TESTS=OFF >/dev/null
cmake --build "$src/build/demo" -j "$(nproc)" >/dev/null
np=$src/build/demo/netprof
lab=$src/tests/lab/lab.sh
labdir=$out/lab
mkdir -p "$out"

if [ "$flat" = 1 ]; then
	"$lab" up --name demo --hosts "$hosts" --subnet 200 --dir "$labdir" \
	    --rate "h$hosts=200mbit"
else
	# Two sites (the first half of the hosts, then the rest): east 5 ms
	# from the core, west 15 ms and capped at 50 Mbit/s, this machine
	# 10 ms; east-west pairs are 40 ms apart (docs/lab.md).
	[ "$hosts" -ge 2 ] || { echo "lab-demo: two sites need --hosts 2 or more (or --flat)" >&2; exit 2; }
	"$lab" up --name demo --subnet 200 --dir "$labdir" \
	    --site "east=$(( hosts / 2 )),delay=5" \
	    --site "west=$(( hosts - hosts / 2 )),delay=15,rate=50mbit" \
	    --home delay=10
fi
[ "$keep" = 1 ] || trap '"$lab" down --name demo --dir "$labdir" >/dev/null' EXIT
inv=$labdir/machines.json

echo "== netprof check"
"$np" check --config "$inv"
echo "== netprof exec -- uname -n"
"$np" exec --config "$inv" -- uname -n
echo "== netprof exec --repeat 50 -- true   (the SSH path itself)"
"$np" exec --config "$inv" --repeat 50 -- true
echo "== netprof collect --iperf"
"$np" collect --config "$inv" --iperf --output "$out/baseline.jsonl" || true
echo "== netprof heatmap"
"$np" heatmap --input "$out/baseline.jsonl" --output "$out/heatmap.html"
"$np" heatmap --input "$out/baseline.jsonl" --text --kind ping
echo
echo "records: $out/baseline.jsonl"
echo "heatmap: $out/heatmap.html"

# The libp2p bench with the stand-in otela node on every host's PATH
# (lab hosts share this machine's files; the lab user must read them).
echo "== netprof bench --baseline   (libp2p mesh sweep plus ICMP ping)"
if ! command -v node >/dev/null || ! "$src/tests/otela-node/install.sh" >/dev/null; then
	echo "lab-demo: the stand-in otela node needs Node.js and npm" \
	    "(tests/install-deps.sh lab installs them)" >&2
	exit 1
fi
otela=$src/tests/otela-node
if ! su -s /bin/sh nplab -c "test -r '$otela/bin/otela'" 2>/dev/null; then
	otela=$(mktemp -d /tmp/netprof-demo-otela.XXXXXX)
	cp -r "$src/tests/otela-node/." "$otela" && chmod -R a+rX "$otela"
	if [ "$keep" = 1 ]; then
		trap 'rm -rf "$otela"' EXIT
	else
		trap '"$lab" down --name demo --dir "$labdir" >/dev/null; rm -rf "$otela"' EXIT
	fi
fi
jq --arg p "$otela/bin" '.remote_setup = "export PATH=\($p):$PATH"' "$inv" \
    >"$out/bench-machines.json"
"$np" bench --config "$out/bench-machines.json" --output "$out/bench" \
    --baseline || true
"$np" heatmap --input "$out/bench/measurements.jsonl" \
    --input "$out/bench/run.json" --output "$out/bench.html"
echo "bench records: $out/bench/measurements.jsonl (run.json beside it)"
echo "bench heatmap: $out/bench.html (libp2p over ICMP in the overlay view)"
