#!/usr/bin/env bash
# Install what netprof needs to build, to run its lab and to run its tests,
# on Debian, as root. Idempotent: only missing packages are installed.
#
#   tests/install-deps.sh [build] [lab] [test]    (default: all three)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

build_pkgs="gcc make cmake pkg-config libssh-dev libuv1-dev libcjson-dev
  libcurl4-openssl-dev"
lab_pkgs="iproute2 openssh-server openssh-client iputils-ping iperf3 procps
  psmisc jq time"
test_pkgs="libcmocka-dev nodejs npm chromium python3 curl"

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

# Node packages for the test tools, pinned by their package-lock.json.
case " $groups " in
*" test "*)
	for d in "$here"/otela-node "$here"/browser; do
		[ -x "$d/install.sh" ] && "$d/install.sh"
	done
	;;
esac
exit 0
