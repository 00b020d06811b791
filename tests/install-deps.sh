#!/usr/bin/env bash
# Install what netprof needs to build, to run its lab and to run its tests,
# on Debian, as root. Idempotent: only missing packages are installed.
#
#   tests/install-deps.sh [build] [lab] [test]    (default: all three)
#
# build: what `cmake` and the compiler need for netprof itself (tests off).
# lab: the lab of network namespaces (vde2 for its sites at a distance) and
# what examples/lab-demo.sh runs
# (Node.js and npm for the stand-in otela node that bench starts on the
# lab's hosts, with its pinned npm packages; munge, slurmctld, slurmd and
# slurm-client for the lab's Slurm cluster, tests/lab/slurm.sh).
# test: tests/run.sh (cmocka, Chromium for the browser tests, python3 for the tunnel test's server and the fake node, strace for the bridge test, zsh for the completion test, clang for the clang build and
# the fuzzers, bc for tests/perf, Prometheus and node_exporter for the
# metrics tests; and Jaeger for the trace test, built once from the Go
# module proxy by tests/jaeger/install.sh with the machine's Go and
# cached under /var/cache/netprof-tests: about 7 minutes the first time,
# nothing after; in the background with NETPROF_JAEGER_BACKGROUND=1, as
# tests/run.sh sets it).
# tests/deps/test_build_deps.sh proves the build group is enough to build.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

build_pkgs="gcc make cmake pkg-config libssh-dev libuv1-dev libcjson-dev
  libcurl4-openssl-dev libssl-dev libmicrohttpd-dev"
lab_pkgs="iproute2 openssh-server openssh-client iputils-ping iperf3 procps
  psmisc jq time fping nftables vde2 nodejs npm munge slurmctld slurmd
  slurm-client"
test_pkgs="libcmocka-dev chromium python3 curl clang libclang-rt-dev bc zsh
  strace prometheus prometheus-node-exporter"

groups=${*:-build lab test}
want=""
for g in $groups; do
	case $g in
	build) want="$want $build_pkgs" ;;
	lab) want="$want $build_pkgs $lab_pkgs" ;;
	test) want="$want $build_pkgs $lab_pkgs $test_pkgs" ;;
	*) echo "install-deps: unknown group '$g' (build, lab, test)" >&2; exit 2 ;;
	esac
done

missing=""
for p in $want; do
	case " $missing " in *" $p "*) continue ;; esac
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		# A command already on PATH (a Node.js not from Debian, say) is enough.
		case $p in
		nodejs) command -v node >/dev/null && continue ;;
		npm) command -v npm >/dev/null && continue ;;
		esac
		missing="$missing $p"
	fi
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing packages:$missing; run as root to install them" >&2
		exit 1
	fi
	echo "install-deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# Node packages, pinned by their package-lock.json: the stand-in otela
# node for the lab (and the tests), the browser driver for the tests.
case " $groups " in
*" test "*)
	"$here/otela-node/install.sh" && "$here/browser/install.sh"
	# no Go or no room for the cache: said, and the trace test skips (in
	# CI, where nothing may skip, it fails with the reason)
	# NETPROF_JAEGER_BACKGROUND=1 (tests/run.sh): built in the
	# background while the suite runs; test_trace_jaeger waits for it
	if [ "${NETPROF_JAEGER_BACKGROUND:-0}" = 1 ]; then
		"$here/jaeger/install.sh" --background >/dev/null
	else
		"$here/jaeger/install.sh" >/dev/null
	fi ||
	    echo "install-deps: Jaeger was not built; test_trace_jaeger needs it" >&2 ;;
*" lab "*) "$here/otela-node/install.sh" ;;
esac
exit 0
